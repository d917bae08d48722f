/*
 * unit: the upstream fails at every call position in turn.
 *
 * For each adaptor (and the growth paths of arena, fixed and bin) a fixed
 * workload runs again and again over a faulty upstream that fails its Nth
 * allocation, N = 1, 2, 3, ... until a run never reaches the failure. Every
 * run checks: each call's status (out-of-memory where the failure landed,
 * success elsewhere), out-pointers NULL on failure with a message set, the
 * adaptor's own counts while blocks are live and after they are freed, and
 * that nothing leaked upstream once the adaptor is gone (the SQLite fault
 * simulator's method).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "adaptor_test.h"

#define MAX_LIVE 64

typedef struct live_set {
  void *ptr[MAX_LIVE];
  size_t bytes[MAX_LIVE], alignment[MAX_LIVE];
  mr_stream stream[MAX_LIVE];
  int count;
  long failures; /* allocations refused */
} live_set;

typedef struct adaptor_case {
  const char *name;
  mr_status (*create)(mr_resource *upstream, mr_resource **out);
  const size_t *sizes;
  size_t size_count;
  bool recovers; /* retry: one failure never reaches the caller */
  /* Checks with blocks live and after all are freed. */
  void (*check)(mr_resource *mr, const live_set *live);
} adaptor_case;

static char log_path[512];

/* ---- constructors ------------------------------------------------------- */

static mr_status make_stats(mr_resource *up, mr_resource **out) {
  return mr_stats_resource_create(up, out);
}
static mr_status make_log(mr_resource *up, mr_resource **out) {
  return mr_log_resource_create(up, log_path, out);
}
static mr_status make_limit(mr_resource *up, mr_resource **out) {
  return mr_limit_resource_create(up, (size_t)1 << 30, out);
}
static mr_status make_align(mr_resource *up, mr_resource **out) {
  return mr_align_resource_create(up, 2048, out);
}
static mr_status make_arena(mr_resource *up, mr_resource **out) {
  return mr_arena_resource_create(up, 16 << 10, out);
}
static mr_status make_fixed(mr_resource *up, mr_resource **out) {
  return mr_fixed_resource_create(up, 4096, 2, out);
}
static mr_status make_bin(mr_resource *up, mr_resource **out) {
  return mr_bin_resource_create(up, 256, 2048, 2, out);
}
static mr_status make_retry(mr_resource *up, mr_resource **out) {
  return mr_retry_resource_create(up, 0, NULL, NULL, out);
}
static mr_status make_track(mr_resource *up, mr_resource **out) {
  return mr_track_resource_create(up, out);
}
/* retry over arena: a failed chunk is recovered by the retry. */
static mr_status make_retry_arena(mr_resource *up, mr_resource **out) {
  *out = NULL;
  mr_resource *arena = NULL;
  mr_status st = mr_arena_resource_create(up, 16 << 10, &arena);
  if (st != MR_OK) return st;
  st = mr_retry_resource_create(arena, 0, NULL, NULL, out);
  mr_resource_release(arena);
  return st;
}
/* A debugging chain: track(limit(bin(...))). */
static mr_status make_chain(mr_resource *up, mr_resource **out) {
  *out = NULL;
  mr_resource *bin = NULL, *limit = NULL;
  mr_status st = mr_bin_resource_create(up, 256, 1024, 1, &bin);
  if (st == MR_OK) st = mr_limit_resource_create(bin, 1 << 20, &limit);
  if (st == MR_OK) st = mr_track_resource_create(limit, out);
  mr_resource_release(limit);
  mr_resource_release(bin);
  return st;
}

/* ---- checks --------------------------------------------------------------- */

static size_t live_bytes(const live_set *live) {
  size_t sum = 0;
  for (int i = 0; i < live->count; i++) sum += live->bytes[i];
  return sum;
}

static void check_none(mr_resource *mr, const live_set *live) {}

