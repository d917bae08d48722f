/*
 * test_context.c: contexts on a machine without a driver (the unit suite):
 * precedence across the four sources, get_source, @tag sharing, cycles,
 * unknown tags, per-tag statistics, print_stats, print_resolved, two
 * libraries side by side, device tags standing in with MR_ERR_NO_DRIVER,
 * and every way creation can fail.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adaptors/adaptors_internal.h"
#include "context/context_internal.h"
#include "test_util.h"

/* ---- helpers ----------------------------------------------------------------- */

static void expect_message(const char *expected) {
  if (strcmp(mr_last_error(), expected) != 0) {
    print_error("expected:\n%s\ngot:\n%s\n", expected, mr_last_error());
    fail();
  }
}

/* mark(id=X): a host resource described as "mark(id=X)", so a test can
 * see which spec a tag resolved to. */
static mr_status mark_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  const char *id;
  mr_status st = mr_spec_args_word(args, "id", "none", &id);
  if (st != MR_OK) return st;
  mr_resource *host;
  st = mr_host_resource_create(&host);
  if (st != MR_OK) return st;
  char description[96];
  snprintf(description, sizeof description, "mark(id=%s)", id);
  st = mri_stats_resource_create(host, description, out);
  mr_resource_release(host);
  return st;
}

/* faulty(fail_at=N): host memory whose Nth allocation fails. */
static mr_status faulty_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  uint64_t fail_at;
  mr_status st = mr_spec_args_uint(args, "fail_at", 0, &fail_at);
  if (st != MR_OK) return st;
  faulty_config config = {
      .fail_at = (long)fail_at, .fail_count = 1, .fail_status = MR_ERR_OUT_OF_MEMORY};
  faulty_resource *handle;
  return faulty_resource_create(&config, out, &handle);
}

static int setup(void **state) {
  static bool done;
  if (!done) {
    assert_ok(mr_register_factory("mark", mark_factory, NULL));
    assert_ok(mr_register_factory("faulty", faulty_factory, NULL));
    done = true;
  }
  return 0;
}

static const char *describe(const mr_context *ctx, int tag) {
  mr_resource *mr = mr_context_get_mr_on(ctx, tag, 0);
  assert_non_null(mr);
  return mr_resource_describe(mr);
}

static mr_context *create(const mr_context_desc *desc) {
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(desc, &ctx));
  assert_non_null(ctx);
  return ctx;
}

static void create_fails(const mr_context_desc *desc, mr_status status, const char *expected) {
  mr_context *ctx = (mr_context *)0x1;
  mr_clear_error();
  assert_status(mr_context_create(desc, &ctx), status);
  assert_null(ctx);
  if (expected != NULL) expect_message(expected);
}

/* A file with `text` in a fresh temporary folder. OUT: path (caller frees,
 * and removes with remove_file). */
static char *write_file(const char *text) {
  char dir[] = "/tmp/mrctx-context-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *path = malloc(strlen(dir) + 32);
  assert_non_null(path);
  sprintf(path, "%s/mylib.conf", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void remove_file(char *path) {
  unlink(path);
  char *slash = strrchr(path, '/');
  *slash = '\0';
  rmdir(path);
  free(path);
}

static void assert_source(const mr_context *ctx, int tag, mr_spec_origin origin, const char *where,
                          int line, const char *spec) {
  mr_spec_source s = {.size = sizeof s};
  assert_ok(mr_context_get_source(ctx, tag, 0, &s));
  assert_int_equal(s.origin, origin);
  assert_string_equal(s.where, where);
  assert_int_equal(s.line, line);
  assert_string_equal(s.spec, spec);
  assert_int_equal(s.status, MR_OK);
  assert_string_equal(s.reason, "");
}

/* ---- basics ---------------------------------------------------------------------- */

enum { T_TEMP, T_STAGING, T_RESULT };
static const mr_tag host_tags[] = {
    [T_TEMP] = {"temp", "stats(host)"},
    [T_STAGING] = {"staging", "host"},
    [T_RESULT] = {"result", "mark(id=r)"},
};

static void test_host_tags(void **state) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = host_tags, .tag_count = 3};
  mr_context *ctx = create(&desc);
  assert_string_equal(mr_context_library(ctx), "mylib");
  assert_int_equal(mr_context_tag_count(ctx), 3);
  assert_string_equal(mr_context_tag_name(ctx, T_STAGING), "staging");
  assert_null(mr_context_tag_name(ctx, 3));
  assert_int_equal(mr_context_device_count(ctx), 1); /* no driver: one slot */
  assert_string_equal(describe(ctx, T_TEMP), "stats(host)");
  assert_string_equal(describe(ctx, T_STAGING), "host");
  assert_string_equal(describe(ctx, T_RESULT), "mark(id=r)");
  for (int t = 0; t < 3; t++) {
    mr_resource *mr = ctx_get_mr(ctx, t);
    assert_ptr_equal(mr, mr_context_get_mr_on(ctx, t, 0));
    void *p = NULL;
    assert_ok(mr_allocate(mr, 1000, 0, NULL, &p));
    assert_non_null(p);
    memset(p, 0xab, 1000);
    assert_ok(mr_deallocate(mr, p, 1000, 0, NULL));
    mr_resource_props props = {.size = sizeof props};
    assert_ok(mr_resource_get_props(mr, &props));
    assert_int_equal(props.kind, MR_MEMORY_HOST);
    assert_true(props.host_accessible);
  }
  /* Resources carry their owner's name. */
  assert_string_equal(mri_resource_owner(ctx_get_mr(ctx, T_TEMP)), "mylib:temp");
  assert_string_equal(mri_resource_owner(mr_resource_upstream(ctx_get_mr(ctx, T_TEMP))),
                      "mylib:temp");
  mr_context_destroy(ctx);
  mr_context_destroy(NULL);
}

static void test_invalid_lookups(void **state) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = host_tags, .tag_count = 3};
  mr_context *ctx = create(&desc);
  assert_null(ctx_get_mr(ctx, 3));
  expect_message("mylib: tag 3 does not exist (the context has 3 tags)");
  assert_null(ctx_get_mr(ctx, -1));
  assert_null(mr_context_get_mr_on(ctx, 0, 1));
  expect_message("mylib: device 1 is not one of the context's 1 device slot");
  assert_null(mr_context_get_mr_on(ctx, 0, -1));
  assert_null(mr_context_get_mr(NULL, 0));
  expect_message("mr_context_get_mr: the context is NULL");
  mr_spec_source s = {.size = sizeof s};
  assert_status(mr_context_get_source(ctx, 5, 0, &s), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_context_get_source(ctx, 0, 2, &s), MR_ERR_NO_DEVICE);
  assert_status(mr_context_get_source(ctx, 0, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_context_get_source(NULL, 0, 0, &s), MR_ERR_INVALID_ARGUMENT);
  mr_context_destroy(ctx);
}

