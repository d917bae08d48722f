/*
 * test_core_unit.c: status codes, errors, the resource object's checks and
 * lifetime, over-alignment, sync fallbacks, sharded statistics, the pointer
 * map and thread slots.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/core.h"
#include "core/decay.h"
#include "core/ptrmap.h"
#include "core/stats.h"
#include "core/variables.h"
#include "test_util.h"

/* ---- a recording custom resource --------------------------------------- */

typedef struct recorder {
  int allocations, deallocations, synchronizations, destroys, trims;
  size_t last_bytes, last_alignment;
  mr_stream last_stream;
  bool fail_sync;
  int fail_frees; /* this many deallocations fail, changing nothing */
} recorder;

static mr_status rec_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                              void **ptr) {
  recorder *r = self;
  r->allocations++;
  r->last_bytes = bytes;
  r->last_alignment = alignment;
  r->last_stream = stream;
  if (posix_memalign(ptr, alignment, bytes) != 0) return mr_error(MR_ERR_OUT_OF_MEMORY, "rec: oom");
  return MR_OK;
}

static mr_status rec_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                mr_stream stream) {
  recorder *r = self;
  r->deallocations++;
  r->last_bytes = bytes;
  r->last_alignment = alignment;
  if (r->fail_frees > 0) {
    r->fail_frees--;
    return mr_error(MR_ERR_DRIVER, "rec: free failed on purpose");
  }
  free(ptr);
  return MR_OK;
}

static mr_status rec_synchronize(void *self, mr_stream stream) {
  recorder *r = self;
  r->synchronizations++;
  return r->fail_sync ? mr_error(MR_ERR_DRIVER, "rec: sync failed on purpose") : MR_OK;
}

static mr_status rec_trim(void *self) {
  ((recorder *)self)->trims++;
  return MR_OK;
}

static void rec_destroy(void *self) { ((recorder *)self)->destroys++; }

static int rec_describe(void *self, char *buf, size_t cap) {
  return snprintf(buf, cap, "recorder(%d)", 7);
}

static const mr_resource_ops rec_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "recorder",
    .allocate = rec_allocate,
    .deallocate = rec_deallocate,
    .synchronize = rec_synchronize,
    .trim = rec_trim,
    .describe = rec_describe,
    .destroy = rec_destroy,
};

static mr_resource *make_recorder(recorder *r, size_t native_alignment) {
  memset(r, 0, sizeof *r);
  mr_resource_props props = {.size = sizeof(mr_resource_props),
                             .kind = MR_MEMORY_HOST,
                             .device = -1,
                             .host_accessible = true,
                             .native_alignment = native_alignment};
  mr_resource *mr = NULL;
  assert_ok(mr_resource_create(&rec_ops, r, &props, &mr));
  return mr;
}

/* ---- status and errors ---------------------------------------------------- */

static void test_status_names(void **state) {
  assert_string_equal(mr_status_name(MR_OK), "MR_OK");
  assert_string_equal(mr_status_name(MR_ERR_CONFIG), "MR_ERR_CONFIG");
  assert_string_equal(mr_status_name(MR_ERR_NO_DRIVER), "MR_ERR_NO_DRIVER");
  assert_string_equal(mr_status_name((mr_status)999), "MR_ERR_UNKNOWN");
  assert_string_equal(mr_status_string(MR_ERR_OUT_OF_MEMORY), "out of memory");
  assert_string_equal(mr_status_string((mr_status)-5), "unknown status");
  assert_int_equal(MR_OK, 0);
  assert_string_equal(mr_version(), MRCTX_VERSION_STRING);
}

static void *other_thread_error(void *arg) {
  /* A fresh thread has no message, and setting one here leaves main's. */
  if (mr_last_error()[0] != '\0') return "not empty";
  mr_error(MR_ERR_DRIVER, "thread %d", 2);
  return strcmp(mr_last_error(), "thread 2") == 0 ? NULL : "wrong";
}

