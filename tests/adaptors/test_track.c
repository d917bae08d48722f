/* unit: track(UP) */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adaptor_test.h"

static void test_describe_props_and_edges(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_track_resource_create(u.mr, &mr));
  assert_describes(mr, "track(faulty)");
  assert_inherits_props(mr, u.mr, 0);
  assert_size_zero_and_null_free(mr, u.f);
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1);
  assert_checks_upstream_and_out("track", mr_track_resource_create);
  size_t count = 5;
  assert_status(mr_track_resource_foreach(u.mr, NULL, NULL, &count), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("faulty is not a track resource");
  assert_int_equal(count, 0);
  assert_status(mr_track_resource_report(mr, NULL), MR_ERR_INVALID_ARGUMENT);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

typedef struct seen {
  int count;
  mr_track_record records[8];
} seen;

static void remember(void *user, const mr_track_record *rec) {
  seen *s = user;
  if (s->count < 8) s->records[s->count] = *rec;
  s->count++;
}

static void test_records_and_refusals(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_track_resource_create(u.mr, &mr));
  void *a = NULL, *b = NULL;
  assert_ok(mr_allocate(mr, 1000, 0, STREAM_A, &a));
  assert_ok(mr_allocate(mr, 2048, 4096, STREAM_B, &b));
  seen s = {0};
  size_t count = 0;
  assert_ok(mr_track_resource_foreach(mr, remember, &s, &count));
  assert_int_equal(count, 2);
  assert_int_equal(s.count, 2);
  for (int i = 0; i < 2; i++) {
    const mr_track_record *r = &s.records[i];
    if (r->ptr == a) {
      assert_int_equal(r->bytes, 1000);
      assert_int_equal(r->alignment, 256);
      assert_ptr_equal(r->stream, STREAM_A);
    } else {
      assert_ptr_equal(r->ptr, b);
      assert_int_equal(r->bytes, 2048);
      assert_int_equal(r->alignment, 4096);
      assert_ptr_equal(r->stream, STREAM_B);
    }
    assert_string_equal(r->owner, "");
  }
  /* Unknown pointers and wrong sizes never reach upstream. */
  long frees = faulty_deallocations(u.f);
  int local;
  assert_status(mr_deallocate(mr, &local, 4, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("is not a live allocation (never allocated here, or freed already)");
  assert_status(mr_deallocate(mr, a, 999, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("was allocated with 1000 bytes aligned to 256, not freed with 999 bytes");
  assert_status(mr_deallocate(mr, b, 2048, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(faulty_deallocations(u.f), frees);
  assert_ok(mr_track_resource_foreach(mr, NULL, NULL, &count));
  assert_int_equal(count, 2);
  assert_ok(mr_deallocate(mr, a, 1000, 0, NULL));
  assert_status(mr_deallocate(mr, a, 1000, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_deallocate(mr, b, 2048, 4096, NULL));
  assert_ok(mr_track_resource_foreach(mr, NULL, NULL, &count));
  assert_int_equal(count, 0);
  assert_int_equal(faulty_bad_frees(u.f), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static char *read_all(FILE *f) {
  fflush(f);
  long n = ftell(f);
  char *text = calloc(1, (size_t)n + 1);
  rewind(f);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  return text;
}

static int count_lines(const char *text) {
  int n = 0;
  for (; *text; text++) n += *text == '\n';
  return n;
}

static void test_report_and_destroy_report(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_track_resource_create(u.mr, &mr));
  mri_resource_set_owner(mr, "mylib:temp");
  void *a = NULL, *b = NULL;
  assert_ok(mr_allocate(mr, 1024, 0, NULL, &a));
  assert_ok(mr_allocate(mr, 2048, 0, NULL, &b));
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_ok(mr_track_resource_report(mr, f));
  char *text = read_all(f);
  fclose(f);
  assert_int_equal(count_lines(text), 3);
  char line[128];
  snprintf(line, sizeof line, "  %p 1024 bytes (alignment 256, stream (nil)) owner mylib:temp\n",
           a);
  assert_non_null(strstr(text, line));
  assert_non_null(strstr(text, "track(faulty): 2 allocations outstanding, 3072 bytes in all\n"));
  free(text);

  /* Destroyed with one still live: reported on stderr, not freed. */
  assert_ok(mr_deallocate(mr, a, 1024, 0, NULL));
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  FILE *err = tmpfile();
  dup2(fileno(err), STDERR_FILENO);
  mr_resource_release(mr);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  text = read_all(err);
  fclose(err);
  assert_non_null(strstr(text, "mrctx: leak: track(faulty): 1 allocation outstanding, 2048 bytes"));
  assert_non_null(strstr(text, " 2048 bytes (alignment 256"));
  free(text);
  assert_int_equal(faulty_live_blocks(u.f), 1);
  assert_ok(mr_deallocate(u.mr, b, 2048, 0, NULL));
  mr_resource_release(u.mr);
}

/* The call site a tracker with stacks records is the caller's, named: this
 * function's name must be in the frames (the test is linked with
 * -rdynamic, as an application must be for its own names). noinline: its
 * frame must exist. */
void track_test_allocating_site(mr_resource *mr, void **ptr);
__attribute__((noinline)) void track_test_allocating_site(mr_resource *mr, void **ptr) {
  assert_ok(mr_allocate(mr, 4096, 0, STREAM_A, ptr));
  __asm__ volatile("" ::: "memory"); /* no tail call: this frame stays */
}

static void frames_of(void *user, const mr_track_record *rec) {
  char *out = user;
  size_t n = strlen(out);
  for (size_t f = 0; f < rec->frame_count; f++) {
    char frame[512];
    n += (size_t)snprintf(out + n, 8192 - n, "%s\n",
                          mr_track_describe_frame(rec->frames[f], frame, sizeof frame));
  }
}

static void test_stacks(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_track_resource_create_stacks(u.mr, 4, &mr));
  assert_describes(mr, "track(faulty, stacks=4)");
  void *a = NULL;
  track_test_allocating_site(mr, &a);
  char *frames = calloc(1, 8192);
  assert_ok(mr_track_resource_foreach(mr, frames_of, frames, NULL));
  /* The innermost frame kept is the caller's own, mrctx's cut off. */
  assert_true(strncmp(frames, "track_test_allocating_site+0x", 29) == 0);
  assert_int_equal(count_lines(frames), 4);
  free(frames);
  FILE *f = tmpfile();
  assert_ok(mr_track_resource_report(mr, f));
  char *text = read_all(f);
  fclose(f);
  assert_non_null(strstr(text, " 4096 bytes (alignment 256, stream 0x1000) owner unknown\n"
                               "      at track_test_allocating_site+0x"));
  /* test_stacks is static, in no dynamic symbol table: an offset into the
   * program for addr2line. */
  assert_non_null(strstr(text, "test_adaptor_track+0x"));
  free(text);
  assert_ok(mr_deallocate(mr, a, 4096, 0, STREAM_A));
  /* Freed: the next walk has no record, and the frames went with it. */
  size_t count = 1;
  assert_ok(mr_track_resource_foreach(mr, NULL, NULL, &count));
  assert_int_equal(count, 0);
  /* Without stacks: no frames. */
  mr_resource *plain = NULL;
  assert_ok(mr_track_resource_create_stacks(u.mr, 0, &plain));
  assert_describes(plain, "track(faulty)");
  seen s = {0};
  assert_ok(mr_allocate(plain, 64, 0, NULL, &a));
  assert_ok(mr_track_resource_foreach(plain, remember, &s, NULL));
  assert_int_equal(s.count, 1);
  assert_null(s.records[0].frames);
  assert_int_equal(s.records[0].frame_count, 0);
  assert_ok(mr_deallocate(plain, a, 64, 0, NULL));
  mr_resource_release(plain);
  /* Too many frames: refused, by the constructor and by the spec. */
  mr_resource *bad = (mr_resource *)1;
  assert_status(mr_track_resource_create_stacks(u.mr, MR_TRACK_MAX_STACKS + 1, &bad),
                MR_ERR_INVALID_ARGUMENT);
  assert_null(bad);
  assert_error_contains("track: stacks=33 is more than 32, the most frames kept per allocation");
  assert_status(mr_resource_from_spec("track(host, stacks=33)", 0, &bad), MR_ERR_CONFIG);
  assert_error_contains("stacks=33 is more than 32");
  assert_status(mr_resource_from_spec("track(host, stacks=many)", 0, &bad), MR_ERR_CONFIG);
  /* The spec builds what the constructor does, and describes itself so. */
  mr_resource *host = NULL, *from_spec = NULL;
  assert_ok(mr_host_resource_create(&host));
  assert_ok(mr_track_resource_create_stacks(host, 8, &from_spec));
  assert_default_as_spec(from_spec, "track(host, stacks=8)", "track(host, stacks=8)");
  assert_ok(mr_track_resource_create(host, &from_spec));
  assert_default_as_spec(from_spec, "track(host, stacks=0)", "track(host)");
  mr_resource_release(host);
  /* The frame describer copes with what it cannot name. */
  char buf[64];
  assert_string_equal(mr_track_describe_frame(NULL, buf, sizeof buf), "(nil)");
  assert_null(mr_track_describe_frame(NULL, NULL, 0));
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

/* ---- a language runtime's frames (mr_track_set_frame_source) ---------------------- */

typedef struct script {
  mr_track_frame frames[4];
  size_t count;    /* what it fills */
  size_t claims;   /* what it returns (more than it fills: a bad source) */
  size_t calls;    /* how often it was called */
  size_t last_cap; /* the cap of the last call */
} script;

static size_t script_source(void *user, mr_track_frame *frames, size_t cap) {
  script *s = user;
  s->calls++;
  s->last_cap = cap;
  for (size_t i = 0; i < s->count && i < cap; i++) frames[i] = s->frames[i];
  return s->claims;
}

/* The frames of the one live block of `mr`, one line each. */
static char *live_frames(mr_resource *mr) {
  char *frames = calloc(1, 8192);
  assert_ok(mr_track_resource_foreach(mr, frames_of, frames, NULL));
  return frames;
}

static void test_frame_source(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL, *two = NULL, *plain = NULL;
  assert_ok(mr_track_resource_create_stacks(u.mr, 4, &mr));
  assert_ok(mr_track_resource_create_stacks(u.mr, 2, &two));
  assert_ok(mr_track_resource_create(u.mr, &plain));
  script s = {.frames = {{"/x/train.py", "step", 12}, {"/x/train.py", "<module>", 40}},
              .count = 2,
              .claims = 2};
  assert_ok(mr_track_set_frame_source(script_source, &s));
  /* The source's frames first, innermost first; the native frames, the
   * caller's innermost, in the room left. */
  void *a = NULL;
  track_test_allocating_site(mr, &a);
  assert_int_equal(s.calls, 1);
  assert_int_equal(s.last_cap, 4);
  char *frames = live_frames(mr);
  const char *expected = "step (/x/train.py:12)\n<module> (/x/train.py:40)\n"
                         "track_test_allocating_site+0x";
  assert_true(strncmp(frames, expected, strlen(expected)) == 0);
  assert_int_equal(count_lines(frames), 4);
  free(frames);
  FILE *f = tmpfile();
  assert_ok(mr_track_resource_report(mr, f));
  char *text = read_all(f);
  fclose(f);
  assert_non_null(strstr(text,
                         "      at step (/x/train.py:12)\n      at <module> (/x/train.py:40)\n"
                         "      at track_test_allocating_site+0x"));
  free(text);
  assert_ok(mr_deallocate(mr, a, 4096, 0, STREAM_A));
  /* N bounds the source: it is asked for N, and a source that claims more
   * than it was asked for is believed up to N. */
  s.claims = 99;
  assert_ok(mr_allocate(two, 64, 0, NULL, &a));
  assert_int_equal(s.last_cap, 2);
  frames = live_frames(two);
  assert_string_equal(frames, "step (/x/train.py:12)\n<module> (/x/train.py:40)\n");
  free(frames);
  assert_ok(mr_deallocate(two, a, 64, 0, NULL));
  /* NULL strings are "?"; a control character cannot reach a terminal. */
  s = (script){.frames = {{NULL, NULL, 0}, {"/x/a\nb.py", "f\x1b", 7}}, .count = 2, .claims = 2};
  assert_ok(mr_allocate(two, 64, 0, NULL, &a));
  frames = live_frames(two);
  assert_string_equal(frames, "? (?:0)\nf? (/x/a?b.py:7)\n");
  free(frames);
  assert_ok(mr_deallocate(two, a, 64, 0, NULL));
  /* A source that gives nothing: native frames only. */
  s = (script){0};
  track_test_allocating_site(mr, &a);
  assert_int_equal(s.calls, 1);
  frames = live_frames(mr);
  assert_true(strncmp(frames, "track_test_allocating_site+0x", 29) == 0);
  free(frames);
  assert_ok(mr_deallocate(mr, a, 4096, 0, STREAM_A));
  /* A frame that cannot be kept (no host memory for a new one) is left
   * out; the allocation does not fail. */
  s = (script){.frames = {{"/x/fresh.py", "new", 1}}, .count = 1, .claims = 1};
  mri_host_fault_arm(1, 1);
  mr_status st = mr_allocate(two, 64, 0, NULL, &a);
  mri_host_fault_arm(0, 0);
  assert_ok(st);
  frames = live_frames(two);
  assert_null(strstr(frames, "fresh.py"));
  free(frames);
  assert_ok(mr_deallocate(two, a, 64, 0, NULL));
  /* Without stacks the source is never called. */
  s = (script){0};
  assert_ok(mr_allocate(plain, 64, 0, NULL, &a));
  assert_ok(mr_deallocate(plain, a, 64, 0, NULL));
  assert_int_equal(s.calls, 0);
  /* Removed: never called again. */
  assert_ok(mr_track_set_frame_source(NULL, &s));
  track_test_allocating_site(mr, &a);
  assert_int_equal(s.calls, 0);
  frames = live_frames(mr);
  assert_true(strncmp(frames, "track_test_allocating_site+0x", 29) == 0);
  free(frames);
  assert_ok(mr_deallocate(mr, a, 4096, 0, STREAM_A));
  mr_resource_release(plain);
  mr_resource_release(two);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

/* Threads allocate under stacks while the source is set, replaced and
 * removed (for the sanitizers: the source's lock and the interning). */
static _Atomic long source_calls;

static size_t counting_source(void *user, mr_track_frame *frames, size_t cap) {
  (void)user;
  long n = atomic_fetch_add(&source_calls, 1);
  /* A few distinct frames: some are new (interned), most are found. */
  frames[0] = (mr_track_frame){"/x/loop.py", "body", (uint32_t)(n % 7)};
  return cap > 0 ? 1 : 0;
}

typedef struct toggler {
  _Atomic bool stop;
  long toggles;
} toggler;

static size_t empty_source(void *user, mr_track_frame *frames, size_t cap) {
  (void)user;
  (void)frames;
  (void)cap;
  return 0;
}

static void *toggle(void *arg) {
  toggler *t = arg;
  while (!atomic_load(&t->stop)) {
    assert_ok(mr_track_set_frame_source(counting_source, NULL));
    assert_ok(mr_track_set_frame_source(t->toggles % 2 ? empty_source : NULL, t));
    t->toggles++;
  }
  return NULL;
}

static void test_frame_source_threads(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_track_resource_create_stacks(u.mr, 4, &mr));
  toggler t = {0};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, toggle, &t), 0);
  churn(mr, 4, 2000, 4096, false);
  atomic_store(&t.stop, true);
  assert_int_equal(pthread_join(thread, NULL), 0);
  assert_ok(mr_track_set_frame_source(NULL, NULL));
  size_t count = 1;
  assert_ok(mr_track_resource_foreach(mr, NULL, NULL, &count));
  assert_int_equal(count, 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_threads(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_track_resource_create(u.mr, &mr));
  churn(mr, 8, 4000, 3000, true);
  size_t count = 1;
  assert_ok(mr_track_resource_foreach(mr, NULL, NULL, &count));
  assert_int_equal(count, 0);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_describe_props_and_edges),
      cmocka_unit_test(test_records_and_refusals),
      cmocka_unit_test(test_report_and_destroy_report),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_stacks),
      cmocka_unit_test(test_frame_source),
      cmocka_unit_test(test_frame_source_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