/* ---- precedence -------------------------------------------------------------------- */

enum { P_A, P_B, P_C, P_D, P_E };
static const mr_tag five_tags[] = {
    [P_A] = {"a", "mark(id=default_a)"}, [P_B] = {"b", "mark(id=default_b)"},
    [P_C] = {"c", "mark(id=default_c)"}, [P_D] = {"d", "mark(id=default_d)"},
    [P_E] = {"e", "mark(id=default_e)"},
};

static void test_precedence_across_sources(void **state) {
  char *path = write_file("# mylib's memory\n"
                          "b = mark(id=file_b)\n"
                          "c = mark(id=file_c)\n"
                          "c@0 = mark(id=file_c0)\n");
  setenv("PREC_MEMORY", "c=mark(id=env_c)", 1);
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc),
      .library = "mylib",
      .tags = five_tags,
      .tag_count = 5,
      .env_var = "PREC_MEMORY",
      .config_file = path,
      .overrides = "a=mark(id=ov_a); b=mark(id=ov_b)\nc=mark(id=ov_c); d=mark(id=ov_d)",
  };
  mr_context *ctx = create(&desc);
  assert_string_equal(describe(ctx, P_A), "mark(id=ov_a)");
  assert_string_equal(describe(ctx, P_B), "mark(id=file_b)");
  /* The variable beats the file entirely, its c@0 included. */
  assert_string_equal(describe(ctx, P_C), "mark(id=env_c)");
  assert_string_equal(describe(ctx, P_D), "mark(id=ov_d)");
  assert_string_equal(describe(ctx, P_E), "mark(id=default_e)");

  assert_source(ctx, P_A, MR_SPEC_OVERRIDE, "", 1, "mark(id=ov_a)");
  assert_source(ctx, P_B, MR_SPEC_FILE, path, 2, "mark(id=file_b)");
  assert_source(ctx, P_C, MR_SPEC_ENV, "PREC_MEMORY", 1, "mark(id=env_c)");
  assert_source(ctx, P_D, MR_SPEC_OVERRIDE, "", 2, "mark(id=ov_d)");
  assert_source(ctx, P_E, MR_SPEC_DEFAULT, "", 1, "mark(id=default_e)");
  mr_context_destroy(ctx);

  /* Without the variable, the file's c@0 beats its c. */
  unsetenv("PREC_MEMORY");
  ctx = create(&desc);
  assert_string_equal(describe(ctx, P_C), "mark(id=file_c0)");
  assert_source(ctx, P_C, MR_SPEC_FILE, path, 4, "mark(id=file_c0)");
  mr_context_destroy(ctx);
  remove_file(path);
}

static void test_precedence_within_a_source(void **state) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc),
      .library = "mylib",
      .tags = five_tags,
      .tag_count = 5,
      /* Later entries win; tag@0 beats tag whatever the order. */
      .overrides = "a=mark(id=first); a=mark(id=second)\n"
                   "b@0=mark(id=b0); b=mark(id=b_all)\n"
                   "c=mark(id=c_all); c@0=mark(id=c0_first); c@0=mark(id=c0_second)",
  };
  mr_context *ctx = create(&desc);
  assert_string_equal(describe(ctx, P_A), "mark(id=second)");
  assert_string_equal(describe(ctx, P_B), "mark(id=b0)");
  assert_string_equal(describe(ctx, P_C), "mark(id=c0_second)");
  mr_context_destroy(ctx);
}

static void test_empty_sources(void **state) {
  setenv("EMPTY_MEMORY", "", 1);
  char *path = write_file("\n# nothing here\n\n");
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mylib",
                          .tags = five_tags,
                          .tag_count = 5,
                          .env_var = "EMPTY_MEMORY",
                          .config_file = path,
                          .overrides = "  ;  "};
  mr_context *ctx = create(&desc);
  for (int t = 0; t < 5; t++) {
    mr_spec_source s = {.size = sizeof s};
    assert_ok(mr_context_get_source(ctx, t, 0, &s));
    assert_int_equal(s.origin, MR_SPEC_DEFAULT);
  }
  assert_int_equal(mr_context_ignored_count(ctx), 0);
  mr_context_destroy(ctx);
  unsetenv("EMPTY_MEMORY");
  /* An unset variable and an absent file are nothing, too. */
  desc.config_file = NULL;
  ctx = create(&desc);
  mr_context_destroy(ctx);
  remove_file(path);
}

static void test_entries_for_missing_devices_are_ignored(void **state) {
  setenv("IGN_MEMORY", "a=mark(id=env_a)\n\nb@3=mark(id=b3)", 1);
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mylib",
                          .tags = five_tags,
                          .tag_count = 5,
                          .env_var = "IGN_MEMORY",
                          .overrides = "c@1 = stats(host)"};
  mr_context *ctx = create(&desc);
  assert_string_equal(describe(ctx, P_B), "mark(id=default_b)");
  assert_string_equal(describe(ctx, P_C), "mark(id=default_c)");
  assert_int_equal(mr_context_ignored_count(ctx), 2);
  mr_ignored_entry e = {.size = sizeof e};
  assert_ok(mr_context_get_ignored(ctx, 0, &e));
  assert_string_equal(e.tag, "c");
  assert_int_equal(e.device, 1);
  assert_int_equal(e.source->origin, MR_SPEC_OVERRIDE);
  assert_string_equal(e.source->spec, "stats(host)");
  assert_ok(mr_context_get_ignored(ctx, 1, &e));
  assert_string_equal(e.tag, "b");
  assert_int_equal(e.device, 3);
  assert_int_equal(e.source->origin, MR_SPEC_ENV);
  assert_string_equal(e.source->where, "IGN_MEMORY");
  assert_int_equal(e.source->line, 3);
  assert_string_equal(e.source->spec, "mark(id=b3)");
  assert_status(mr_context_get_ignored(ctx, 2, &e), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_context_get_ignored(NULL, 0, &e), MR_ERR_INVALID_ARGUMENT);
  mr_context_destroy(ctx);

  /* Ignored or not, they are checked. */
  setenv("IGN_MEMORY", "b@3=mark(id=b3", 1);
  create_fails(&desc, MR_ERR_CONFIG, NULL);
  assert_error_contains("IGN_MEMORY, column 15: '(' at line 1, column 9 is never closed");
  setenv("IGN_MEMORY", "b@3=marc(id=b3)", 1);
  create_fails(&desc, MR_ERR_CONFIG, NULL);
  assert_error_contains("IGN_MEMORY, column 5: unknown resource 'marc'");
  setenv("IGN_MEMORY", "x@3=host", 1);
  create_fails(&desc, MR_ERR_CONFIG, NULL);
  assert_error_contains("IGN_MEMORY, column 1: mylib has no tag 'x'");
  unsetenv("IGN_MEMORY");
}