static void check_stats(mr_resource *mr, const live_set *live) {
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_stats_resource_get(mr, &s));
  assert_int_equal(s.current_count, (uint64_t)live->count);
  assert_int_equal(s.current_bytes, live_bytes(live));
  assert_int_equal(s.failed_count, (uint64_t)live->failures);
}

static void check_limit(mr_resource *mr, const live_set *live) {
  size_t used = 0;
  assert_ok(mr_limit_resource_used(mr, &used));
  assert_int_equal(used, live_bytes(live));
}

static void check_track(mr_resource *mr, const live_set *live) {
  size_t count = 0;
  assert_ok(mr_track_resource_foreach(mr, NULL, NULL, &count));
  assert_int_equal(count, (size_t)live->count);
}

static void check_arena(mr_resource *mr, const live_set *live) {
  size_t chunks, idle, large;
  assert_ok(mri_arena_counts(mr, &chunks, &idle, &large));
  if (live->count == 0) {
    assert_int_equal(idle, chunks);
    assert_int_equal(large, 0);
  } else {
    assert_true(idle < chunks || large > 0);
  }
}

static void check_fixed(mr_resource *mr, const live_set *live) {
  size_t slabs, free_blocks, large;
  assert_ok(mri_fixed_counts(mr, &slabs, &free_blocks, &large));
  if (live->count == 0) {
    assert_int_equal(free_blocks, slabs * 2);
    assert_int_equal(large, 0);
  }
}

/* ---- the workload ----------------------------------------------------------- */

static void allocate_some(mr_resource *mr, const adaptor_case *c, live_set *live, int n, int seed) {
  for (int i = 0; i < n && live->count < MAX_LIVE; i++) {
    int k = seed + i;
    size_t bytes = c->sizes[(size_t)k % c->size_count];
    size_t alignment = k % 5 == 0 ? 4096 : 0;
    mr_stream stream = k % 2 ? STREAM_A : STREAM_B;
    void *p = (void *)1;
    mr_clear_error();
    mr_status st = mr_allocate(mr, bytes, alignment, stream, &p);
    if (st != MR_OK) {
      if (st != MR_ERR_OUT_OF_MEMORY || p != NULL || mr_last_error()[0] == '\0')
        fail_msg("%s: allocation of %zu bytes: %s, out %p, message \"%s\"", c->name, bytes,
                 mr_status_name(st), p, mr_last_error());
      live->failures++;
      continue;
    }
    assert_non_null(p);
    assert_true((uintptr_t)p % (alignment ? alignment : 256) == 0);
    memset(p, k, bytes);
    int at = live->count++;
    live->ptr[at] = p;
    live->bytes[at] = bytes;
    live->alignment[at] = alignment;
    live->stream[at] = stream;
  }
}

static void free_where(mr_resource *mr, live_set *live, bool odd_only) {
  int kept = 0;
  for (int i = 0; i < live->count; i++) {
    if (odd_only && i % 2 == 0) {
      live->ptr[kept] = live->ptr[i];
      live->bytes[kept] = live->bytes[i];
      live->alignment[kept] = live->alignment[i];
      live->stream[kept] = live->stream[i];
      kept++;
      continue;
    }
    assert_ok(mr_deallocate(mr, live->ptr[i], live->bytes[i], live->alignment[i],
                            live->stream[(i + 1) % live->count]));
  }
  live->count = kept;
}

/* One run with the upstream failing its `fail_at`th allocation. Returns
 * true if the failure was reached. */
