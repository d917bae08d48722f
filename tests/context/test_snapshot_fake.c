/*
 * test_snapshot_fake.c (fake): snapshots and the out-of-memory dump with
 * device tags over the fake driver. Two libraries share device 0, whose
 * memory is cut to 64 MiB; one of them runs out (after the retry every
 * device chain has): the dump names both libraries and tags with their
 * live bytes and the driver pools' use, or is not written when
 * MRCTX_OOM_SNAPSHOT is unset, or cannot be written, and the allocation's
 * own status and message stand either way.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "context/context_internal.h"
#include "context/snapshot_internal.h"
#include "fake_test.h"

#define MiB ((size_t)1 << 20)

enum { TEMP, WORK, OWN };
static const mr_tag solver_tags[] = {
    [TEMP] = {"temp", "device"},
    [WORK] = {"work", "track(device)"},
    [OWN] = {"own", "pool(kind=device)"},
};
enum { FRAMES };
static const mr_tag codec_tags[] = {[FRAMES] = {"frames", "cache(device)"}};

typedef struct scene {
  mr_context *solver, *codec;
  void *temp, *work, *frames;
} scene;

static mr_context *create(const char *library, const mr_tag *tags, size_t count) {
  mr_context_desc desc = {
      .size = sizeof desc, .library = library, .tags = tags, .tag_count = count};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  return ctx;
}

static void *alloc(mr_context *ctx, int tag, size_t bytes) {
  void *p = NULL;
  assert_ok(mr_allocate(mr_context_get_mr_on(ctx, tag, 0), bytes, 0, NULL, &p));
  return p;
}

/* solver holds 24 + 8 MiB, codec 16 MiB of device 0's 64. */
static scene set_up(void) {
  assert_int_equal(fake_cuda_set_total_memory(0, 64 * MiB), CUDA_SUCCESS);
  scene s = {.solver = create("solver", solver_tags, 3), .codec = create("codec", codec_tags, 1)};
  s.temp = alloc(s.solver, TEMP, 24 * MiB);
  s.work = alloc(s.solver, WORK, 8 * MiB);
  s.frames = alloc(s.codec, FRAMES, 16 * MiB);
  return s;
}

static void tear_down(scene *s) {
  assert_ok(mr_deallocate(mr_context_get_mr_on(s->solver, TEMP, 0), s->temp, 24 * MiB, 0, NULL));
  assert_ok(mr_deallocate(mr_context_get_mr_on(s->solver, WORK, 0), s->work, 8 * MiB, 0, NULL));
  assert_ok(mr_deallocate(mr_context_get_mr_on(s->codec, FRAMES, 0), s->frames, 16 * MiB, 0, NULL));
  mr_context_destroy(s->solver);
  mr_context_destroy(s->codec);
}

/* 32 MiB more for solver's temp: past the device, after retry. */
static void run_out(const scene *s) {
  void *p = (void *)0x1;
  assert_status(mr_allocate(mr_context_get_mr_on(s->solver, TEMP, 0), 32 * MiB, 0, NULL, &p),
                MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("retry(device): still out of memory for 33554432 bytes");
  assert_error_contains("CUDA_ERROR_OUT_OF_MEMORY");
}

static const mri_snap_slot *find_slot(const mr_snapshot *snap, const char *library, const char *tag,
                                      int device) {
  for (size_t c = 0; c < snap->context_count; c++) {
    if (strcmp(snap->contexts[c].library, library) != 0) continue;
    for (size_t t = 0; t < snap->contexts[c].tag_count; t++)
      if (strcmp(snap->contexts[c].tags[t].name, tag) == 0)
        return &snap->contexts[c].tags[t].slots[device];
  }
  fail_msg("no %s:%s in the snapshot", library, tag);
  return NULL;
}

static const mri_snap_pool *find_pool(const mr_snapshot *snap, const char *which, int device) {
  for (size_t i = 0; i < snap->pool_count; i++)
    if (strcmp(snap->pools[i].which, which) == 0 && snap->pools[i].info.device == device)
      return &snap->pools[i];
  return NULL;
}

static mr_snapshot *read_file(const char *path) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char *text = NULL;
  size_t cap = 0;
  ssize_t n = getdelim(&text, &cap, '\0', f);
  fclose(f);
  assert_true(n > 0);
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_read(text, (size_t)n, &snap));
  free(text);
  return snap;
}