/* ---- @tag -------------------------------------------------------------------------- */

enum { S_BIG, S_TEMP, S_ALIAS };
static const mr_tag sharing_tags[] = {
    [S_BIG] = {"big", "stats(host)"},
    [S_TEMP] = {"temp", "stats(@big)"},
    [S_ALIAS] = {"alias", "@big"},
};

static void test_tag_references_share_instances(void **state) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = sharing_tags, .tag_count = 3};
  mr_context *ctx = create(&desc);
  mr_resource *big = ctx_get_mr(ctx, S_BIG), *temp = ctx_get_mr(ctx, S_TEMP),
              *alias = ctx_get_mr(ctx, S_ALIAS);
  /* Each tag has its own statistics wrapper ... */
  assert_ptr_not_equal(big, alias);
  /* ... over the same instance. */
  mr_resource *big_inner = mr_resource_upstream(big);
  assert_ptr_equal(mr_resource_upstream(alias), big_inner);
  assert_ptr_equal(mr_resource_upstream(mr_resource_upstream(temp)), big_inner);
  assert_string_equal(mr_resource_describe(alias), "stats(host)");
  assert_string_equal(mr_resource_describe(temp), "stats(stats(host))");
  /* The first tag to hold a shared instance names it. */
  assert_string_equal(mri_resource_owner(big_inner), "mylib:big");
  assert_string_equal(mri_resource_owner(alias), "mylib:alias");

  void *p;
  assert_ok(mr_allocate(alias, 512, 0, NULL, &p));
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_context_get_stats(ctx, S_ALIAS, 0, &s));
  assert_int_equal(s.current_bytes, 512);
  assert_ok(mr_context_get_stats(ctx, S_BIG, 0, &s));
  assert_int_equal(s.current_bytes, 0);
  /* The shared stats(host) itself saw it. */
  assert_ok(mr_stats_resource_get(big_inner, &s));
  assert_int_equal(s.current_bytes, 512);
  assert_ok(mr_deallocate(alias, p, 512, 0, NULL));
  mr_context_destroy(ctx);

  /* An override may refer to a tag whose spec comes from anywhere. */
  setenv("SHARE_MEMORY", "big=mark(id=from_env)", 1);
  desc.env_var = "SHARE_MEMORY";
  desc.overrides = "temp=@alias";
  ctx = create(&desc);
  assert_string_equal(describe(ctx, S_TEMP), "mark(id=from_env)");
  assert_ptr_equal(mr_resource_upstream(ctx_get_mr(ctx, S_TEMP)),
                   mr_resource_upstream(ctx_get_mr(ctx, S_BIG)));
  mr_context_destroy(ctx);
  unsetenv("SHARE_MEMORY");
}

static void test_cycles(void **state) {
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mylib",
                          .tags = five_tags,
                          .tag_count = 5,
                          .overrides = "a=@b; b=@a"};
  create_fails(&desc, MR_ERR_CONFIG,
               "override text, column 9: tags refer to each other in a cycle: a -> b -> a\n"
               "  a=@b; b=@a\n"
               "          ^");
  desc.overrides = "c=stats(stats(@c))";
  create_fails(&desc, MR_ERR_CONFIG,
               "override text, column 15: tags refer to each other in a cycle: c -> c\n"
               "  c=stats(stats(@c))\n"
               "                ^");
  /* Across sources: the cycle is reported where it closes. */
  static const mr_tag tags[] = {{"x", "@y"}, {"y", "host"}, {"z", "host"}};
  setenv("CYCLE_MEMORY", "y=stats(@z)\nz=@x", 1);
  mr_context_desc across = {.size = sizeof(mr_context_desc),
                            .library = "mylib",
                            .tags = tags,
                            .tag_count = 3,
                            .env_var = "CYCLE_MEMORY"};
  create_fails(&across, MR_ERR_CONFIG,
               "CYCLE_MEMORY, line 2, column 3: tags refer to each other in a cycle: x -> y -> z "
               "-> x\n"
               "  z=@x\n"
               "    ^");
  unsetenv("CYCLE_MEMORY");
  /* A chain without a cycle is fine. */
  desc.overrides = "a=@b; b=@c; c=stats(@d)";
  mr_context *ctx = create(&desc);
  assert_string_equal(describe(ctx, P_A), "stats(mark(id=default_d))");
  mr_context_destroy(ctx);
}

static void test_unknown_tags(void **state) {
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mylib",
                          .tags = host_tags,
                          .tag_count = 3,
                          .overrides = "temp=host; tmp=host"};
  create_fails(&desc, MR_ERR_CONFIG,
               "override text, column 12: mylib has no tag 'tmp' (tags: temp, staging, result)\n"
               "  temp=host; tmp=host\n"
               "             ^");
  desc.overrides = "temp=stats(@reslt)";
  create_fails(&desc, MR_ERR_CONFIG,
               "override text, column 13: unknown tag 'reslt' (tags: temp, staging, result)\n"
               "  temp=stats(@reslt)\n"
               "              ^");
  /* A very long name is quoted in part: the rest of the message stays. */
  char text[3100], name[3001];
  memset(name, 'x', 3000);
  name[3000] = '\0';
  snprintf(text, sizeof text, "%s=host", name);
  desc.overrides = text;
  create_fails(&desc, MR_ERR_CONFIG,
               "override text, column 1: mylib has no tag "
               "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (tags: temp, "
               "staging, result)\n"
               "  xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\n"
               "  ^");
  snprintf(text, sizeof text, "temp=stats(@%s)", name);
  create_fails(&desc, MR_ERR_CONFIG, NULL);
  assert_error_contains("override text, column 13: unknown tag 'xxxxxxxxxx");
  assert_error_contains("...' (tags: temp, staging, result)\n  temp=stats(@xxxxxxxxxxxxxxx");
}

/* ---- errors from every source ----------------------------------------------------- */

