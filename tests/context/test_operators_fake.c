/*
 * test_operators_fake.c (fake): the operator's variables, each in a child
 * process (operators_child.c) over two fake devices:
 *  - MRCTX_VERBOSE=1 prints each context's resolved table at creation, the
 *    one mr_context_print_resolved prints, with the entries ignored for
 *    devices that do not exist;
 *  - MRCTX_STATS_AT_EXIT=stderr|PATH writes every live context's per-tag
 *    table (or, for a PATH ending in .json, a snapshot) when the process
 *    exits normally, even after the driver shut down, or once, earlier,
 *    when the program calls mr_write_stats_at_exit; contexts destroyed
 *    before are in it too, marked, with their final figures, and a
 *    thousand of them take the room of 65.
 * Usage: test_operators_fake CHILD
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "context/snapshot_internal.h"
#include "test_util.h"

static const char *child_path;
static char dir[] = "/tmp/mrctx-operators-XXXXXX";

static char *read_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return NULL;
  char *text = NULL;
  size_t cap = 0;
  ssize_t n = getdelim(&text, &cap, '\0', f);
  fclose(f);
  if (n < 0) {
    free(text);
    return strdup("");
  }
  return text;
}

/* Run the child with `vars` ("NAME=VALUE" or "NAME" to unset, NULL-ended)
 * and MODE; its stderr, whole (caller frees). The child must exit 0. */
static char *run_child(const char *mode, const char *const *vars) {
  char err_path[128];
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(99);
    unsetenv("MRCTX_VERBOSE");
    unsetenv("MRCTX_STATS_AT_EXIT");
    setenv("FAKECUDA_DEVICES", "2", 1);
    setenv("OPSLIB_MEMORY", "temp=arena(device, chunk=4MiB); temp@5=device", 1);
    for (const char *const *v = vars; *v != NULL; v++) {
      const char *eq = strchr(*v, '=');
      if (eq == NULL) {
        unsetenv(*v);
        continue;
      }
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)(eq - *v), *v);
      setenv(name, eq + 1, 1);
    }
    execl(child_path, child_path, mode, (char *)NULL);
    _exit(98);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  char *text = read_file(err_path);
  assert_non_null(text);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("the child ended with status 0x%x; its stderr:\n%s", status, text);
  assert_non_null(strstr(text, "operators_child: done\n"));
  return text;
}

static void assert_contains(const char *text, const char *needle) {
  if (strstr(text, needle) == NULL) fail_msg("\"%s\" not found in:\n%s", needle, text);
}

static void assert_lacks(const char *text, const char *needle) {
  if (strstr(text, needle) != NULL) fail_msg("\"%s\" found in:\n%s", needle, text);
}

/* MRCTX_VERBOSE's block: the resolved table over two fake devices. */
static const char verbose_table[] =
    "mrctx: a context was created (MRCTX_VERBOSE):\n"
    "  opslib: 3 tags, 2 devices\n"
    "\n"
    "  tag      device  resource                          source\n"
    "  temp     0       retry(arena(device, chunk=4MiB))  env OPSLIB_MEMORY, line 1\n"
    "  temp     1       retry(arena(device, chunk=4MiB))  env OPSLIB_MEMORY, line 1\n"
    "  staging  0       retry(pinned)                     default\n"
    "  staging  1       retry(pinned)                     default\n"
    "  kept     0       track(host, stacks=4)             default\n"
    "  kept     1       track(host, stacks=4)             default\n"
    "\n"
    "  ignored (no such device):\n"
    "    temp@5=device  (env OPSLIB_MEMORY, line 1)\n";

/* `text` without two spaces at the start of each line (caller frees). */
static char *unindented(const char *text) {
  char *out = strdup(text);
  assert_non_null(out);
  char *w = out;
  for (const char *r = text; *r != '\0';) {
    if ((r == text || r[-1] == '\n') && strncmp(r, "  ", 2) == 0) r += 2;
    *w++ = *r++;
  }
  *w = '\0';
  return out;
}