static void test_dump_names_both_libraries(void **state) {
  char path[] = "/tmp/mrctx-oom-fake-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(setenv("MRCTX_OOM_SNAPSHOT", path, 1), 0);
  mri_oom_forget_env();
  scene s = set_up();
  run_out(&s);

  mr_snapshot *snap = read_file(path);
  unlink(path);
  assert_true(snap->has_oom);
  assert_string_equal(snap->oom.library, "solver");
  assert_string_equal(snap->oom.tag, "temp");
  assert_int_equal(snap->oom.device, 0);
  assert_int_equal(snap->oom.bytes, 32 * MiB);
  assert_non_null(strstr(snap->oom.message, "CUDA_ERROR_OUT_OF_MEMORY"));
  const mri_snap_slot *temp = find_slot(snap, "solver", "temp", 0);
  assert_int_equal(temp->stats.current_bytes, 24 * MiB);
  assert_int_equal(temp->stats.failed_count, 1);
  assert_string_equal(temp->spec, "retry(device)");
  const mri_snap_slot *work = find_slot(snap, "solver", "work", 0);
  assert_int_equal(work->stats.current_bytes, 8 * MiB);
  assert_true(work->has_track);
  assert_int_equal(work->blocks[0].bytes, 8 * MiB);
  const mri_snap_slot *frames = find_slot(snap, "codec", "frames", 0);
  assert_int_equal(frames->stats.current_bytes, 16 * MiB);
  assert_true(frames->has_cache);
  assert_int_equal(frames->cache.misses, 1);
  assert_int_equal(find_slot(snap, "codec", "frames", 1)->stats.total_count, 0);
  /* The driver's view: every device's current pool, pinned, managed. */
  const mri_snap_pool *pool = find_pool(snap, "device_current", 0);
  assert_non_null(pool);
  assert_true(pool->info.is_default && pool->info.is_current);
  assert_int_equal(pool->info.used_bytes, 48 * MiB);
  for (int d = 1; d < fake_cuda_device_count(); d++)
    assert_non_null(find_pool(snap, "device_current", d));
  assert_non_null(find_pool(snap, "pinned_default", -1));
  assert_non_null(find_pool(snap, "managed_default", -1));
  /* solver's own pool(...) on every device, once each. */
  size_t owned = 0;
  for (size_t i = 0; i < snap->pool_count; i++) {
    if (strcmp(snap->pools[i].which, "owned") != 0) continue;
    assert_string_equal(snap->pools[i].owner, "solver:own");
    owned++;
  }
  assert_int_equal(owned, (size_t)fake_cuda_device_count());

  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  assert_ok(mr_snapshot_write_text(snap, out));
  fclose(out);
  assert_non_null(strstr(text, "out of memory: solver:temp on device 0 asked for 32.0 MiB"));
  assert_non_null(strstr(text, "solver:temp"));
  assert_non_null(strstr(text, "codec:frames"));
  assert_non_null(strstr(text, "device 0"));
  /* Most held first. */
  assert_true(strstr(text, "solver:temp ") < strstr(text, "codec:frames "));
  assert_true(strstr(text, "codec:frames ") < strstr(text, "solver:work "));
  free(text);
  mr_snapshot_destroy(snap);
  tear_down(&s);
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();
}

static void note_path(void *user, const mr_oom_event *event) {
  int *calls = user;
  (*calls)++;
  if (event->snapshot_path != NULL) abort();
}

/* MRCTX_OOM_SNAPSHOT unset: the observer hears of it, no file is written. */
static void test_no_dump_unless_asked(void **state) {
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();
  int calls = 0;
  mr_set_oom_observer(note_path, &calls);
  scene s = set_up();
  run_out(&s);
  assert_int_equal(calls, 1);
  mr_set_oom_observer(NULL, NULL);
  tear_down(&s);
}

static void test_unwritable_dump(void **state) {
  assert_int_equal(setenv("MRCTX_OOM_SNAPSHOT", "/proc/mrctx-cannot-be-here-%p.json", 1), 0);
  mri_oom_forget_env();
  scene s = set_up();
  fflush(stderr);
  char err_path[] = "/tmp/mrctx-oom-fake-stderr-XXXXXX";
  int err_fd = mkstemp(err_path);
  int saved = dup(2);
  assert_int_equal(dup2(err_fd, 2), 2);
  run_out(&s); /* the status and message are the allocation's own */
  fflush(stderr);
  assert_int_equal(dup2(saved, 2), 2);
  close(saved);
  close(err_fd);
  FILE *f = fopen(err_path, "r");
  char said[512] = "";
  assert_non_null(fgets(said, sizeof said, f));
  fclose(f);
  unlink(err_path);
  char expected[160];
  snprintf(
      expected, sizeof expected,
      "mrctx: cannot write the out-of-memory snapshot to '/proc/mrctx-cannot-be-here-%d.json': ",
      (int)getpid());
  assert_non_null(strstr(said, expected));
  tear_down(&s);
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();
}