static void test_errors_name_their_source(void **state) {
  setenv("SRC_MEMORY", "temp=arina(device)", 1);
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mylib",
                          .tags = host_tags,
                          .tag_count = 3,
                          .env_var = "SRC_MEMORY"};
  create_fails(&desc, MR_ERR_CONFIG, NULL);
  assert_error_contains("SRC_MEMORY, column 6: unknown resource 'arina' (known: ");
  assert_error_contains(")\n  temp=arina(device)\n       ^");

  /* A factory's parameter error, through a context. */
  setenv("SRC_MEMORY", "temp=track(host, chnk=64MiB)", 1);
  create_fails(&desc, MR_ERR_CONFIG,
               "SRC_MEMORY, column 18: track: unknown parameter 'chnk' (known: stacks)\n"
               "  temp=track(host, chnk=64MiB)\n"
               "                   ^");
  unsetenv("SRC_MEMORY");

  char *path = write_file("temp = host\n\nresult = mark(id=x, colour=red)\n");
  desc.config_file = path;
  char expected[1024];
  snprintf(expected, sizeof expected,
           "%s, line 3, column 21: mark: unknown parameter 'colour' (known: id)\n"
           "  result = mark(id=x, colour=red)\n"
           "                      ^",
           path);
  create_fails(&desc, MR_ERR_CONFIG, expected);
  remove_file(path);

  desc.config_file = NULL;
  desc.overrides = "staging=host(";
  create_fails(&desc, MR_ERR_CONFIG,
               "override text, column 14: '(' at line 1, column 13 is never closed\n"
               "  staging=host(\n"
               "               ^");

  static const mr_tag bad_default[] = {{"temp", "stats(hots)"}};
  mr_context_desc d = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = bad_default, .tag_count = 1};
  create_fails(&d, MR_ERR_CONFIG, NULL);
  assert_error_contains("default spec of mylib tag 'temp', column 7: unknown resource 'hots'");
  static const mr_tag bad_syntax[] = {{"temp", "host"}, {"result", "stats(host"}};
  d.tags = bad_syntax;
  d.tag_count = 2;
  create_fails(&d, MR_ERR_CONFIG,
               "default spec of mylib tag 'result', column 11: '(' at line 1, column 6 is never "
               "closed\n"
               "  stats(host\n"
               "            ^");
}

/* A UTF-8 byte-order mark at the start of a config file is skipped: lines
 * and columns count as without it. Anywhere else it is text, and an error
 * names its byte. */
static void test_config_file_bom(void **state) {
  char *path = write_file("\xef\xbb\xbf"
                          "b = mark(id=file_b)\n"
                          "c = mark(id=file_c)\n");
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mylib",
                          .tags = five_tags,
                          .tag_count = 5,
                          .config_file = path};
  mr_context *ctx = create(&desc);
  assert_string_equal(describe(ctx, P_B), "mark(id=file_b)");
  assert_source(ctx, P_B, MR_SPEC_FILE, path, 1, "mark(id=file_b)");
  assert_source(ctx, P_C, MR_SPEC_FILE, path, 2, "mark(id=file_c)");
  mr_context_destroy(ctx);
  remove_file(path);

  path = write_file("b = mark(id=file_b)\n\xef\xbb\xbf"
                    "c = mark(id=file_c)\n");
  desc.config_file = path;
  char expected[1024];
  snprintf(expected, sizeof expected, "%s, line 2, column 1: unexpected byte 0xef\n", path);
  create_fails(&desc, MR_ERR_CONFIG, NULL);
  if (strstr(mr_last_error(), expected) != mr_last_error())
    fail_msg("expected a message starting \"%s\", got \"%s\"", expected, mr_last_error());
  remove_file(path);
}

static void test_config_file_errors(void **state) {
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mylib",
                          .tags = host_tags,
                          .tag_count = 3,
                          .config_file = "/nonexistent/dir/mylib.conf"};
  create_fails(&desc, MR_ERR_CONFIG,
               "config file '/nonexistent/dir/mylib.conf' cannot be opened: No such file or "
               "directory");
  /* Only regular files are read: a FIFO, a directory or a device is
   * refused at once, without waiting for a writer that may never come. A
   * FIFO used to block forever: the alarm, a last resort with a limit only
   * a hang reaches (test_watchdog_seconds), turns that into a failure. */
  char dir[] = "/tmp/mrctx-context-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char expected[256];
  desc.config_file = dir;
  snprintf(expected, sizeof expected, "config file '%s' is not a regular file (it is a directory)",
           dir);
  create_fails(&desc, MR_ERR_CONFIG, expected);
  char fifo[sizeof dir + 16];
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  desc.config_file = fifo;
  snprintf(expected, sizeof expected, "config file '%s' is not a regular file (it is a FIFO)",
           fifo);
  alarm(test_watchdog_seconds(60));
  create_fails(&desc, MR_ERR_CONFIG, expected);
  alarm(0);
  unlink(fifo);
  rmdir(dir);
  desc.config_file = "/dev/null";
  create_fails(&desc, MR_ERR_CONFIG,
               "config file '/dev/null' is not a regular file (it is a character device)");
  /* A link to a regular file is read. */
  char *path = write_file("temp=mark(id=linked)");
  char link[256];
  snprintf(link, sizeof link, "%s.link", path);
  assert_int_equal(symlink(path, link), 0);
  desc.config_file = link;
  mr_context *linked = create(&desc);
  assert_string_equal(describe(linked, T_TEMP), "mark(id=linked)");
  mr_context_destroy(linked);
  unlink(link);
  remove_file(path);
  /* An empty name means no file. */
  desc.config_file = "";
  mr_context *ctx = create(&desc);
  mr_context_destroy(ctx);
}

/* A config file of `size` bytes: one entry, then comment lines. */
static char *write_file_of_size(size_t size) {
  char *text = malloc(size + 1);
  assert_non_null(text);
  const char *entry = "temp=mark(id=big)\n";
  size_t n = strlen(entry);
  memcpy(text, entry, n);
  while (n < size) {
    size_t line = size - n < 80 ? size - n : 80;
    memset(text + n, '#', line);
    text[n + line - 1] = '\n';
    n += line;
  }
  text[size] = '\0';
  char *path = write_file(text);
  free(text);
  return path;
}

static void test_config_file_size_limit(void **state) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = host_tags, .tag_count = 3};
  /* Up to and including 1 MiB is read. */
  size_t sizes[] = {4095, 4096, 4097, ((size_t)1 << 20) - 1, (size_t)1 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char *path = write_file_of_size(sizes[i]);
    desc.config_file = path;
    mr_context *ctx = create(&desc);
    assert_string_equal(describe(ctx, T_TEMP), "mark(id=big)");
    mr_context_destroy(ctx);
    remove_file(path);
  }
  /* One byte more is not. */
  char *path = write_file_of_size(((size_t)1 << 20) + 1);
  desc.config_file = path;
  char expected[256];
  snprintf(expected, sizeof expected, "config file '%s' is larger than 1 MiB (1048576 bytes)",
           path);
  create_fails(&desc, MR_ERR_CONFIG, expected);
  remove_file(path);
}

