/*
 * test_cmd_resolve.c: `mrctx resolve` (tools/mrctx/cmd_resolve.c), run in
 * process with its output captured: the table, sources, ignored and
 * unavailable entries, exit statuses, and bad specs shown with a caret.
 * Built against the public API, as the tool is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <mrctx/mrctx.h>

#include "cmd_resolve.h"

typedef struct result {
  int rc;
  char out[8192];
  char err[8192];
} result;

static void slurp(FILE *f, char *buf, size_t cap) {
  rewind(f);
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = '\0';
  fclose(f);
}

/* Run the verb with a NULL-terminated argument list; capture stdout and
 * stderr. */
static void run(result *r, ...) {
  char *argv[32];
  int argc = 0;
  va_list ap;
  va_start(ap, r);
  argv[argc++] = "resolve";
  for (char *a = va_arg(ap, char *); a != NULL && argc < 31; a = va_arg(ap, char *))
    argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;

  fflush(stdout);
  fflush(stderr);
  FILE *out = tmpfile(), *err = tmpfile();
  assert_non_null(out);
  assert_non_null(err);
  int saved_out = dup(1), saved_err = dup(2);
  dup2(fileno(out), 1);
  dup2(fileno(err), 2);
  r->rc = mrctx_cmd_resolve(argc, argv);
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  slurp(out, r->out, sizeof r->out);
  slurp(err, r->err, sizeof r->err);
}

static void expect_text(const char *what, const char *got, const char *expected) {
  if (strcmp(got, expected) != 0) {
    print_error("%s expected:\n%s\n%s got:\n%s\n", what, expected, what, got);
    fail();
  }
}

static void expect_contains(const char *what, const char *got, const char *needle) {
  if (strstr(got, needle) == NULL) {
    print_error("%s does not contain \"%s\":\n%s\n", what, needle, got);
    fail();
  }
}

static void test_help(void **state) {
  result r;
  run(&r, "--help", NULL);
  assert_int_equal(r.rc, 0);
  expect_contains("stdout", r.out, "usage: mrctx resolve --tag NAME=SPEC");
  expect_contains("stdout", r.out, "Precedence, lowest first: --tag < --set < --config < --env.");
  expect_text("stderr", r.err, "");
}

static void test_usage_errors(void **state) {
  result r;
  run(&r, NULL);
  assert_int_equal(r.rc, 2);
  expect_text("stderr", r.err, "mrctx resolve: give at least one --tag NAME=SPEC (see --help)\n");
  run(&r, "--tag", "temp", NULL);
  assert_int_equal(r.rc, 2);
  expect_text("stderr", r.err, "mrctx resolve: --tag wants NAME=SPEC, got 'temp'\n");
  run(&r, "--tag", "temp=host", "--bogus", NULL);
  assert_int_equal(r.rc, 2);
  expect_contains("stderr", r.err, "mrctx resolve: unknown argument '--bogus'");
  expect_contains("stderr", r.err, "usage: mrctx resolve");
  run(&r, "--tag", "temp=host", "--env", NULL);
  assert_int_equal(r.rc, 2);
  expect_text("stderr", r.err, "mrctx resolve: --env needs a value\n");
  run(&r, "--tag", "temp=host", "--tag", "temp=host", NULL);
  assert_int_equal(r.rc, 2);
  expect_text("stderr", r.err, "mrctx resolve: resolve: tags 0 and 1 are both named 'temp'\n");
  expect_text("stdout", r.out, "");
}

static void test_table(void **state) {
  result r;
  run(&r, "--tag", "temp=stats(host)", "--tag=result=host", "--set", "temp=host", "--library",
      "mylib", NULL);
  assert_int_equal(r.rc, 0);
  expect_text("stdout", r.out,
              "mylib: 2 tags, 1 device\n"
              "\n"
              "tag     device  resource  source\n"
              "temp    0       host      override text, line 1\n"
              "result  0       host      default\n");
  expect_text("stderr", r.err, "");
}

static void test_sources_ignored_and_unavailable(void **state) {
  char dir[] = "/tmp/mrctx-resolve-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/mylib.conf", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("# staging buffers\nstaging = stats(host)\nresult@2 = host\n", f);
  fclose(f);
  setenv("RESOLVE_TEST_MEMORY", "temp=cache(host, max=64MiB)", 1);
  result r;
  run(&r, "--tag", "temp=host", "--tag", "staging=pinned", "--tag", "result=device", "--env",
      "RESOLVE_TEST_MEMORY", "--config", path, "--library", "mylib", NULL);
  unsetenv("RESOLVE_TEST_MEMORY");
  unlink(path);
  rmdir(dir);
  assert_int_equal(r.rc, 0);
  char expected[2048];
  snprintf(expected, sizeof expected,
           "mylib: 3 tags, 1 device\n"
           "\n"
           "tag      device  resource                source\n"
           "temp     0       cache(host, max=64MiB)  env RESOLVE_TEST_MEMORY, line 1\n"
           "staging  0       stats(host)             file %s, line 2\n"
           "result   0       device                  default  (unavailable)\n"
           "\n"
           "ignored (no such device):\n"
           "  result@2=host  (file %s, line 3)\n"
           "\n"
           "unavailable (allocations fail):\n"
           "  MR_ERR_NO_DRIVER: mylib:result on device 0: device: the CUDA driver could not be "
           "loaded: ",
           path, path);
  if (strncmp(r.out, expected, strlen(expected)) != 0) {
    print_error("stdout expected to begin:\n%s\ngot:\n%s\n", expected, r.out);
    fail();
  }
}

static void test_bad_spec_shows_caret(void **state) {
  setenv("RESOLVE_TEST_MEMORY", "temp=arina(device)", 1);
  result r;
  run(&r, "--tag", "temp=host", "--env", "RESOLVE_TEST_MEMORY", NULL);
  unsetenv("RESOLVE_TEST_MEMORY");
  assert_int_equal(r.rc, 2);
  expect_contains("stderr", r.err,
                  "mrctx resolve: RESOLVE_TEST_MEMORY, column 6: unknown resource 'arina' "
                  "(known: ");
  expect_contains("stderr", r.err, ")\n  temp=arina(device)\n       ^\n");
  expect_text("stdout", r.out, "");

  run(&r, "--tag", "temp=stats(host, chnk=1)", NULL);
  assert_int_equal(r.rc, 2);
  expect_text("stderr", r.err,
              "mrctx resolve: default spec of resolve tag 'temp', column 13: stats: unknown "
              "parameter 'chnk' (stats takes no parameters)\n"
              "  stats(host, chnk=1)\n"
              "              ^\n");
  run(&r, "--tag", "temp=host", "--set", "temp=host; tmp=host", NULL);
  assert_int_equal(r.rc, 2);
  expect_contains("stderr", r.err, "override text, column 12: resolve has no tag 'tmp' (tags: temp)");
  run(&r, "--tag", "temp=host", "--config", "/nonexistent/mylib.conf", NULL);
  assert_int_equal(r.rc, 2);
  expect_text("stderr", r.err,
              "mrctx resolve: config file '/nonexistent/mylib.conf' cannot be opened: No such "
              "file or directory\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help),
      cmocka_unit_test(test_usage_errors),
      cmocka_unit_test(test_table),
      cmocka_unit_test(test_sources_ignored_and_unavailable),
      cmocka_unit_test(test_bad_spec_shows_caret),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