/* run_out, with what the library says on stderr in `said`. */
static void run_out_capturing(const scene *s, char *said, size_t cap) {
  fflush(stderr);
  char err_path[] = "/tmp/mrctx-oom-fake-stderr-XXXXXX";
  int err_fd = mkstemp(err_path);
  assert_true(err_fd >= 0);
  int saved = dup(2);
  assert_int_equal(dup2(err_fd, 2), 2);
  run_out(s); /* the status and message are the allocation's own */
  fflush(stderr);
  assert_int_equal(dup2(saved, 2), 2);
  close(saved);
  ssize_t n = pread(err_fd, said, cap - 1, 0);
  said[n > 0 ? n : 0] = '\0';
  close(err_fd);
  unlink(err_path);
}

static void set_dump_path(const char *path) {
  assert_int_equal(setenv("MRCTX_OOM_SNAPSHOT", path, 1), 0);
  mri_oom_forget_env();
}

static void unset_dump_path(void) {
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_int_equal(fputs(text, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
}

static void assert_file_holds(const char *path, const char *text) {
  char got[256] = "";
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(got, 1, sizeof got - 1, f);
  got[n] = '\0';
  fclose(f);
  assert_string_equal(got, text);
}

/* The names in `dir`, but . and .., as "a b c" (sorted by readdir's order;
 * the tests expect at most one). */
static void list_dir(const char *dir, char *out, size_t cap) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  out[0] = '\0';
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    size_t n = strlen(out);
    snprintf(out + n, cap - n, "%s%s", n > 0 ? " " : "", e->d_name);
  }
  closedir(d);
}

/* A dump replaces the file at the path; it never writes through a symbolic
 * link there (the shared temporary directory's classic trap: another user
 * plants /tmp/oom.json -> a file of the victim's). The link is refused and
 * left, its target untouched. */
static void test_dump_refuses_a_symlink(void **state) {
  char dir[] = "/tmp/mrctx-oom-link-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char victim[128], link[128];
  snprintf(victim, sizeof victim, "%s/victim", dir);
  snprintf(link, sizeof link, "%s/oom.json", dir);
  write_text(victim, "the victim's data\n");
  assert_int_equal(symlink(victim, link), 0);
  set_dump_path(link);
  scene s = set_up();
  char said[1024];
  run_out_capturing(&s, said, sizeof said);
  assert_file_holds(victim, "the victim's data\n");
  struct stat st;
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  char expected[512];
  snprintf(expected, sizeof expected,
           "mrctx: cannot write the out-of-memory snapshot to '%s': it is a symbolic link to a "
           "regular file (mrctx does not write through a link to a file nor replace the link: "
           "name the file itself)",
           link);
  if (strstr(said, expected) == NULL) fail_msg("stderr said: %s", said);
  char names[256];
  list_dir(dir, names, sizeof names);
  assert_true(strcmp(names, "victim oom.json") == 0 || strcmp(names, "oom.json victim") == 0);
  tear_down(&s);
  unset_dump_path();
  unlink(link);
  unlink(victim);
  rmdir(dir);
}

/* A FIFO with no reader at the path would hold the failing allocation
 * until one came: it is refused at once (the alarm, a last resort with a
 * limit only a hang reaches, test_watchdog_seconds, fails the test if it
 * waits), and left as it was. */