static void test_desc_validation(void **state) {
  mr_context *ctx = (mr_context *)0x1;
  assert_status(mr_context_create(NULL, &ctx), MR_ERR_INVALID_ARGUMENT);
  assert_null(ctx);
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = host_tags, .tag_count = 3};
  assert_status(mr_context_create(&desc, NULL), MR_ERR_INVALID_ARGUMENT);
  desc.library = NULL;
  create_fails(&desc, MR_ERR_INVALID_ARGUMENT, "mr_context_create: desc.library is missing");
  desc.library = "";
  create_fails(&desc, MR_ERR_INVALID_ARGUMENT, "mr_context_create: desc.library is missing");
  desc.library = "mylib";
  desc.tag_count = 0;
  create_fails(&desc, MR_ERR_INVALID_ARGUMENT,
               "mylib: mr_context_create: the library declares no tags");
  desc.tags = NULL;
  desc.tag_count = 3;
  create_fails(&desc, MR_ERR_INVALID_ARGUMENT, NULL);
  static const mr_tag bad_name[] = {{"temp", "host"}, {"2nd", "host"}};
  desc.tags = bad_name;
  desc.tag_count = 2;
  create_fails(&desc, MR_ERR_INVALID_ARGUMENT,
               "mylib: tag 1's name '2nd' is not valid (letters, digits and '_', not starting "
               "with a digit)");
  static const mr_tag null_name[] = {{NULL, "host"}};
  desc.tags = null_name;
  desc.tag_count = 1;
  create_fails(&desc, MR_ERR_INVALID_ARGUMENT, NULL);
  static const mr_tag dup[] = {{"temp", "host"}, {"x", "host"}, {"temp", "host"}};
  desc.tags = dup;
  desc.tag_count = 3;
  create_fails(&desc, MR_ERR_INVALID_ARGUMENT, "mylib: tags 0 and 2 are both named 'temp'");
  static const mr_tag no_spec[] = {{"temp", NULL}};
  desc.tags = no_spec;
  desc.tag_count = 1;
  create_fails(&desc, MR_ERR_INVALID_ARGUMENT, "mylib: tag 'temp' has no default spec");
}

/* ---- statistics -------------------------------------------------------------------- */

static void test_per_tag_statistics(void **state) {
  static const mr_tag tags[] = {{"temp", "host"}, {"flaky", "faulty(fail_at=2)"}};
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = tags, .tag_count = 2};
  mr_context *ctx = create(&desc);
  mr_resource *temp = ctx_get_mr(ctx, 0), *flaky = ctx_get_mr(ctx, 1);
  void *a, *b, *c;
  assert_ok(mr_allocate(temp, 100, 0, NULL, &a));
  assert_ok(mr_allocate(temp, 200, 0, NULL, &b));
  assert_ok(mr_allocate(temp, 300, 0, NULL, &c));
  assert_ok(mr_deallocate(temp, b, 200, 0, NULL));
  assert_ok(mr_allocate(temp, 0, 0, NULL, &b)); /* size 0 counts for nothing */
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_context_get_stats(ctx, 0, 0, &s));
  assert_int_equal(s.current_bytes, 400);
  assert_int_equal(s.peak_bytes, 600);
  assert_int_equal(s.total_bytes, 600);
  assert_int_equal(s.current_count, 2);
  assert_int_equal(s.peak_count, 3);
  assert_int_equal(s.total_count, 3);
  assert_int_equal(s.failed_count, 0);
  mr_stats all;
  mr_stats_init(&all);
  assert_ok(mr_context_get_stats(ctx, 0, -1, &all));
  assert_memory_equal(&all, &s, sizeof s);

  void *x, *y;
  assert_ok(mr_allocate(flaky, 64, 0, NULL, &x));
  assert_status(mr_allocate(flaky, 64, 0, NULL, &y), MR_ERR_OUT_OF_MEMORY);
  assert_null(y);
  assert_ok(mr_context_get_stats(ctx, 1, 0, &s));
  assert_int_equal(s.current_bytes, 64);
  assert_int_equal(s.total_count, 1);
  assert_int_equal(s.failed_count, 1);

  /* Errors. */
  mr_stats small = {.size = 8};
  assert_status(mr_context_get_stats(ctx, 0, 0, &small), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_context_get_stats(ctx, 0, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_context_get_stats(ctx, 2, 0, &s), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_context_get_stats(ctx, 0, 1, &s), MR_ERR_NO_DEVICE);
  assert_status(mr_context_get_stats(ctx, 0, -2, &s), MR_ERR_NO_DEVICE);
  assert_status(mr_context_get_stats(NULL, 0, 0, &s), MR_ERR_INVALID_ARGUMENT);

  assert_ok(mr_deallocate(temp, a, 100, 0, NULL));
  assert_ok(mr_deallocate(temp, c, 300, 0, NULL));
  assert_ok(mr_deallocate(flaky, x, 64, 0, NULL));
  mr_context_destroy(ctx);
}

/* mr_context_reset_peak: one tag, every tag (-1), the device wildcard,
 * the tag whose spec keeps exact peaks, and the errors. */
static uint64_t peak_of(const mr_context *ctx, int tag) {
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_context_get_stats(ctx, tag, -1, &s));
  return s.peak_bytes;
}