static void test_verbose(void **state) {
  const char *const vars[] = {"MRCTX_VERBOSE=1", NULL};
  char *text = run_child("plain", vars);
  /* The table comes before anything the program does: the text begins
   * with it. */
  if (strncmp(text, verbose_table, strlen(verbose_table)) != 0)
    fail_msg("wanted to begin:\n%s\ngot:\n%s", verbose_table, text);
  free(text);

  const char *const off[] = {"MRCTX_VERBOSE=0", NULL};
  text = run_child("plain", off);
  assert_lacks(text, "mrctx:");
  free(text);
  const char *const unset[] = {NULL};
  text = run_child("plain", unset);
  assert_string_equal(text, "operators_child: done\n");
  free(text);
}

/* MRCTX_VERBOSE prints the table mr_context_print_resolved prints (the one
 * `mrctx resolve` and python -m mrctx resolve print), indented under its
 * line. */
static void test_verbose_is_print_resolved(void **state) {
  const char *const vars[] = {"MRCTX_VERBOSE=1", NULL};
  char *text = run_child("resolved", vars);
  static const char mark[] = "operators_child: mr_context_print_resolved\n";
  static const char heading[] = "mrctx: a context was created (MRCTX_VERBOSE):\n";
  char *mark_at = strstr(text, mark);
  assert_non_null(mark_at);
  char *printed = mark_at + strlen(mark);
  char *end = strstr(printed, "operators_child: done\n");
  assert_non_null(end);
  *end = '\0';
  *mark_at = '\0';
  assert_true(strncmp(text, heading, strlen(heading)) == 0);
  char *verbose = unindented(text + strlen(heading));
  assert_string_equal(verbose, printed);
  assert_true(strstr(printed, "opslib: 3 tags, 2 devices\n") == printed);
  free(verbose);
  free(text);
}

static void test_stats_at_exit_stderr(void **state) {
  /* After the driver shut down (the child's own atexit handler runs
   * first): counters only, no driver call, the table whole. */
  const char *const vars[] = {"MRCTX_STATS_AT_EXIT=stderr", NULL};
  char *text = run_child("deinit", vars);
  char *at = strstr(text, "operators_child: done\n");
  assert_non_null(at);
  at += strlen("operators_child: done\n");
  char heading[128];
  snprintf(heading, sizeof heading, "mrctx: memory in use at exit of pid ");
  assert_true(strncmp(at, heading, strlen(heading)) == 0);
  assert_contains(at, ": 1 live context\nopslib memory by tag\n");
  assert_contains(at,
                  "temp         0    1.0 MiB    1.0 MiB    1.0 MiB        1          1        0\n");
  assert_contains(at,
                  "temp         1    2.0 MiB    2.0 MiB    2.0 MiB        1          1        0\n");
  assert_contains(at, "temp       all    3.0 MiB");
  assert_contains(at, "kept         0    2.9 KiB");
  assert_lacks(text, "DEINITIALIZED");
  free(text);
}

static size_t count_of(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle)) n++;
  return n;
}

static void test_stats_at_exit_written_early(void **state) {
  /* Called before the context exists it writes nothing; called before
   * main returns it writes the report, once, and exit adds nothing. */
  const char *const vars[] = {"MRCTX_STATS_AT_EXIT=stderr", NULL};
  char *text = run_child("early", vars);
  char *done = strstr(text, "operators_child: done\n");
  char *report = strstr(text, "mrctx: memory in use at exit of pid ");
  char *written = strstr(text, "operators_child: written\n");
  assert_non_null(report);
  assert_non_null(written);
  assert_true(done < report && report < written);
  assert_int_equal(count_of(text, "mrctx: memory in use at exit"), 1);
  assert_contains(report, ": 1 live context\nopslib memory by tag\n");
  assert_contains(report,
                  "temp         1    2.0 MiB    2.0 MiB    2.0 MiB        1          1        0\n");
  free(text);
  /* Without the variable it writes nothing at all. */
  const char *const unset[] = {NULL};
  text = run_child("early", unset);
  assert_string_equal(text, "operators_child: done\noperators_child: written\n");
  free(text);
}

/* The one file MRCTX_STATS_AT_EXIT=DIR/stats-%p.json wrote (the child's
 * pid is in its name), read as a snapshot, and removed. */
static mr_snapshot *read_json_report(void) {
  char command[256], path[160];
  snprintf(command, sizeof command, "ls %s/stats-*.json", dir);
  FILE *ls = popen(command, "r");
  assert_non_null(ls);
  assert_non_null(fgets(path, sizeof path, ls));
  pclose(ls);
  path[strcspn(path, "\n")] = '\0';
  char *json = read_file(path);
  assert_non_null(json);
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_read(json, strlen(json), &snap));
  free(json);
  assert_int_equal(unlink(path), 0);
  return snap;
}