static bool run_once(const adaptor_case *c, long fail_at) {
  faulty_config config = {.fail_at = fail_at, .fail_count = 1};
  mr_resource *up = NULL;
  faulty_resource *f = NULL;
  assert_ok(faulty_resource_create(&config, &up, &f));
  mr_resource *mr = (mr_resource *)1;
  mr_clear_error();
  mr_status st = c->create(up, &mr);
  if (st != MR_OK) {
    if (st != MR_ERR_OUT_OF_MEMORY || mr != NULL || mr_last_error()[0] == '\0')
      fail_msg("%s: creation failing at %ld: %s, out %p, message \"%s\"", c->name, fail_at,
               mr_status_name(st), (void *)mr, mr_last_error());
  } else {
    live_set live = {0};
    allocate_some(mr, c, &live, 24, 0);
    c->check(mr, &live);
    free_where(mr, &live, true);
    c->check(mr, &live);
    assert_ok(mr_resource_trim(mr));
    allocate_some(mr, c, &live, 16, 7);
    c->check(mr, &live);
    free_where(mr, &live, false);
    c->check(mr, &live);
    if (c->recovers) assert_int_equal(live.failures, 0);
    if (c->create == make_log) {
      assert_ok(mr_log_resource_flush(mr));
      log_summary sum = log_check(log_path);
      assert_int_equal(sum.format_errors, 0);
      assert_int_equal(sum.unmatched, 0);
      assert_int_equal(sum.failures, live.failures);
      assert_int_equal(sum.allocates, sum.frees);
    }
    mr_resource_release(mr);
  }
  if (faulty_live_blocks(f) != 0 || faulty_bad_frees(f) != 0)
    fail_msg("%s failing at %ld: %zu blocks leaked, %ld bad frees", c->name, fail_at,
             faulty_live_blocks(f), faulty_bad_frees(f));
  bool reached = faulty_allocations(f) >= fail_at;
  mr_resource_release(up);
  return reached;
}

static void run_case(const adaptor_case *c) {
  long position = 1;
  while (run_once(c, position)) {
    position++;
    assert_true(position < 100000);
  }
  /* Most workloads make many upstream calls; make sure some were hit. */
  assert_true(position > 2);
}

static const size_t plain_sizes[] = {100, 5000, 256, 1, 70000};
static const size_t arena_sizes[] = {100, 5000, 9000, 20000, 300, 16384};
static const size_t fixed_sizes[] = {100, 4096, 5000, 64, 3000};
static const size_t bin_sizes[] = {1, 300, 1000, 2048, 3000, 700};

#define CASE(name, make, sizes, recovers, check) \
  { name, make, sizes, MRI_ARRAY_SIZE(sizes), recovers, check }

static const adaptor_case cases[] = {
    CASE("stats", make_stats, plain_sizes, false, check_stats),
    CASE("log", make_log, plain_sizes, false, check_none),
    CASE("limit", make_limit, plain_sizes, false, check_limit),
    CASE("align", make_align, plain_sizes, false, check_none),
    CASE("arena", make_arena, arena_sizes, false, check_arena),
    CASE("fixed", make_fixed, fixed_sizes, false, check_fixed),
    CASE("bin", make_bin, bin_sizes, false, check_none),
    CASE("retry", make_retry, plain_sizes, true, check_none),
    CASE("track", make_track, plain_sizes, false, check_track),
    CASE("retry(arena)", make_retry_arena, arena_sizes, true, check_none),
    CASE("track(limit(bin))", make_chain, bin_sizes, false, check_track),
};

static void test_case(void **state) { run_case(*state); }

static int setup_case(void **state) { return 0; }

int main(void) {
  const char *dir = getenv("TMPDIR");
  snprintf(log_path, sizeof log_path, "%s/mrctx-faults-%ld.csv",
           dir != NULL && dir[0] != '\0' ? dir : "/tmp", (long)getpid());
  struct CMUnitTest tests[MRI_ARRAY_SIZE(cases)];
  for (size_t i = 0; i < MRI_ARRAY_SIZE(cases); i++) {
    tests[i] = (struct CMUnitTest){cases[i].name, test_case, setup_case, NULL, (void *)&cases[i]};
  }
  int rc =
      _cmocka_run_group_tests("unit.adaptors.faults", tests, MRI_ARRAY_SIZE(cases), NULL, NULL);
  unlink(log_path);
  return rc;
}