static void test_last_error_is_per_thread(void **state) {
  assert_int_equal(mr_error(MR_ERR_CONFIG, "main %s", "says"), MR_ERR_CONFIG);
  assert_string_equal(mr_last_error(), "main says");
  pthread_t t;
  void *result = (void *)1;
  pthread_create(&t, NULL, other_thread_error, NULL);
  pthread_join(t, &result);
  assert_null(result);
  assert_string_equal(mr_last_error(), "main says");
  /* Re-reporting the current message into itself is safe. */
  mr_error(MR_ERR_CONFIG, "again: %s", mr_last_error());
  assert_string_equal(mr_last_error(), "again: main says");
  mri_error_prefix(MR_ERR_CONFIG, "outer %d", 1);
  assert_string_equal(mr_last_error(), "outer 1: again: main says");
  mr_clear_error();
  assert_string_equal(mr_last_error(), "");
  mri_error_prefix(MR_ERR_CONFIG, "only");
  assert_string_equal(mr_last_error(), "only");
  /* Long messages are truncated, not overflowed. */
  char big[5000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  mr_error(MR_ERR_CONFIG, "%s", big);
  assert_int_equal(strlen(mr_last_error()), MRI_ERROR_CAPACITY - 1);
  mri_error_prefix(MR_ERR_CONFIG, "%s", big);
  assert_int_equal(strlen(mr_last_error()), MRI_ERROR_CAPACITY - 1);
  /* They keep their beginning and their end, which says why. */
  mr_error(MR_ERR_CONFIG, "what(%s): why", big);
  assert_int_equal(strlen(mr_last_error()), MRI_ERROR_CAPACITY - 1);
  assert_int_equal(strncmp(mr_last_error(), "what(xxx", 8), 0);
  assert_non_null(strstr(mr_last_error(), "xxx ... xxx"));
  assert_string_equal(mr_last_error() + MRI_ERROR_CAPACITY - 1 - 7, "x): why");
  mri_error_prefix(MR_ERR_CONFIG, "outer(%s)", big);
  assert_int_equal(strncmp(mr_last_error(), "outer(xxx", 9), 0);
  assert_string_equal(mr_last_error() + MRI_ERROR_CAPACITY - 1 - 7, "x): why");
  /* Even past what fits on the stack (formatted again in full). */
  char *huge = malloc(100000);
  assert_non_null(huge);
  memset(huge, 'y', 99999);
  huge[99999] = '\0';
  mr_error(MR_ERR_DRIVER, "head %s tail", huge);
  assert_int_equal(strncmp(mr_last_error(), "head yyy", 8), 0);
  assert_string_equal(mr_last_error() + MRI_ERROR_CAPACITY - 1 - 8, "yyy tail");
  free(huge);
}

/* A thread's message block is host memory, taken at its first failure:
 * without it the thread still gets a message, a static one per status. */
static void *error_without_host_memory(void *arg) {
  mri_host_fault_arm(1, 1);
  mr_error(MR_ERR_CONFIG, "lost %d", 1);
  mri_host_fault_arm(0, 0);
  if (strcmp(mr_last_error(), "MR_ERR_CONFIG: invalid memory configuration (no host "
                              "memory was left to record what failed)") != 0)
    return "no fallback";
  mri_error_prefix(MR_ERR_OUT_OF_MEMORY, "outer");
  if (strcmp(mr_last_error(), "outer: MR_ERR_CONFIG: invalid memory configuration (no "
                              "host memory was left to record what failed)") != 0)
    return "prefix lost the fallback";
  mr_error(MR_ERR_DRIVER, "kept %d", 2);
  if (strcmp(mr_last_error(), "kept 2") != 0) return "no block later";
  mr_clear_error();
  return mr_last_error()[0] == '\0' ? NULL : "not cleared";
}

static void test_last_error_without_host_memory(void **state) {
  pthread_t t;
  void *result = (void *)1;
  pthread_create(&t, NULL, error_without_host_memory, NULL);
  pthread_join(t, &result);
  assert_null(result);
}

/* Shortening cuts between UTF-8 characters, never inside one. */
static void test_fit_text_and_brief(void **state) {
  char buf[16];
  mri_fit_text(buf, sizeof buf, "short", 5);
  assert_string_equal(buf, "short");
  mri_fit_text(buf, sizeof buf, "0123456789abcdefghij", 20);
  assert_string_equal(buf, "012 ... defghij");
  /* "é" is two bytes: the cut moves to a character's edge. */
  const char *accents =
      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
  mri_fit_text(buf, sizeof buf, accents, strlen(accents));
  assert_string_equal(buf, "\xc3\xa9 ... \xc3\xa9\xc3\xa9\xc3\xa9");
  char brief[MRI_BRIEF_CAP];
  assert_string_equal(mri_brief("abc", brief), "abc");
  char long_text[200];
  memset(long_text, 'z', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  const char *b = mri_brief(long_text, brief);
  assert_int_equal(strlen(b), MRI_BRIEF_MAX + 3);
  assert_string_equal(b + MRI_BRIEF_MAX, "...");
  memset(long_text, 'z', 63);
  memcpy(long_text + 63, "\xc3\xa9", 2);
  assert_string_equal(mri_brief(long_text, brief) + 63, "...");
}

/* ---- the table of variables (core/variables.h) ---------------------------- */

/* The one "flag is on" test, as MRCTX_DEBUG and MRCTX_VERBOSE both read it
 * before the table: set, and to anything but "" and "0". */
static void test_variable_flag(void **state) {
  (void)state;
  const char *old = getenv("MRCTX_VERBOSE");
  char *saved = old != NULL ? strdup(old) : NULL;
  unsetenv("MRCTX_VERBOSE");
  assert_false(mri_variable_flag(MRI_VAR_VERBOSE));
  assert_null(mri_variable_get(MRI_VAR_VERBOSE));
  static const struct {
    const char *value;
    bool on;
  } cases[] = {{"", false},   {"0", false},    {"1", true},  {"00", true},
               {"yes", true}, {"false", true}, {" 0", true}, {"0 ", true}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    setenv("MRCTX_VERBOSE", cases[i].value, 1);
    assert_string_equal(mri_variable_get(MRI_VAR_VERBOSE), cases[i].value);
    if (mri_variable_flag(MRI_VAR_VERBOSE) != cases[i].on) fail_msg("'%s'", cases[i].value);
  }
  if (saved != NULL)
    setenv("MRCTX_VERBOSE", saved, 1);
  else
    unsetenv("MRCTX_VERBOSE");
  free(saved);
  assert_null(mri_variable_info(MRI_VAR_COUNT));
  assert_null(mri_variable_get(MRI_VAR_COUNT));
  assert_false(mri_variable_flag(MRI_VAR_COUNT));
}

/* Every entry is whole, --help's lines fit its 80 columns, and the default
 * the table tells for MRCTX_IDLE_TIME is the one decay.c applies. */
static void test_variable_table(void **state) {
  (void)state;
  for (int id = 0; id < MRI_VAR_COUNT; id++) {
    const mri_variable *v = mri_variable_info((mri_variable_id)id);
    assert_non_null(v);
    assert_non_null(v->name);
    assert_non_null(v->syntax);
    assert_non_null(v->default_text);
    assert_non_null(v->help);
    assert_non_null(v->doc);
    assert_true(v->read_by != 0);
    for (const char *line = v->help; *line != '\0';) {
      size_t n = strcspn(line, "\n");
      if (n == 0 || n > 52) fail_msg("%s: a help line of %zu bytes", v->name, n);
      line += n + (line[n] == '\n');
    }
    for (int other = 0; other < id; other++)
      assert_string_not_equal(mri_variable_info((mri_variable_id)other)->name, v->name);
  }
  char def[32];
  mri_duration_format(MRI_IDLE_TIME_DEFAULT_NS, def, sizeof def);
  assert_string_equal(mri_variable_info(MRI_VAR_IDLE_TIME)->default_text, def);
  assert_string_equal(mri_variable_info(MRI_VAR_IDLE_TIME)->name, "MRCTX_IDLE_TIME");
}

/* ---- resource object ------------------------------------------------------ */

static void test_create_validation(void **state) {
  recorder r;
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_resource_create(NULL, &r, NULL, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_status(mr_resource_create(&rec_ops, &r, NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  mr_resource_ops tiny = {.size = 8};
  assert_status(mr_resource_create(&tiny, &r, NULL, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("sizeof(mr_resource_ops)");
  mr_resource_ops no_free = rec_ops;
  no_free.deallocate = NULL;
  assert_status(mr_resource_create(&no_free, &r, NULL, &mr), MR_ERR_INVALID_ARGUMENT);
  mr_resource_props odd = {.size = sizeof(mr_resource_props), .native_alignment = 384};
  assert_status(mr_resource_create(&rec_ops, &r, &odd, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
}

/* An ops table from an older header (only the required methods) works; the
 * methods it does not have are treated as absent. */
static void test_old_ops_table(void **state) {
  recorder r;
  memset(&r, 0, sizeof r);
  mr_resource_ops old = rec_ops;
  old.size = offsetof(mr_resource_ops, allocate_sync);
  mr_resource *mr;
  assert_ok(mr_resource_create(&old, &r, NULL, &mr));
  assert_string_equal(mr_resource_describe(mr), "recorder"); /* describe is past size */
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(r.trims, 0);
  mr_resource_release(mr);
  assert_int_equal(r.destroys, 0); /* destroy is past size too */
}

static void test_lifetime_and_queries(void **state) {
  recorder r;
  mr_resource *mr = make_recorder(&r, 0);
  assert_string_equal(mr_resource_describe(mr), "recorder(7)");
  assert_string_equal(mr_resource_name(mr), "recorder");
  assert_ptr_equal(mr_resource_state(mr, &rec_ops), &r);
  assert_null(mr_resource_state(mr, &(mr_resource_ops){0}));
  assert_null(mr_resource_state(NULL, &rec_ops));
  assert_null(mr_resource_upstream(mr));
  assert_ptr_equal(mr_resource_retain(mr), mr);
  mr_resource_release(mr);
  assert_int_equal(r.destroys, 0);
  mr_resource_release(mr);
  assert_int_equal(r.destroys, 1);
  mr_resource_release(NULL);
  assert_null(mr_resource_retain(NULL));
  assert_string_equal(mr_resource_describe(NULL), "(null)");
  mr_resource_props props = {.size = sizeof props};
  assert_status(mr_resource_get_props(NULL, &props), MR_ERR_INVALID_ARGUMENT);
}

static void test_default_props(void **state) {
  recorder r;
  memset(&r, 0, sizeof r);
  mr_resource *mr;
  assert_ok(mr_resource_create(&rec_ops, &r, NULL, &mr));
  mr_resource_props props = {.size = sizeof props};
  assert_ok(mr_resource_get_props(mr, &props));
  assert_int_equal(props.kind, MR_MEMORY_HOST);
  assert_int_equal(props.device, -1);
  assert_true(props.host_accessible);
  assert_int_equal(props.native_alignment, 0);
  assert_status(mr_resource_get_props(mr, NULL), MR_ERR_INVALID_ARGUMENT);
  mr_resource_release(mr);
  assert_string_equal(mr_memory_kind_name(MR_MEMORY_PINNED), "pinned");
  assert_string_equal(mr_memory_kind_name((mr_memory_kind)42), "unknown");
}

static void test_argument_checks(void **state) {
  recorder r;
  mr_resource *mr = make_recorder(&r, 0);
  void *p = (void *)1;
  /* Size 0: OK, NULL, and the resource is not touched. */
  assert_ok(mr_allocate(mr, 0, 0, NULL, &p));
  assert_null(p);
  assert_int_equal(r.allocations, 0);
  /* Alignment 0 means 256; the stream is passed through. */
  mr_stream s = (mr_stream)(uintptr_t)0x77;
  assert_ok(mr_allocate(mr, 10, 0, s, &p));
  assert_int_equal(r.last_alignment, 256);
  assert_ptr_equal(r.last_stream, s);
  assert_ok(mr_deallocate(mr, p, 10, 0, s));
  assert_int_equal(r.deallocations, 1);
  /* Bad arguments never reach the resource and leave the pointer NULL. */
  p = (void *)1;
  assert_status(mr_allocate(mr, 10, 3, NULL, &p), MR_ERR_INVALID_ARGUMENT);
  assert_null(p);
  p = (void *)1;
  assert_status(mr_allocate(NULL, 10, 0, NULL, &p), MR_ERR_INVALID_ARGUMENT);
  assert_null(p);
  assert_status(mr_allocate(mr, 10, 0, NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(r.allocations, 1);
  /* Freeing NULL is a no-op; a pointer with size 0 or a bad alignment is an error. */
  assert_ok(mr_deallocate(mr, NULL, 0, 0, NULL));
  assert_status(mr_deallocate(mr, (void *)64, 0, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("size 0");
  assert_status(mr_deallocate(mr, (void *)64, 8, 12, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_deallocate(NULL, (void *)64, 8, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(r.deallocations, 1);
  assert_status(mr_resource_synchronize(NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_resource_trim(NULL), MR_ERR_INVALID_ARGUMENT);
  mr_resource_release(mr);
}

static void noisy_destroy(void *self) { mr_error(MR_ERR_DRIVER, "destroy: a free failed"); }

/* A release reports nothing, so it keeps the thread's message: a failed
 * constructor's cleanup cannot hide why it failed. */
static void test_release_keeps_last_error(void **state) {
  static const mr_resource_ops noisy_ops = {
      .size = sizeof(mr_resource_ops),
      .name = "noisy",
      .allocate = rec_allocate,
      .deallocate = rec_deallocate,
      .destroy = noisy_destroy,
  };
  recorder r = {0};
  mr_resource *mr = NULL;
  assert_ok(mr_resource_create(&noisy_ops, &r, NULL, &mr));
  mr_error(MR_ERR_CONFIG, "the reason the caller failed");
  mr_resource_release(mr);
  assert_string_equal(mr_last_error(), "the reason the caller failed");
}

/* Alignments above native_alignment are over-allocated and mapped back. */
static void test_over_alignment(void **state) {
  recorder r;
  mr_resource *mr = make_recorder(&r, 256);
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(mr, 1000, 4096, NULL, &p));
  assert_int_equal((uintptr_t)p % 4096, 0);
  assert_int_equal(r.last_bytes, 1000 + 4096 - 256);
  assert_int_equal(r.last_alignment, 256);
  memset(p, 1, 1000);
  assert_ok(mr_allocate(mr, 10, 1 << 16, NULL, &q));
  assert_int_equal((uintptr_t)q % (1 << 16), 0);
  /* The wrong size or alignment is refused and the record kept. */
  assert_status(mr_deallocate(mr, p, 999, 4096, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("different size");
  assert_status(mr_deallocate(mr, (char *)p + 4096, 1000, 4096, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("was not allocated here with alignment 4096");
  /* A failed free leaves the block the caller's: the retry finds it. */
  r.fail_frees = 2;
  assert_status(mr_deallocate(mr, p, 1000, 4096, NULL), MR_ERR_DRIVER);
  assert_status(mr_deallocate(mr, p, 1000, 4096, NULL), MR_ERR_DRIVER);
  assert_ok(mr_deallocate(mr, p, 1000, 4096, NULL));
  assert_ok(mr_deallocate(mr, q, 10, 1 << 16, NULL));
  assert_int_equal(r.deallocations, 4);
  /* Native alignments pass straight through. */
  assert_ok(mr_allocate(mr, 10, 128, NULL, &p));
  assert_int_equal(r.last_alignment, 128);
  assert_ok(mr_deallocate(mr, p, 10, 128, NULL));
  /* An over-aligned request whose padding overflows fails cleanly. */
  p = (void *)1;
  assert_status(mr_allocate(mr, SIZE_MAX - 100, 4096, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  mr_resource_release(mr);
}

static void test_sync_fallbacks(void **state) {
  recorder r;
  mr_resource *mr = make_recorder(&r, 0);
  void *p = NULL;
  /* No allocate_sync method: allocate on the legacy stream, then wait. */
  assert_ok(mr_allocate_sync(mr, 64, 0, &p));
  assert_non_null(p);
  assert_null(r.last_stream);
  assert_int_equal(r.synchronizations, 1);
  /* No deallocate_sync: wait first, then free on the legacy stream. */
  assert_ok(mr_deallocate_sync(mr, p, 64, 0));
  assert_int_equal(r.synchronizations, 2);
  assert_int_equal(r.deallocations, 1);
  /* A failed wait gives the memory back and keeps the error. */
  r.fail_sync = true;
  p = (void *)1;
  assert_status(mr_allocate_sync(mr, 64, 0, &p), MR_ERR_DRIVER);
  assert_null(p);
  assert_error_contains("sync failed on purpose");
  assert_int_equal(r.deallocations, 2);
  assert_status(mr_allocate_sync(mr, 64, 7, &p), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_allocate_sync(NULL, 64, 0, &p), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_allocate_sync(mr, 64, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_deallocate_sync(mr, (void *)64, 0, 0), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_deallocate_sync(NULL, (void *)64, 8, 0), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(r.trims, 1);
  mr_resource_release(mr);
}

/* ---- statistics --------------------------------------------------------- */

static void test_stats_single_thread(void **state) {
  mri_stats st;
  assert_ok(mri_stats_init(&st));
  mri_stats_on_alloc(&st, 100);
  mri_stats_on_alloc(&st, 50);
  mri_stats_on_free(&st, 100);
  mri_stats_on_alloc(&st, 10);
  mri_stats_on_fail(&st);
  mr_stats out;
  mr_stats_init(&out);
  assert_ok(mri_stats_read(&st, &out));
  assert_int_equal(out.current_bytes, 60);
  assert_int_equal(out.peak_bytes, 150);
  assert_int_equal(out.total_bytes, 160);
  assert_int_equal(out.current_count, 2);
  assert_int_equal(out.peak_count, 2);
  assert_int_equal(out.total_count, 3);
  assert_int_equal(out.failed_count, 1);
  /* Large swings publish to the shared counter; peaks stay exact. */
  for (int i = 0; i < 1000; i++) mri_stats_on_alloc(&st, 1 << 20);
  for (int i = 0; i < 1000; i++) mri_stats_on_free(&st, 1 << 20);
  assert_ok(mri_stats_read(&st, &out));
  assert_int_equal(out.current_bytes, 60);
  assert_int_equal(out.peak_bytes, 60 + 1000ull * (1 << 20));
  assert_int_equal(out.peak_count, 1002);
  out.size = 3;
  assert_status(mri_stats_read(&st, &out), MR_ERR_INVALID_ARGUMENT);
  mri_stats_fini(&st);
}

typedef struct stats_worker {
  mri_stats *stats;
  int n;
} stats_worker;

static void *stats_hammer(void *arg) {
  stats_worker *w = arg;
  for (int i = 0; i < w->n; i++) {
    mri_stats_on_alloc(w->stats, (size_t)(i % 1000) + 1);
    if (i % 7 == 0) mri_stats_on_fail(w->stats);
    mri_stats_on_free(w->stats, (size_t)(i % 1000) + 1);
  }
  mri_stats_on_alloc(w->stats, 8); /* one left live per thread */
  return NULL;
}

static void test_stats_threads(void **state) {
  enum { THREADS = 8, N = 100000 };
  mri_stats st;
  assert_ok(mri_stats_init(&st));
  pthread_t threads[THREADS];
  stats_worker w = {&st, N};
  for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, stats_hammer, &w);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  mr_stats out;
  mr_stats_init(&out);
  assert_ok(mri_stats_read(&st, &out));
  uint64_t per_thread = 0;
  for (int i = 0; i < N; i++) per_thread += (uint64_t)(i % 1000) + 1;
  assert_int_equal(out.current_bytes, THREADS * 8);
  assert_int_equal(out.current_count, THREADS);
  assert_int_equal(out.total_bytes, THREADS * (per_thread + 8));
  assert_int_equal(out.total_count, THREADS * (N + 1ull));
  assert_int_equal(out.failed_count, THREADS * ((N + 6) / 7));
  assert_true(out.peak_bytes >= out.current_bytes);
  assert_true(out.peak_count >= THREADS);
  mri_stats_fini(&st);
}

/* The sharded peak never reads above the true peak by more than 16 MiB per
 * thread either. Thread B allocates 100 MiB; the main thread (A) 17 MiB;
 * B frees its 100 MiB; A allocates 1 GiB. The true peak is 1 GiB + 17 MiB.
 * Each step passes the publishing threshold, so each is published. A's
 * 1 GiB must not be added to the shared total A saw at its last publish
 * (which still had B's 100 MiB): that would read 100 MiB high, and with a
 * larger free any amount high. */
typedef struct peak_steps {
  mri_stats *stats;
  pthread_mutex_t lock;
  pthread_cond_t moved;
  int step;
} peak_steps;

static void steps_wait(peak_steps *p, int step) {
  pthread_mutex_lock(&p->lock);
  while (p->step < step) pthread_cond_wait(&p->moved, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

static void steps_move(peak_steps *p, int step) {
  pthread_mutex_lock(&p->lock);
  p->step = step;
  pthread_cond_broadcast(&p->moved);
  pthread_mutex_unlock(&p->lock);
}

static void *peak_thread_b(void *arg) {
  peak_steps *p = arg;
  mri_stats_on_alloc(p->stats, (size_t)100 << 20);
  steps_move(p, 1);
  steps_wait(p, 2);
  mri_stats_on_free(p->stats, (size_t)100 << 20);
  steps_move(p, 3);
  return NULL;
}

static void test_stats_peak_not_above_the_bound(void **state) {
  const uint64_t mib = (uint64_t)1 << 20;
  mri_stats st;
  assert_ok(mri_stats_init(&st));
  peak_steps p = {.stats = &st};
  pthread_mutex_init(&p.lock, NULL);
  pthread_cond_init(&p.moved, NULL);
  pthread_t b;
  assert_int_equal(pthread_create(&b, NULL, peak_thread_b, &p), 0);
  steps_wait(&p, 1);
  mri_stats_on_alloc(&st, (size_t)17 << 20);
  steps_move(&p, 2);
  steps_wait(&p, 3);
  mri_stats_on_alloc(&st, (size_t)1 << 30);
  pthread_join(b, NULL);
  mr_stats out;
  mr_stats_init(&out);
  assert_ok(mri_stats_read(&st, &out));
  uint64_t truth = 1024 * mib + 17 * mib;
  assert_int_equal(out.current_bytes, truth);
  assert_true(out.peak_bytes <= truth + 2 * 16 * mib);
  assert_true(out.peak_bytes + 16 * mib >= truth);
  mri_stats_on_free(&st, (size_t)1 << 30);
  mri_stats_on_free(&st, (size_t)17 << 20);
  pthread_cond_destroy(&p.moved);
  pthread_mutex_destroy(&p.lock);
  mri_stats_fini(&st);
}

/* ---- peak resets ------------------------------------------------------------ */

static mr_stats stats_now(const mri_stats *st) {
  mr_stats out;
  mr_stats_init(&out);
  assert_ok(mri_stats_read(st, &out));
  return out;
}

/* One thread: a reset sets the peaks to what is live, and the peaks after
 * it are exact again, counted from there; the totals are untouched. */
static void test_stats_reset_single_thread(void **state) {
  const uint64_t mib = (uint64_t)1 << 20;
  mri_stats st;
  assert_ok(mri_stats_init(&st));
  for (int i = 0; i < 100; i++) mri_stats_on_alloc(&st, 1 << 20); /* publishes */
  for (int i = 0; i < 90; i++) mri_stats_on_free(&st, 1 << 20);
  mri_stats_on_fail(&st);
  mr_stats s = stats_now(&st);
  assert_int_equal(s.peak_bytes, 100 * mib);
  assert_int_equal(s.peak_count, 100);
  mri_stats_reset_peak(&st);
  s = stats_now(&st);
  assert_int_equal(s.current_bytes, 10 * mib);
  assert_int_equal(s.peak_bytes, 10 * mib);
  assert_int_equal(s.peak_count, 10);
  assert_int_equal(s.total_bytes, 100 * mib);
  assert_int_equal(s.total_count, 100);
  assert_int_equal(s.failed_count, 1);
  /* Small and large steps after the reset: exact. */
  mri_stats_on_alloc(&st, 100);
  mri_stats_on_free(&st, 100);
  s = stats_now(&st);
  assert_int_equal(s.peak_bytes, 10 * mib + 100);
  assert_int_equal(s.peak_count, 11);
  for (int i = 0; i < 30; i++) mri_stats_on_alloc(&st, 1 << 20);
  for (int i = 0; i < 30; i++) mri_stats_on_free(&st, 1 << 20);
  s = stats_now(&st);
  assert_int_equal(s.peak_bytes, 40 * mib);
  assert_int_equal(s.peak_count, 40);
  /* Twice in a row, and with nothing live. */
  mri_stats_reset_peak(&st);
  mri_stats_reset_peak(&st);
  assert_int_equal(stats_now(&st).peak_bytes, 10 * mib);
  for (int i = 0; i < 10; i++) mri_stats_on_free(&st, 1 << 20);
  mri_stats_reset_peak(&st);
  s = stats_now(&st);
  assert_int_equal(s.peak_bytes, 0);
  assert_int_equal(s.peak_count, 0);
  mri_stats_on_alloc(&st, 5);
  assert_int_equal(stats_now(&st).peak_bytes, 5);
  mri_stats_on_free(&st, 5);
  mri_stats_fini(&st);
}

/* A reset forgets what another thread's view still holds: thread B
 * allocates 100 MiB (published: B's view starts from 100 MiB), the main
 * thread frees 90 MiB of it (published), the peak is reset (10 MiB live),
 * and B allocates 1 MiB. The truth since the reset is 11 MiB. B's view
 * must not add the 1 MiB to the 100 MiB it last saw, which would show a
 * peak of 101 MiB the reset should have forgotten. */
static void *reset_thread_b(void *arg) {
  peak_steps *p = arg;
  mri_stats_on_alloc(p->stats, (size_t)100 << 20);
  steps_move(p, 1);
  steps_wait(p, 2);
  mri_stats_on_alloc(p->stats, (size_t)1 << 20);
  steps_move(p, 3);
  return NULL;
}

static void test_stats_reset_forgets_stale_views(void **state) {
  const uint64_t mib = (uint64_t)1 << 20;
  mri_stats st;
  assert_ok(mri_stats_init(&st));
  peak_steps p = {.stats = &st};
  pthread_mutex_init(&p.lock, NULL);
  pthread_cond_init(&p.moved, NULL);
  pthread_t b;
  assert_int_equal(pthread_create(&b, NULL, reset_thread_b, &p), 0);
  steps_wait(&p, 1);
  mri_stats_on_free(&st, (size_t)90 << 20);
  mri_stats_reset_peak(&st);
  mr_stats s = stats_now(&st);
  assert_int_equal(s.current_bytes, 10 * mib);
  assert_int_equal(s.peak_bytes, 10 * mib);
  assert_int_equal(s.peak_count, 0); /* one block, one free: counted as none live */
  steps_move(&p, 2);
  steps_wait(&p, 3);
  pthread_join(b, NULL);
  s = stats_now(&st);
  assert_int_equal(s.current_bytes, 11 * mib);
  /* The bound of stats.h, counted from the reset: two threads. */
  assert_true(s.peak_bytes >= 11 * mib);
  assert_true(s.peak_bytes <= 11 * mib + 2 * 16 * mib);
  assert_true(s.peak_count <= 1 + 2 * 256);
  mri_stats_on_free(&st, (size_t)11 << 20);
  pthread_cond_destroy(&p.moved);
  pthread_mutex_destroy(&p.lock);
  mri_stats_fini(&st);
}

/* Resets while threads allocate: nothing is lost from the totals, a read
 * never shows a peak above the bound of stats.h, and once all is quiet a
 * reset gives exactly what is live. The resets are made to happen while
 * the workers are in the middle of their work, however the threads are
 * scheduled: each round, every worker stops halfway with a block live
 * (barrier "mid"), the main thread resets and reads, releases them
 * (barrier "go") and resets again while they run. Nothing waits for time,
 * and only the main thread asserts (cmocka's checks must not run on
 * another thread). */
enum { RESET_THREADS = 6, RESET_ROUNDS = 8, RESET_PAIRS = 2000 };

typedef struct reset_race {
  mri_stats *stats;
  pthread_barrier_t mid, go;
} reset_race;

static void *allocate_between_resets(void *arg) {
  reset_race *r = arg;
  for (int round = 0; round < RESET_ROUNDS; round++) {
    for (int i = 0; i < RESET_PAIRS; i++) {
      mri_stats_on_alloc(r->stats, (size_t)(i % 1000) + 1);
      if (i % 7 == 0) mri_stats_on_fail(r->stats);
      mri_stats_on_free(r->stats, (size_t)(i % 1000) + 1);
    }
    mri_stats_on_alloc(r->stats, 1000); /* live across the reset */
    pthread_barrier_wait(&r->mid);
    pthread_barrier_wait(&r->go);
    mri_stats_on_free(r->stats, 1000);
  }
  mri_stats_on_alloc(r->stats, 8); /* one left live per thread */
  return NULL;
}

/* A reset and a read; the read within the bound of stats.h: each worker
 * holds at most 2 blocks of at most 1000 bytes at once, and each of the
 * 7 threads' views may add 16 MiB and 256 blocks. */
static void reset_and_check(mri_stats *st) {
  mri_stats_reset_peak(st);
  mr_stats s = stats_now(st);
  assert_true(s.peak_count <= RESET_THREADS * 2 + 7 * 256);
  assert_true(s.peak_bytes <= RESET_THREADS * 2000 + 7 * ((uint64_t)16 << 20));
}

static void test_stats_reset_while_allocating(void **state) {
  mri_stats st;
  assert_ok(mri_stats_init(&st));
  reset_race r = {.stats = &st};
  assert_int_equal(pthread_barrier_init(&r.mid, NULL, RESET_THREADS + 1), 0);
  assert_int_equal(pthread_barrier_init(&r.go, NULL, RESET_THREADS + 1), 0);
  pthread_t threads[RESET_THREADS];
  for (int i = 0; i < RESET_THREADS; i++)
    assert_int_equal(pthread_create(&threads[i], NULL, allocate_between_resets, &r), 0);
  for (int round = 0; round < RESET_ROUNDS; round++) {
    pthread_barrier_wait(&r.mid);
    /* Every worker is halfway, its block live. */
    reset_and_check(&st);
    mr_stats s = stats_now(&st);
    assert_true(s.current_bytes >= RESET_THREADS * 1000);
    assert_true(s.peak_bytes >= s.current_bytes);
    pthread_barrier_wait(&r.go);
    reset_and_check(&st); /* while they run */
  }
  for (int i = 0; i < RESET_THREADS; i++) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&r.mid);
  pthread_barrier_destroy(&r.go);
  uint64_t per_round = 0;
  for (int i = 0; i < RESET_PAIRS; i++) per_round += (uint64_t)(i % 1000) + 1;
  uint64_t per_thread = RESET_ROUNDS * (per_round + 1000) + 8;
  mr_stats s = stats_now(&st);
  assert_int_equal(s.current_bytes, RESET_THREADS * 8);
  assert_int_equal(s.current_count, RESET_THREADS);
  assert_int_equal(s.total_bytes, RESET_THREADS * per_thread);
  assert_int_equal(s.total_count, RESET_THREADS * (RESET_ROUNDS * (RESET_PAIRS + 1ull) + 1));
  assert_int_equal(s.failed_count, RESET_THREADS * RESET_ROUNDS * ((RESET_PAIRS + 6) / 7));
  assert_true(s.peak_bytes >= s.current_bytes);
  mri_stats_reset_peak(&st);
  s = stats_now(&st);
  assert_int_equal(s.peak_bytes, RESET_THREADS * 8);
  assert_int_equal(s.peak_count, RESET_THREADS);
  mri_stats_fini(&st);
}

/* Exact peaks: a reset sets them to what is live. */
static void test_stats_reset_exact(void **state) {
  mri_stats st;
  assert_ok(mri_stats_init(&st));
  assert_ok(mri_stats_keep_exact_peaks(&st));
  mri_stats_on_alloc(&st, 1000);
  mri_stats_exact_on_alloc(&st, 1000);
  mri_stats_on_alloc(&st, 24);
  mri_stats_exact_on_alloc(&st, 24);
  mri_stats_on_free(&st, 1000);
  mri_stats_exact_on_free(&st, 1000);
  mr_stats s = stats_now(&st);
  assert_int_equal(s.peak_bytes, 1024);
  assert_int_equal(s.peak_count, 2);
  mri_stats_reset_peak(&st);
  s = stats_now(&st);
  assert_int_equal(s.peak_bytes, 24);
  assert_int_equal(s.peak_count, 1);
  assert_int_equal(s.total_bytes, 1024);
  mri_stats_on_alloc(&st, 8);
  mri_stats_exact_on_alloc(&st, 8);
  mri_stats_on_free(&st, 8);
  mri_stats_exact_on_free(&st, 8);
  assert_int_equal(stats_now(&st).peak_bytes, 32);
  mri_stats_on_free(&st, 24);
  mri_stats_exact_on_free(&st, 24);
  mri_stats_fini(&st);
}

static void test_stats_json_and_add(void **state) {
  mr_stats a, b;
  mr_stats_init(&a);
  mr_stats_init(&b);
  a.current_bytes = 5;
  a.total_count = 2;
  b.current_bytes = 7;
  b.failed_count = 1;
  mr_stats_add(&a, &b);
  assert_int_equal(a.current_bytes, 12);
  assert_int_equal(a.failed_count, 1);
  mr_stats_add(NULL, &b);
  char buf[512] = {0};
  FILE *f = fmemopen(buf, sizeof buf, "w");
  assert_ok(mr_stats_write_json(&a, f));
  fclose(f);
  assert_non_null(strstr(buf, "\"current_bytes\": 12"));
  assert_non_null(strstr(buf, "\"failed_count\": 1}"));
  assert_status(mr_stats_write_json(NULL, stdout), MR_ERR_INVALID_ARGUMENT);
}

/* ---- pointer map ---------------------------------------------------------- */

static void test_ptrmap_against_reference(void **state) {
  enum { KEYS = 5000 };
  static uintptr_t ref[KEYS]; /* 0: absent, else value */
  memset(ref, 0, sizeof ref);
  mri_ptrmap *map = mri_ptrmap_create();
  assert_non_null(map);
  uint64_t seed = 42;
  size_t count = 0;
  for (int i = 0; i < 200000; i++) {
    size_t k = test_rand(&seed) % KEYS;
    const void *key = (const void *)((k + 1) * 256);
    mri_ptrmap_value v;
    switch (test_rand(&seed) % 3) {
    case 0:
      if (ref[k] == 0) count++;
      ref[k] = (uintptr_t)i + 1;
      assert_ok(mri_ptrmap_put(map, key, (mri_ptrmap_value){.bytes = ref[k]}));
      break;
    case 1:
      assert_int_equal(mri_ptrmap_take(map, key, &v), ref[k] != 0);
      if (ref[k] != 0) {
        assert_int_equal(v.bytes, ref[k]);
        ref[k] = 0;
        count--;
      }
      break;
    default:
      assert_int_equal(mri_ptrmap_get(map, key, &v), ref[k] != 0);
      if (ref[k] != 0) assert_int_equal(v.bytes, ref[k]);
    }
    assert_int_equal(mri_ptrmap_count(map), count);
  }
  assert_status(mri_ptrmap_put(map, NULL, (mri_ptrmap_value){0}), MR_ERR_INVALID_ARGUMENT);
  assert_false(mri_ptrmap_get(map, NULL, NULL));
  mri_ptrmap_destroy(map);
}

/* ---- thread slots and helpers ------------------------------------------- */

static void *report_slot(void *arg) {
  *(int *)arg = mri_thread_slot();
  return NULL;
}

static void test_thread_slots(void **state) {
  int mine = mri_thread_slot();
  assert_true(mine >= 0 && mine < MRI_MAX_SLOTS);
  assert_int_equal(mri_thread_slot(), mine);
  int first = -1, second = -1;
  pthread_t t;
  pthread_create(&t, NULL, report_slot, &first);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, report_slot, &second);
  pthread_join(t, NULL);
  assert_true(first >= 0 && first != mine);
  /* The exited thread's slot is free again. */
  assert_int_equal(second, first);
}

static void test_format_size(void **state) {
  char buf[32];
  mri_format_size(0, buf, sizeof buf);
  assert_string_equal(buf, "0B");
  mri_format_size(1536, buf, sizeof buf);
  assert_string_equal(buf, "1536B");
  mri_format_size(64ull << 20, buf, sizeof buf);
  assert_string_equal(buf, "64MiB");
  mri_format_size(3ull << 40, buf, sizeof buf);
  assert_string_equal(buf, "3TiB");
  mri_format_size((100ull << 20) + 1, buf, sizeof buf);
  assert_string_equal(buf, "104857601B");
  mri_format_size(3ull << 49, buf, sizeof buf); /* no PiB in the spec language */
  assert_string_equal(buf, "1536TiB");
  mri_format_size(UINT64_MAX, buf, sizeof buf);
  assert_string_equal(buf, "18446744073709551615B");
}

static void test_failing_resource(void **state) {
  mr_resource *mr;
  assert_ok(
      mri_unavailable_resource_create(MR_ERR_NO_DRIVER, "no driver here", NULL, "device", &mr));
  void *p = (void *)1;
  assert_status(mr_allocate(mr, 10, 0, NULL, &p), MR_ERR_NO_DRIVER);
  assert_null(p);
  assert_error_contains("no driver here (allocating 10 bytes)");
  assert_ok(mr_deallocate(mr, NULL, 10, 0, NULL));
  assert_status(mr_deallocate(mr, (void *)256, 10, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_string_equal(mr_resource_describe(mr), "device");
  mr_resource_release(mr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names),
      cmocka_unit_test(test_last_error_is_per_thread),
      cmocka_unit_test(test_last_error_without_host_memory),
      cmocka_unit_test(test_fit_text_and_brief),
      cmocka_unit_test(test_variable_flag),
      cmocka_unit_test(test_variable_table),
      cmocka_unit_test(test_create_validation),
      cmocka_unit_test(test_old_ops_table),
      cmocka_unit_test(test_lifetime_and_queries),
      cmocka_unit_test(test_default_props),
      cmocka_unit_test(test_argument_checks),
      cmocka_unit_test(test_release_keeps_last_error),
      cmocka_unit_test(test_over_alignment),
      cmocka_unit_test(test_sync_fallbacks),
      cmocka_unit_test(test_stats_single_thread),
      cmocka_unit_test(test_stats_threads),
      cmocka_unit_test(test_stats_peak_not_above_the_bound),
      cmocka_unit_test(test_stats_reset_single_thread),
      cmocka_unit_test(test_stats_reset_forgets_stale_views),
      cmocka_unit_test(test_stats_reset_while_allocating),
      cmocka_unit_test(test_stats_reset_exact),
      cmocka_unit_test(test_stats_json_and_add),
      cmocka_unit_test(test_ptrmap_against_reference),
      cmocka_unit_test(test_thread_slots),
      cmocka_unit_test(test_format_size),
      cmocka_unit_test(test_failing_resource),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