static void test_stats_at_exit_destroyed(void **state) {
  /* A context created, used and destroyed before exit: the report lists
   * it after the live one, marked, with its peak and its failure. */
  const char *const vars[] = {"MRCTX_STATS_AT_EXIT=stderr", NULL};
  char *text = run_child("destroyed", vars);
  assert_contains(text, ": 1 live context, 1 destroyed\nopslib memory by tag\n");
  char *gone = strstr(text, "gonelib memory by tag (destroyed)\n");
  assert_non_null(gone);
  assert_true(gone > strstr(text, "opslib memory by tag\n"));
  assert_contains(gone,
                  "temp       1        0 B    5.0 MiB    5.0 MiB        0          2        0\n");
  assert_contains(gone,
                  "small      0        0 B        0 B        0 B        0          0        1\n");
  free(text);

  /* In the snapshot: after the live context, "destroyed": 1. */
  char template[200];
  snprintf(template, sizeof template, "MRCTX_STATS_AT_EXIT=%s/stats-%%p.json", dir);
  const char *const json_vars[] = {template, NULL};
  free(run_child("destroyed", json_vars));
  mr_snapshot *snap = read_json_report();
  assert_int_equal(snap->context_count, 2);
  assert_string_equal(snap->contexts[0].library, "opslib");
  assert_int_equal(snap->contexts[0].destroyed, 0);
  const mri_snap_context *c = &snap->contexts[1];
  assert_string_equal(c->library, "gonelib");
  assert_int_equal(c->destroyed, 1);
  assert_int_equal(c->id, 1); /* created first */
  assert_string_equal(c->tags[0].name, "temp");
  assert_int_equal(c->tags[0].slots[1].stats.peak_bytes, 5 << 20);
  assert_int_equal(c->tags[0].slots[1].stats.current_bytes, 0);
  assert_int_equal(c->tags[1].slots[0].stats.failed_count, 1);
  /* The text form of the file marks it too. */
  char *shown = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&shown, &length);
  assert_ok(mr_snapshot_write_text(snap, out));
  fclose(out);
  assert_contains(shown, "gonelib:temp (destroyed)       1        0 B    5.0 MiB");
  free(shown);
  mr_snapshot_destroy(snap);
}

static void test_stats_at_exit_destroyed_bounded(void **state) {
  /* A thousand contexts destroyed one after another: the last 64 kept
   * whole, the 936 before merged into one record of their library. */
  char template[200];
  snprintf(template, sizeof template, "MRCTX_STATS_AT_EXIT=%s/stats-%%p.json", dir);
  const char *const json_vars[] = {template, NULL};
  free(run_child("loop", json_vars));
  mr_snapshot *snap = read_json_report();
  assert_int_equal(snap->context_count, 1 + 1 + 64);
  assert_int_equal(snap->destroyed_not_kept, 0);
  uint64_t destroyed = 0;
  for (size_t i = 0; i < snap->context_count; i++) destroyed += snap->contexts[i].destroyed;
  assert_int_equal(destroyed, 1000);
  const mri_snap_context *merged = &snap->contexts[1];
  assert_int_equal(merged->destroyed, 936);
  assert_int_equal(merged->id, 1);
  const mr_stats *temp = &merged->tags[0].slots[1].stats;
  assert_int_equal(temp->peak_bytes, 5 << 20); /* the largest of any one */
  assert_int_equal(temp->total_count, 2 * 936);
  assert_int_equal(temp->total_bytes, (uint64_t)936 * (5 << 20));
  assert_int_equal(merged->tags[1].slots[0].stats.failed_count, 936);
  assert_int_equal(snap->contexts[2].destroyed, 1);
  assert_int_equal(snap->contexts[2].id, 937);
  mr_snapshot_destroy(snap);

  const char *const vars[] = {"MRCTX_STATS_AT_EXIT=stderr", NULL};
  char *text = run_child("loop", vars);
  assert_contains(text, ": 1 live context, 1000 destroyed\n");
  assert_contains(text, "gonelib memory by tag (936 contexts destroyed, merged: peaks are the "
                        "largest of any one)\n");
  assert_int_equal(count_of(text, "gonelib memory by tag (destroyed)\n"), 64);
  free(text);
}