static void test_dump_refuses_a_fifo_with_no_reader(void **state) {
  char dir[] = "/tmp/mrctx-oom-fifo-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char fifo[128];
  snprintf(fifo, sizeof fifo, "%s/oom.json", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  set_dump_path(fifo);
  scene s = set_up();
  char said[1024];
  alarm(test_watchdog_seconds(60));
  run_out_capturing(&s, said, sizeof said);
  alarm(0);
  char expected[256];
  snprintf(expected, sizeof expected,
           "mrctx: cannot write the out-of-memory snapshot to '%s': it is a FIFO with no reader",
           fifo);
  if (strstr(said, expected) == NULL) fail_msg("stderr said: %s", said);
  char names[256];
  list_dir(dir, names, sizeof names);
  assert_string_equal(names, "oom.json");
  tear_down(&s);
  unset_dump_path();
  unlink(fifo);
  rmdir(dir);
}

/* A FIFO with a reader is written straight to (a pipe to a collector):
 * the whole dump arrives, and the FIFO is still there afterwards, neither
 * replaced nor removed. */
static void test_dump_into_a_fifo(void **state) {
  char dir[] = "/tmp/mrctx-oom-fifo-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char fifo[128];
  snprintf(fifo, sizeof fifo, "%s/oom.json", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  set_dump_path(fifo);
  scene s = set_up();
  test_fifo_reader reader;
  test_fifo_reader_start(&reader, fifo);
  char said[1024];
  run_out_capturing(&s, said, sizeof said);
  size_t length = 0;
  char *got = test_fifo_reader_finish(&reader, &length);
  /* Only the line that says where the dump went. */
  if (strncmp(said, "mrctx: out of memory in solver:temp on device 0: snapshot written to '", 70) !=
          0 ||
      strchr(said, '\n') != said + strlen(said) - 1)
    fail_msg("stderr said: %s", said);
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_read(got, length, &snap));
  assert_true(snap->has_oom);
  mr_snapshot_destroy(snap);
  free(got);
  struct stat st;
  assert_int_equal(lstat(fifo, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  char names[256];
  list_dir(dir, names, sizeof names);
  assert_string_equal(names, "oom.json");
  tear_down(&s);
  unset_dump_path();
  unlink(fifo);
  rmdir(dir);
}

/* A character device (here one like /dev/null, made where the test can
 * see what becomes of it) is written straight to and stays a device: a
 * dump pointed at /dev/null by a process running as root must not replace
 * /dev/null with a file. */
static void test_dump_into_a_device(void **state) {
  char dir[] = "/tmp/mrctx-oom-dev-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char device[128];
  snprintf(device, sizeof device, "%s/null", dir);
  if (test_make_null_device(device)) {
    set_dump_path(device);
    scene s = set_up();
    char said[1024];
    run_out_capturing(&s, said, sizeof said);
    /* Only the line that says where the dump went. */
    if (strncmp(said, "mrctx: out of memory in solver:temp on device 0: snapshot written to '",
                70) != 0 ||
        strchr(said, '\n') != said + strlen(said) - 1)
      fail_msg("stderr said: %s", said);
    struct stat st;
    assert_int_equal(lstat(device, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(st.st_rdev, makedev(1, 3));
    char names[256];
    list_dir(dir, names, sizeof names);
    assert_string_equal(names, "null");
    tear_down(&s);
    unset_dump_path();
    unlink(device);
  }
  rmdir(dir);
}

/* A dump that cannot be written whole (here a file size limit, SIGXFSZ at
 * its default action) leaves the previous dump as it was, no partial file
 * beside it, and the process alive; one that can replaces the previous. */
static void test_failed_dump_keeps_the_previous(void **state) {
  char dir[] = "/tmp/mrctx-oom-keep-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/oom.json", dir);
  write_text(path, "the previous dump\n");
  set_dump_path(path);
  scene s = set_up();
  struct rlimit old, low = {.rlim_cur = 512, .rlim_max = RLIM_INFINITY};
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
  low.rlim_max = old.rlim_max;
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_DFL);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
  char said[1024];
  run_out_capturing(&s, said, sizeof said);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
  signal(SIGXFSZ, old_handler);
  assert_file_holds(path, "the previous dump\n");
  char names[256];
  list_dir(dir, names, sizeof names);
  assert_string_equal(names, "oom.json");
  char expected[256];
  snprintf(expected, sizeof expected,
           "mrctx: cannot write the out-of-memory snapshot to '%s': File too large", path);
  if (strstr(said, expected) == NULL) fail_msg("stderr said: %s", said);

  /* Without the limit the next one replaces it. */
  run_out(&s);
  mr_snapshot *snap = read_file(path);
  assert_true(snap->has_oom);
  mr_snapshot_destroy(snap);
  list_dir(dir, names, sizeof names);
  assert_string_equal(names, "oom.json");
  tear_down(&s);
  unset_dump_path();
  unlink(path);
  rmdir(dir);
}

/* A device whose current pool is the application's: both pools listed. */
static void test_pools_set_by_the_application(void **state) {
  CUmemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 1};
  CUmemoryPool app = NULL;
  assert_int_equal(fake_cu()->cuMemPoolCreate(&app, &props), CUDA_SUCCESS);
  CUmemLocation location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 1};
  assert_int_equal(fake_cu()->cuMemSetMemPool(&location, CU_MEM_ALLOCATION_TYPE_PINNED, app),
                   CUDA_SUCCESS);
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_take(NULL, &snap));
  const mri_snap_pool *current = find_pool(snap, "device_current", 1);
  assert_non_null(current);
  assert_false(current->info.is_default);
  assert_non_null(find_pool(snap, "device_default", 1));
  assert_null(find_pool(snap, "device_default", 0));
  mr_snapshot_destroy(snap);
  assert_int_equal(fake_cu()->cuMemSetMemPool(&location, CU_MEM_ALLOCATION_TYPE_PINNED,
                                              fake_default_pool(MR_POOL_DEVICE, 1)),
                   CUDA_SUCCESS);
  assert_int_equal(fake_cu()->cuMemPoolDestroy(app), CUDA_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_dump_names_both_libraries, fake_test_setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_no_dump_unless_asked, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_unwritable_dump, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_dump_refuses_a_symlink, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_dump_refuses_a_fifo_with_no_reader, fake_test_setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_dump_into_a_fifo, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_dump_into_a_device, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_failed_dump_keeps_the_previous, fake_test_setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_pools_set_by_the_application, fake_test_setup,
                                      fake_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