static void test_reset_peak(void **state) {
  static const mr_tag tags[] = {{"a", "host"}, {"b", "cache(host)"}, {"exact", "host"}};
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "peaks",
                          .tags = tags,
                          .tag_count = 3,
                          .overrides = "exact=stats(host, peak=exact)"};
  mr_context *ctx = create(&desc);
  void *p[3], *q[3];
  for (int t = 0; t < 3; t++) {
    mr_resource *mr = ctx_get_mr(ctx, t);
    assert_ok(mr_allocate(mr, 1024, 0, NULL, &p[t]));
    assert_ok(mr_allocate(mr, 3072, 0, NULL, &q[t]));
    assert_ok(mr_deallocate(mr, q[t], 3072, 0, NULL));
    assert_int_equal(peak_of(ctx, t), 4096);
  }
  /* One tag on one device. */
  assert_ok(mr_context_reset_peak(ctx, 0, 0));
  assert_int_equal(peak_of(ctx, 0), 1024);
  assert_int_equal(peak_of(ctx, 1), 4096);
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_context_get_stats(ctx, 0, 0, &s));
  assert_int_equal(s.peak_count, 1);
  assert_int_equal(s.current_bytes, 1024);
  assert_int_equal(s.total_bytes, 4096); /* totals untouched */
  assert_int_equal(s.total_count, 2);
  /* The peak after the reset: the most held at once since. */
  assert_ok(mr_allocate(ctx_get_mr(ctx, 0), 512, 0, NULL, &q[0]));
  assert_ok(mr_deallocate(ctx_get_mr(ctx, 0), q[0], 512, 0, NULL));
  assert_int_equal(peak_of(ctx, 0), 1024 + 512);
  /* Every tag on every device. */
  assert_ok(mr_context_reset_peak(ctx, -1, -1));
  for (int t = 0; t < 3; t++) assert_int_equal(peak_of(ctx, t), 1024);
  /* The exact tag reads the peaks of its spec's stats(...), which the
   * reset set as well. */
  mr_resource *inner = mr_resource_upstream(ctx_get_mr(ctx, 2));
  mr_stats_init(&s);
  assert_ok(mr_stats_resource_get(inner, &s));
  assert_int_equal(s.peak_bytes, 1024);
  assert_ok(mr_allocate(ctx_get_mr(ctx, 2), 256, 0, NULL, &q[2]));
  assert_int_equal(peak_of(ctx, 2), 1280);
  assert_ok(mr_context_reset_peak(ctx, 2, -1));
  assert_int_equal(peak_of(ctx, 2), 1280);
  assert_ok(mr_deallocate(ctx_get_mr(ctx, 2), q[2], 256, 0, NULL));
  assert_int_equal(peak_of(ctx, 2), 1280);
  assert_ok(mr_context_reset_peak(ctx, 2, 0));
  assert_int_equal(peak_of(ctx, 2), 1024);
  /* Errors: nothing is reset. */
  assert_ok(mr_allocate(ctx_get_mr(ctx, 1), 2048, 0, NULL, &q[1]));
  assert_ok(mr_deallocate(ctx_get_mr(ctx, 1), q[1], 2048, 0, NULL));
  assert_status(mr_context_reset_peak(ctx, 3, 0), MR_ERR_INVALID_ARGUMENT);
  expect_message("mr_context_reset_peak: peaks has no tag 3 (it has 3; -1 resets every tag)");
  assert_status(mr_context_reset_peak(ctx, -2, -1), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_context_reset_peak(ctx, 0, -2), MR_ERR_INVALID_ARGUMENT);
  expect_message("mr_context_reset_peak: device -2 is not a device (-1 resets every device)");
  assert_status(mr_context_reset_peak(ctx, 1, 1), MR_ERR_NO_DEVICE);
  expect_message("mr_context_reset_peak: device 1 is not one of peaks's 1 device slot");
  assert_status(mr_context_reset_peak(NULL, 0, 0), MR_ERR_INVALID_ARGUMENT);
  expect_message("mr_context_reset_peak: the context is NULL");
  assert_int_equal(peak_of(ctx, 1), 1024 + 2048);
  for (int t = 0; t < 3; t++) assert_ok(mr_deallocate(ctx_get_mr(ctx, t), p[t], 1024, 0, NULL));
  assert_ok(mr_context_reset_peak(ctx, -1, 0));
  for (int t = 0; t < 3; t++) assert_int_equal(peak_of(ctx, t), 0);
  mr_context_destroy(ctx);
}

static void test_print_stats(void **state) {
  static const mr_tag tags[] = {{"temp", "host"}, {"result_buffers", "host"}};
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = tags, .tag_count = 2};
  mr_context *ctx = create(&desc);
  void *a, *b;
  assert_ok(mr_allocate(ctx_get_mr(ctx, 0), 1024, 0, NULL, &a));
  assert_ok(mr_allocate(ctx_get_mr(ctx, 0), 2048, 0, NULL, &b));
  assert_ok(mr_deallocate(ctx_get_mr(ctx, 0), a, 1024, 0, NULL));
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  assert_non_null(out);
  assert_ok(mr_context_print_stats(ctx, out));
  fclose(out);
  const char *expected =
      "mylib memory by tag\n"
      "tag            device    current       peak      total     live     allocs failures\n"
      "temp                0    2.0 KiB    3.0 KiB    3.0 KiB        1          2        0\n"
      "temp              all    2.0 KiB    3.0 KiB    3.0 KiB        1          2        0\n"
      "result_buffers    all        0 B        0 B        0 B        0          0        0\n";
  if (strcmp(text, expected) != 0) {
    print_error("expected:\n%s\ngot:\n%s\n", expected, text);
    fail();
  }
  free(text);
  assert_status(mr_context_print_stats(ctx, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_context_print_stats(NULL, stdout), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_deallocate(ctx_get_mr(ctx, 0), b, 2048, 0, NULL));
  mr_context_destroy(ctx);
}

/* The library's name is the caller's, any bytes: the table escapes what
 * could drive a terminal (control characters, bytes that are not UTF-8). */
static void test_print_stats_escapes_library(void **state) {
  static const mr_tag tags[] = {{"temp", "host"}};
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "my\x1b[2Jlib\x01\xff\\\xc2\x9b\xc3\xa9",
                          .tags = tags,
                          .tag_count = 1};
  mr_context *ctx = create(&desc);
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  assert_non_null(out);
  assert_ok(mr_context_print_stats(ctx, out));
  fclose(out);
  const char *first = "my\\x1b[2Jlib\\x01\\xff\\\\\\xc2\\x9b\xc3\xa9 memory by tag\n";
  if (strncmp(text, first, strlen(first)) != 0) {
    print_error("expected the first line:\n%s\ngot:\n%s\n", first, text);
    fail();
  }
  free(text);
  mr_context_destroy(ctx);
}

/* The resolved table (mr_context_print_resolved, which mrctx resolve,
 * python -m mrctx resolve and MRCTX_VERBOSE print): every tag and device,
 * the entries ignored for devices that are not there, the tags that
 * cannot allocate and why; the caller's names escaped. */
static void test_print_resolved(void **state) {
  static const mr_tag tags[] = {{"temp", "stats(host)"}, {"result", "host"}, {"gpu", "device"}};
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "my\x1b[2Jlib",
                          .tags = tags,
                          .tag_count = 3,
                          .overrides = "temp = host\nresult@3 = host\n"};
  mr_context *ctx = create(&desc);
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  assert_non_null(out);
  assert_ok(mr_context_print_resolved(ctx, out));
  fclose(out);
  const char *expected = "my\\x1b[2Jlib: 3 tags, 1 device\n"
                         "\n"
                         "tag     device  resource  source\n"
                         "temp    0       host      override text, line 1\n"
                         "result  0       host      default\n"
                         "gpu     0       device    default  (unavailable)\n"
                         "\n"
                         "ignored (no such device):\n"
                         "  result@3=host  (override text, line 2)\n"
                         "\n"
                         "unavailable (allocations fail):\n"
                         "  MR_ERR_NO_DRIVER: my\\x1b[2Jlib:gpu on device 0: device: ";
  if (strncmp(text, expected, strlen(expected)) != 0 || text[length - 1] != '\n' ||
      strchr(text + strlen(expected), '\n') != text + length - 1) {
    print_error("expected to begin:\n%s\ngot:\n%s\n", expected, text);
    fail();
  }
  free(text);
  assert_status(mr_context_print_resolved(ctx, NULL), MR_ERR_INVALID_ARGUMENT);
  expect_message("mr_context_print_resolved: NULL argument");
  assert_status(mr_context_print_resolved(NULL, stdout), MR_ERR_INVALID_ARGUMENT);
  /* A stream that cannot be written: the status says so. */
  FILE *closed = fopen("/dev/null", "r");
  assert_non_null(closed);
  assert_status(mr_context_print_resolved(ctx, closed), MR_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(mr_last_error(), "mr_context_print_resolved: writing failed"));
  fclose(closed);
  mr_context_destroy(ctx);
}