static void test_stats_at_exit_files(void **state) {
  /* A .json path: a snapshot (without pools: the driver is not asked). */
  char template[200], path[160];
  snprintf(template, sizeof template, "MRCTX_STATS_AT_EXIT=%s/stats-%%p.json", dir);
  const char *const json_vars[] = {template, NULL};
  char *text = run_child("deinit", json_vars);
  assert_lacks(text, "mrctx:");
  free(text);
  /* The child's pid is in the name: find the one file. */
  char command[256];
  snprintf(command, sizeof command, "ls %s/stats-*.json", dir);
  FILE *ls = popen(command, "r");
  assert_non_null(ls);
  assert_non_null(fgets(path, sizeof path, ls));
  pclose(ls);
  path[strcspn(path, "\n")] = '\0';
  char *json = read_file(path);
  assert_non_null(json);
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_read(json, strlen(json), &snap));
  assert_non_null(strstr(json, "\"trigger\": \"request\""));
  assert_non_null(strstr(json, "\"frames\": [\"operators_child_site+0x"));
  assert_int_equal(snap->context_count, 1);
  assert_string_equal(snap->contexts[0].library, "opslib");
  assert_int_equal(snap->contexts[0].tags[0].slots[1].stats.current_bytes, 2 << 20);
  assert_int_equal(snap->pool_count, 0);
  mr_snapshot_destroy(snap);
  free(json);
  assert_int_equal(unlink(path), 0);

  /* Any other path: the tables, as on stderr. */
  snprintf(path, sizeof path, "%s/stats.txt", dir);
  snprintf(template, sizeof template, "MRCTX_STATS_AT_EXIT=%s", path);
  const char *const text_vars[] = {template, NULL};
  text = run_child("plain", text_vars);
  assert_lacks(text, "mrctx:");
  free(text);
  text = read_file(path);
  assert_non_null(text);
  assert_contains(text, "opslib memory by tag\n");
  assert_contains(text, "staging      0    4.0 KiB");
  free(text);
  assert_int_equal(unlink(path), 0);

  /* A symbolic link at the path is left alone, and said so. */
  char target[160];
  snprintf(target, sizeof target, "%s/elsewhere", dir);
  assert_int_equal(symlink(target, path), 0);
  text = run_child("plain", text_vars);
  char expected[400];
  snprintf(expected, sizeof expected,
           "mrctx: cannot write the at-exit statistics (MRCTX_STATS_AT_EXIT) to '%s': it is a "
           "symbolic link to nothing",
           path);
  assert_contains(text, expected);
  free(text);
  assert_int_equal(access(target, F_OK), -1);
  assert_int_equal(unlink(path), 0);

  /* A FIFO with a reader (a collector's pipe) gets the report and stays. */
  assert_int_equal(mkfifo(path, 0600), 0);
  test_fifo_reader reader;
  test_fifo_reader_start(&reader, path);
  text = run_child("plain", text_vars);
  assert_lacks(text, "mrctx:");
  free(text);
  text = test_fifo_reader_finish(&reader, NULL);
  assert_contains(text, "opslib memory by tag\n");
  free(text);
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  assert_int_equal(unlink(path), 0);

  /* A character device is written to and stays one (MRCTX_STATS_AT_EXIT=
   * /dev/null in a process run as root must not replace /dev/null). */
  if (test_make_null_device(path)) {
    text = run_child("plain", text_vars);
    assert_lacks(text, "mrctx:");
    free(text);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(unlink(path), 0);
  }
}

static int teardown(void **state) {
  char err_path[128];
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
  unlink(err_path);
  return rmdir(dir);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_operators_fake CHILD\n");
    return 2;
  }
  child_path = argv[1];
  if (mkdtemp(dir) == NULL) return 2;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_verbose),
      cmocka_unit_test(test_verbose_is_print_resolved),
      cmocka_unit_test(test_stats_at_exit_stderr),
      cmocka_unit_test(test_stats_at_exit_written_early),
      cmocka_unit_test(test_stats_at_exit_destroyed),
      cmocka_unit_test(test_stats_at_exit_destroyed_bounded),
      cmocka_unit_test(test_stats_at_exit_files),
  };
  return cmocka_run_group_tests(tests, NULL, teardown);
}