/* ---- contexts side by side --------------------------------------------------------- */

static void test_two_libraries_are_independent(void **state) {
  static const mr_tag a_tags[] = {{"work", "host"}, {"out", "host"}};
  static const mr_tag b_tags[] = {{"work", "host"}, {"cache", "stats(host)"}, {"io", "host"}};
  setenv("LIBA_MEMORY", "work=mark(id=a_work)", 1);
  setenv("LIBB_MEMORY", "cache=mark(id=b_cache)", 1);
  mr_context_desc da = {.size = sizeof(mr_context_desc),
                        .library = "liba",
                        .tags = a_tags,
                        .tag_count = 2,
                        .env_var = "LIBA_MEMORY"};
  mr_context_desc db = {.size = sizeof(mr_context_desc),
                        .library = "libb",
                        .tags = b_tags,
                        .tag_count = 3,
                        .env_var = "LIBB_MEMORY"};
  mr_context *a = create(&da), *b = create(&db);
  assert_string_equal(describe(a, 0), "mark(id=a_work)");
  assert_string_equal(describe(b, 0), "host"); /* liba's variable is not libb's */
  assert_string_equal(describe(b, 1), "mark(id=b_cache)");
  /* A tag libb has and liba lacks is an error only in liba's variable. */
  setenv("LIBA_MEMORY", "io=host", 1);
  create_fails(&da, MR_ERR_CONFIG, NULL);
  assert_error_contains("liba has no tag 'io' (tags: work, out)");

  void *p;
  assert_ok(mr_allocate(ctx_get_mr(a, 0), 4096, 0, NULL, &p));
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_context_get_stats(b, 0, -1, &s));
  assert_int_equal(s.total_count, 0);
  assert_ok(mr_context_get_stats(a, 0, -1, &s));
  assert_int_equal(s.current_bytes, 4096);
  assert_string_equal(mri_resource_owner(ctx_get_mr(a, 0)), "liba:work");
  assert_string_equal(mri_resource_owner(ctx_get_mr(b, 0)), "libb:work");
  assert_ok(mr_deallocate(ctx_get_mr(a, 0), p, 4096, 0, NULL));
  /* Destroying one leaves the other whole. */
  mr_context_destroy(a);
  assert_ok(mr_allocate(ctx_get_mr(b, 2), 10, 0, NULL, &p));
  assert_ok(mr_deallocate(ctx_get_mr(b, 2), p, 10, 0, NULL));
  /* Two contexts of one library are two sets of resources. */
  mr_context *b2 = create(&db);
  assert_ptr_not_equal(ctx_get_mr(b2, 1), ctx_get_mr(b, 1));
  mr_context_destroy(b2);
  mr_context_destroy(b);
  unsetenv("LIBA_MEMORY");
  unsetenv("LIBB_MEMORY");
}

/* ---- no driver --------------------------------------------------------------------- */

enum { D_HOST, D_DEVICE, D_PINNED, D_MANAGED, D_POOL, D_SHARED };
static const mr_tag device_tags[] = {
    [D_HOST] = {"host_buf", "host"},
    [D_DEVICE] = {"temp", "stats(device)"},
    [D_PINNED] = {"staging", "pinned"},
    [D_MANAGED] = {"result", "managed"},
    [D_POOL] = {"scratch", "pool(kind=device, max=50%)"},
    [D_SHARED] = {"alias", "@temp"},
};

static void test_without_a_driver(void **state) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = device_tags, .tag_count = 6};
  mr_context *ctx = create(&desc);
  assert_int_equal(mr_context_device_count(ctx), 1);
  void *p = NULL;
  assert_ok(mr_allocate(ctx_get_mr(ctx, D_HOST), 64, 0, NULL, &p));
  assert_ok(mr_deallocate(ctx_get_mr(ctx, D_HOST), p, 64, 0, NULL));
  for (int t = D_DEVICE; t <= D_SHARED; t++) {
    mr_resource *mr = ctx_get_mr(ctx, t);
    assert_non_null(mr);
    p = (void *)0x1;
    assert_status(mr_allocate(mr, 1024, 0, NULL, &p), MR_ERR_NO_DRIVER);
    assert_null(p);
    assert_error_says_no_driver();
    assert_error_contains("(allocating 1024 bytes)");
    assert_ok(mr_deallocate(mr, NULL, 1024, 0, NULL));
    mr_spec_source s = {.size = sizeof s};
    assert_ok(mr_context_get_source(ctx, t, 0, &s));
    assert_int_equal(s.status, MR_ERR_NO_DRIVER);
  }
  assert_status(mr_allocate(ctx_get_mr(ctx, D_DEVICE), 1, 0, NULL, &p), MR_ERR_NO_DRIVER);
  assert_error_contains("mylib:temp on device 0: device: ");
  assert_error_says_no_driver();
  /* The stand-in keeps what the spec describes and the kind of memory. */
  assert_string_equal(describe(ctx, D_DEVICE), "stats(device)");
  assert_string_equal(describe(ctx, D_PINNED), "pinned");
  assert_string_equal(describe(ctx, D_POOL), "pool(kind=device, max=50%)");
  mr_resource_props props = {.size = sizeof props};
  assert_ok(mr_resource_get_props(ctx_get_mr(ctx, D_DEVICE), &props));
  assert_int_equal(props.kind, MR_MEMORY_DEVICE);
  assert_ok(mr_resource_get_props(ctx_get_mr(ctx, D_PINNED), &props));
  assert_int_equal(props.kind, MR_MEMORY_PINNED);
  assert_true(props.host_accessible);
  assert_ok(mr_resource_get_props(ctx_get_mr(ctx, D_MANAGED), &props));
  assert_int_equal(props.kind, MR_MEMORY_MANAGED);
  /* @temp is temp's stand-in, the same instance. */
  assert_ptr_equal(mr_resource_upstream(ctx_get_mr(ctx, D_SHARED)),
                   mr_resource_upstream(ctx_get_mr(ctx, D_DEVICE)));
  mr_spec_source s = {.size = sizeof s};
  assert_ok(mr_context_get_source(ctx, D_PINNED, 0, &s));
  assert_non_null(strstr(s.reason, "mylib:staging on device 0: pinned: "));
  mr_stats st;
  mr_stats_init(&st);
  assert_ok(mr_context_get_stats(ctx, D_DEVICE, 0, &st));
  assert_int_equal(st.failed_count, 2);
  assert_int_equal(st.total_count, 0);
  mr_context_destroy(ctx);

  /* Mistakes in the text still fail creation, driver or not. */
  desc.overrides = "temp=device(chunk=1)";
  create_fails(&desc, MR_ERR_CONFIG, NULL);
  assert_error_contains("override text, column 13: device: unknown parameter 'chunk'");
  desc.overrides = "temp=pool(kind=gpu)";
  create_fails(&desc, MR_ERR_CONFIG, NULL);
  assert_error_contains("pool: kind=gpu: expected one of device, pinned, managed");
}

/* ---- many tags ------------------------------------------------------------------------ */

/* Checking and looking up tag names is not quadratic: 100,000 tags, with
 * override text naming a tenth of them, make a context in well under a
 * second (17 s when every name was compared with every other). No timing
 * is asserted; a quadratic regression shows as a test that times out. */
static void test_many_tags(void **state) {
  enum { TAGS = 100000 };
  mr_tag *tags = calloc(TAGS, sizeof *tags);
  char(*names)[16] = calloc(TAGS, sizeof *names);
  assert_non_null(tags);
  assert_non_null(names);
  for (int t = 0; t < TAGS; t++) {
    snprintf(names[t], sizeof names[t], "t%d", (t * 7919) % TAGS); /* not in order */
    tags[t] = (mr_tag){names[t], "host"};
  }
  /* Every tenth tag shares the one before it; the last one is overridden. */
  size_t cap = (size_t)TAGS / 10 * 24 + 64, n = 0;
  char *overrides = malloc(cap);
  assert_non_null(overrides);
  for (int t = 10; t < TAGS; t += 10)
    n += (size_t)snprintf(overrides + n, cap - n, "%s=@%s\n", names[t], names[t - 1]);
  snprintf(overrides + n, cap - n, "%s=stats(host)", names[TAGS - 1]);
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "many",
                          .tags = tags,
                          .tag_count = TAGS,
                          .overrides = overrides};
  mr_context *ctx = create(&desc);
  assert_int_equal(mr_context_tag_count(ctx), TAGS);
  assert_string_equal(describe(ctx, 0), "host");
  assert_string_equal(describe(ctx, TAGS - 1), "stats(host)");
  assert_ptr_equal(mr_resource_upstream(mr_context_get_mr_on(ctx, 10, 0)),
                   mr_resource_upstream(mr_context_get_mr_on(ctx, 9, 0)));
  mr_spec_source source = {.size = sizeof source};
  assert_ok(mr_context_get_source(ctx, 20, 0, &source));
  assert_int_equal(source.origin, MR_SPEC_OVERRIDE);
  assert_int_equal(source.line, 2);
  assert_ok(mr_context_get_source(ctx, 21, 0, &source));
  assert_int_equal(source.origin, MR_SPEC_DEFAULT);
  mr_context_destroy(ctx);

  /* A duplicate among them is still found, and named. */
  tags[TAGS - 1].name = names[TAGS / 2];
  char expected[128];
  snprintf(expected, sizeof expected, "many: tags %d and %d are both named '%s'", TAGS / 2,
           TAGS - 1, names[TAGS / 2]);
  desc.overrides = NULL;
  create_fails(&desc, MR_ERR_INVALID_ARGUMENT, expected);
  /* An unknown tag in the overrides too. */
  tags[TAGS - 1].name = names[TAGS - 1];
  desc.overrides = "t100000=host";
  create_fails(&desc, MR_ERR_CONFIG, NULL);
  assert_error_contains("override text, column 1: many has no tag 't100000' (tags: ");
  free(overrides);
  free(names);
  free(tags);
}

/* A long chain of @tag references (t0=@t1, t1=@t2, ...) is refused with a
 * message; it used to recurse once per tag until the stack overflowed
 * (a segmentation fault at about 20,000 tags). */
static void test_long_reference_chain(void **state) {
  enum { TAGS = 100000 };
  mr_tag *tags = calloc(TAGS, sizeof *tags);
  char(*names)[16] = calloc(TAGS, sizeof *names);
  char(*specs)[16] = calloc(TAGS, sizeof *specs);
  assert_non_null(tags);
  assert_non_null(names);
  assert_non_null(specs);
  for (int t = 0; t < TAGS; t++) {
    snprintf(names[t], sizeof names[t], "t%d", t);
    snprintf(specs[t], sizeof specs[t], t + 1 < TAGS ? "@t%d" : "host", t + 1);
    tags[t] = (mr_tag){names[t], specs[t]};
  }
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "chain", .tags = tags, .tag_count = TAGS};
  create_fails(&desc, MR_ERR_CONFIG,
               "default spec of chain tag 't31', column 1: tags refer on to each other more "
               "than 32 deep: t0 -> t1 -> t2 -> t3 -> t4 -> t5 -> t6 -> t7 -> t8 -> t9 -> t10 "
               "-> t11 -> t12 -> t13 -> t14 -> t15 -> t16 -> t17 -> t18 -> t19 -> t20 -> t21 -> "
               "t22 -> t23 -> t24 -> t25 -> t26 -> t27 -> t28 -> t29 -> t30 -> t31 -> t32\n"
               "  @t32\n"
               "  ^");
  /* 32 tags deep is the most. */
  desc.tags = &tags[TAGS - 32];
  desc.tag_count = 32;
  mr_context *ctx = create(&desc);
  assert_string_equal(describe(ctx, 0), "host");
  mr_context_destroy(ctx);
  free(specs);
  free(names);
  free(tags);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_tags),
      cmocka_unit_test(test_invalid_lookups),
      cmocka_unit_test(test_precedence_across_sources),
      cmocka_unit_test(test_precedence_within_a_source),
      cmocka_unit_test(test_empty_sources),
      cmocka_unit_test(test_entries_for_missing_devices_are_ignored),
      cmocka_unit_test(test_tag_references_share_instances),
      cmocka_unit_test(test_cycles),
      cmocka_unit_test(test_unknown_tags),
      cmocka_unit_test(test_errors_name_their_source),
      cmocka_unit_test(test_config_file_bom),
      cmocka_unit_test(test_config_file_errors),
      cmocka_unit_test(test_config_file_size_limit),
      cmocka_unit_test(test_desc_validation),
      cmocka_unit_test(test_per_tag_statistics),
      cmocka_unit_test(test_reset_peak),
      cmocka_unit_test(test_print_stats),
      cmocka_unit_test(test_print_stats_escapes_library),
      cmocka_unit_test(test_print_resolved),
      cmocka_unit_test(test_two_libraries_are_independent),
      cmocka_unit_test(test_without_a_driver),
      cmocka_unit_test(test_many_tags),
      cmocka_unit_test(test_long_reference_chain),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
