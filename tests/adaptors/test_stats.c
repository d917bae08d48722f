/* unit: stats(UP) */
#include <pthread.h>

#include "adaptor_test.h"

#define MIB ((uint64_t)1 << 20)

static mr_stats read_stats(const mr_resource *mr) {
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_stats_resource_get(mr, &s));
  return s;
}

static void test_describe_props_and_edges(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  assert_describes(mr, "stats(faulty)");
  assert_inherits_props(mr, u.mr, 0);
  assert_size_zero_and_null_free(mr, u.f);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_counts_and_failures(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  void *a = NULL, *b = NULL, *c = (void *)1;
  assert_ok(mr_allocate(mr, 1000, 0, NULL, &a));
  assert_ok(mr_allocate(mr, 24, 4096, NULL, &b));
  assert_true((uintptr_t)b % 4096 == 0);
  faulty_set_fail(u.f, faulty_allocations(u.f) + 1, 1);
  assert_status(mr_allocate(mr, 5, 0, NULL, &c), MR_ERR_OUT_OF_MEMORY);
  assert_null(c);
  assert_error_contains("fails on purpose");
  mr_stats s = read_stats(mr);
  assert_int_equal(s.current_bytes, 1024);
  assert_int_equal(s.current_count, 2);
  assert_int_equal(s.total_count, 2);
  assert_int_equal(s.failed_count, 1);
  assert_int_equal(s.peak_bytes, 1024);
  /* A refused free leaves the block counted. */
  int local;
  assert_status(mr_deallocate(mr, &local, 8, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(read_stats(mr).current_count, 2);
  assert_ok(mr_deallocate(mr, a, 1000, 0, NULL));
  assert_ok(mr_deallocate(mr, b, 24, 4096, NULL));
  s = read_stats(mr);
  assert_int_equal(s.current_bytes, 0);
  assert_int_equal(s.current_count, 0);
  assert_int_equal(s.total_bytes, 1024);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_sync_forms_and_errors(void **state) {
  assert_checks_upstream_and_out("stats", mr_stats_resource_create);
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  void *p = NULL;
  assert_ok(mr_allocate_sync(mr, 300, 0, &p));
  assert_int_equal(read_stats(mr).current_bytes, 300);
  assert_ok(mr_deallocate_sync(mr, p, 300, 0));
  assert_int_equal(read_stats(mr).current_bytes, 0);
  mr_stats s;
  mr_stats_init(&s);
  assert_status(mr_stats_resource_get(u.mr, &s), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("faulty is not a stats resource");
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_threads_exact(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  long n = churn(mr, 8, 4000, 4096, true);
  mr_stats s = read_stats(mr);
  assert_int_equal(s.current_bytes, 0);
  assert_int_equal(s.current_count, 0);
  assert_int_equal(s.total_count, (uint64_t)n);
  assert_int_equal(s.total_bytes, churn_bytes());
  assert_int_equal(s.failed_count, 0);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

/* A thread's turn. It runs on other threads, where cmocka's checks must
 * not run (they longjmp into the test's own thread): the outcome is kept
 * in `st`, and the test checks it after the join. */
typedef struct turn {
  mr_resource *mr;
  size_t bytes;
  bool keep;
  void *p;
  mr_status st;
} turn;

static void *take_turn(void *arg) {
  turn *t = arg;
  t->st = mr_allocate(t->mr, t->bytes, 0, NULL, &t->p);
  if (t->st == MR_OK && !t->keep) t->st = mr_deallocate(t->mr, t->p, t->bytes, 0, NULL);
  return NULL;
}

/* Peaks, as stats.h promises them: exact for one thread; with threads that
 * take turns, lower than the true peak by at most 16 MiB per other thread
 * (here: one thread holds 10 MiB, another allocates and frees 15 MiB; the
 * true peak is 25 MiB). */
static void test_peaks_within_the_documented_bound(void **state) {
  const size_t mib = (size_t)1 << 20;
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  turn holder = {mr, 10 * mib, true, NULL, MR_OK}, visitor = {mr, 15 * mib, false, NULL, MR_OK};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, take_turn, &holder), 0);
  pthread_join(t, NULL);
  assert_ok(holder.st);
  assert_int_equal(pthread_create(&t, NULL, take_turn, &visitor), 0);
  pthread_join(t, NULL);
  assert_ok(visitor.st);
  mr_stats s = read_stats(mr);
  assert_int_equal(s.current_bytes, 10 * mib);
  assert_true(s.peak_bytes <= 25 * mib);
  assert_true(s.peak_bytes + 16 * mib >= 25 * mib);
  assert_ok(mr_deallocate(mr, holder.p, holder.bytes, 0, NULL));
  mr_resource_release(mr);
  /* One thread: exact. */
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  holder.mr = visitor.mr = mr;
  take_turn(&holder);
  assert_ok(holder.st);
  take_turn(&visitor);
  assert_ok(visitor.st);
  s = read_stats(mr);
  assert_int_equal(s.peak_bytes, 25 * mib);
  assert_ok(mr_deallocate(mr, holder.p, holder.bytes, 0, NULL));
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

/* ---- exact peaks: stats(UP, peak=exact) ------------------------------------- */

/* The case, with both threads alive: A allocates 10 MiB and holds
 * it while B allocates and frees 15 MiB; then A frees. The true peak is
 * 25 MiB, and 2 allocations. The steps are ordered by a condition
 * variable, not by time. */
typedef struct holder_case {
  mr_resource *mr, *visitor_mr; /* A's and B's resources */
  pthread_mutex_t lock;
  pthread_cond_t moved;
  int step; /* 1: A holds its block; 2: B is done; 3: A freed */
  void *a;
  /* The threads' failures, checked by the test after the joins (cmocka's
   * checks run on the test's thread only); a thread that fails still
   * takes its steps, so the other never waits for nothing. */
  _Atomic int failures;
} holder_case;

static void check_on_thread(holder_case *c, mr_status st) {
  if (st != MR_OK) {
    fprintf(stderr, "test_stats: %s: %s\n", mr_status_name(st), mr_last_error());
    atomic_fetch_add(&c->failures, 1);
  }
}

static void wait_for(holder_case *c, int step) {
  pthread_mutex_lock(&c->lock);
  while (c->step < step) pthread_cond_wait(&c->moved, &c->lock);
  pthread_mutex_unlock(&c->lock);
}

static void move_to(holder_case *c, int step) {
  pthread_mutex_lock(&c->lock);
  c->step = step;
  pthread_cond_broadcast(&c->moved);
  pthread_mutex_unlock(&c->lock);
}

static void *thread_a(void *arg) {
  holder_case *c = arg;
  mr_status st = mr_allocate(c->mr, 10 * MIB, 0, NULL, &c->a);
  check_on_thread(c, st);
  move_to(c, 1);
  wait_for(c, 2);
  if (st == MR_OK) check_on_thread(c, mr_deallocate(c->mr, c->a, 10 * MIB, 0, NULL));
  move_to(c, 3);
  return NULL;
}

static void *thread_b(void *arg) {
  holder_case *c = arg;
  wait_for(c, 1);
  void *b = NULL;
  mr_status st = mr_allocate(c->visitor_mr, 15 * MIB, 0, NULL, &b);
  check_on_thread(c, st);
  if (st == MR_OK) check_on_thread(c, mr_deallocate(c->visitor_mr, b, 15 * MIB, 0, NULL));
  move_to(c, 2);
  return NULL;
}

/* Runs the case: A allocates through `mr`, B through `visitor`, in two
 * live threads. */
static void hold_and_visit_on(mr_resource *mr, mr_resource *visitor) {
  holder_case c = {.mr = mr, .visitor_mr = visitor};
  pthread_mutex_init(&c.lock, NULL);
  pthread_cond_init(&c.moved, NULL);
  pthread_t a, b;
  assert_int_equal(pthread_create(&a, NULL, thread_a, &c), 0);
  assert_int_equal(pthread_create(&b, NULL, thread_b, &c), 0);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert_int_equal(c.step, 3);
  assert_int_equal(atomic_load(&c.failures), 0);
  pthread_cond_destroy(&c.moved);
  pthread_mutex_destroy(&c.lock);
}

static void hold_and_visit(mr_resource *mr) { hold_and_visit_on(mr, mr); }

static void assert_exact_case(const mr_stats *s) {
  assert_int_equal(s->peak_bytes, 25 * MIB);
  assert_int_equal(s->peak_count, 2);
  assert_int_equal(s->current_bytes, 0);
  assert_int_equal(s->total_bytes, 25 * MIB);
  assert_int_equal(s->total_count, 2);
}

static void test_exact_peak_across_threads(void **state) {
  mr_resource *host = NULL;
  assert_ok(mr_host_resource_create(&host));
  /* The C constructor. */
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create_peak(host, MR_STATS_PEAK_EXACT, &mr));
  assert_describes(mr, "stats(host, peak=exact)");
  hold_and_visit(mr);
  mr_stats s = read_stats(mr);
  assert_exact_case(&s);
  mr_resource_release(mr);

  /* The spec builds the same object, and describes it the same way. */
  assert_ok(mr_resource_from_spec("stats(host, peak=exact)", 0, &mr));
  assert_describes(mr, "stats(host, peak=exact)");
  hold_and_visit(mr);
  s = read_stats(mr);
  assert_exact_case(&s);
  mr_resource_release(mr);

  /* A context's tag whose spec asks for it: the tag's statistics too. */
  static const mr_tag tags[] = {{"result", "host"}};
  mr_context_desc desc = {.size = sizeof desc,
                          .library = "peaks",
                          .tags = tags,
                          .tag_count = 1,
                          .overrides = "result=stats(host, peak=exact)"};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  hold_and_visit(mr_context_get_mr(ctx, 0));
  mr_stats_init(&s);
  assert_ok(mr_context_get_stats(ctx, 0, -1, &s));
  assert_exact_case(&s);
  /* At no further cost: the tag's wrapper reads the peaks its spec's
   * stats(...) keeps instead of keeping a second set. */
  bool alone = false;
  mr_resource *wrapper = mr_context_get_mr(ctx, 0);
  assert_non_null(mri_stats_exact_below(wrapper, &alone));
  assert_ptr_equal(mri_stats_exact_below(wrapper, &alone),
                   mri_stats_exact_below(mr_resource_upstream(wrapper), &alone));
  assert_true(alone);
  mr_context_destroy(ctx);

  /* Two tags on one instance (b=@a): the instance sees both, and each
   * tag's statistics only its own. */
  static const mr_tag two[] = {{"a", "host"}, {"b", "host"}};
  desc.tags = two;
  desc.tag_count = 2;
  desc.overrides = "a=stats(host, peak=exact)\nb=@a";
  assert_ok(mr_context_create(&desc, &ctx));
  hold_and_visit_on(mr_context_get_mr(ctx, 0), mr_context_get_mr(ctx, 1));
  assert_ok(mr_context_get_stats(ctx, 0, -1, &s));
  assert_int_equal(s.peak_bytes, 10 * MIB);
  assert_ok(mr_context_get_stats(ctx, 1, -1, &s));
  assert_int_equal(s.peak_bytes, 15 * MIB);
  /* Here each wrapper keeps its own. */
  assert_ptr_not_equal(mri_stats_exact_below(mr_context_get_mr(ctx, 0), &alone),
                       mri_stats_exact_below(mr_context_get_mr(ctx, 1), &alone));
  /* The instance below the wrappers: both tags' allocations. */
  mr_resource *inner = mr_resource_upstream(mr_context_get_mr(ctx, 0));
  assert_string_equal(mr_resource_name(inner), "stats");
  s = read_stats(inner);
  assert_int_equal(s.peak_bytes, 25 * MIB);
  mr_context_destroy(ctx);
  mr_resource_release(host);
}

static void test_peak_choice(void **state) {
  mr_resource *host = NULL;
  assert_ok(mr_host_resource_create(&host));
  mr_resource *mr = NULL;
  /* The default, said or not, describes itself as the default. */
  assert_ok(mr_resource_from_spec("stats(host, peak=sharded)", 0, &mr));
  assert_describes(mr, "stats(host)");
  mr_resource_release(mr);
  assert_ok(mr_stats_resource_create_peak(host, MR_STATS_PEAK_SHARDED, &mr));
  assert_describes(mr, "stats(host)");
  mr_resource_release(mr);
  /* Anything else is refused, saying what may be given. */
  assert_status(mr_resource_from_spec("stats(host, peak=precise)", 0, &mr), MR_ERR_CONFIG);
  assert_error_contains("exact");
  assert_null(mr);
  assert_status(mr_stats_resource_create_peak(host, (mr_stats_peak)7, &mr),
                MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("MR_STATS_PEAK_EXACT");
  assert_null(mr);
  assert_status(mr_stats_resource_create_peak(NULL, MR_STATS_PEAK_EXACT, &mr),
                MR_ERR_INVALID_ARGUMENT);
  /* The exact adaptor is a stats adaptor like the other. */
  assert_ok(mr_stats_resource_create_peak(host, MR_STATS_PEAK_EXACT, &mr));
  assert_string_equal(mr_resource_name(mr), "stats");
  assert_inherits_props(mr, host, 0);
  void *p = NULL;
  assert_ok(mr_allocate_sync(mr, 100, 0, &p));
  mr_stats s = read_stats(mr);
  assert_int_equal(s.peak_bytes, 100);
  assert_ok(mr_deallocate_sync(mr, p, 100, 0));
  s = read_stats(mr);
  assert_int_equal(s.current_bytes, 0);
  assert_int_equal(s.peak_bytes, 100);
  mr_resource_release(mr);
  mr_resource_release(host);
}

/* Many threads: the exact peak is never below what one thread alone held
 * at once (churn keeps up to 16 blocks live per thread, and fills all 16),
 * never above what all of them could hold, and the counts add up. */
static void test_exact_peak_many_threads(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create_peak(u.mr, MR_STATS_PEAK_EXACT, &mr));
  long n = churn(mr, 8, 4000, 4096, true);
  mr_stats s = read_stats(mr);
  assert_int_equal(s.current_bytes, 0);
  assert_int_equal(s.total_count, (uint64_t)n);
  assert_int_equal(s.total_bytes, churn_bytes());
  assert_true(s.peak_count >= 16 && s.peak_count <= 8 * 16);
  assert_true(s.peak_bytes <= 8 * 16 * 4096);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

/* mr_stats_resource_reset_peak, on both ways of keeping peaks, and on what
 * is not a stats resource. */
static void test_reset_peak(void **state) {
  faulty_upstream u = faulty_new(false);
  for (int exact = 0; exact < 2; exact++) {
    mr_resource *mr = NULL;
    assert_ok(mr_stats_resource_create_peak(
        u.mr, exact ? MR_STATS_PEAK_EXACT : MR_STATS_PEAK_SHARDED, &mr));
    void *a = NULL, *b = NULL, *c = (void *)1;
    assert_ok(mr_allocate(mr, 20 * MIB, 0, NULL, &a));
    assert_ok(mr_allocate(mr, 5 * MIB, 0, NULL, &b));
    assert_ok(mr_deallocate(mr, a, 20 * MIB, 0, NULL));
    faulty_set_fail(u.f, faulty_allocations(u.f) + 1, 1);
    assert_status(mr_allocate(mr, 5, 0, NULL, &c), MR_ERR_OUT_OF_MEMORY);
    mr_stats s = read_stats(mr);
    assert_int_equal(s.peak_bytes, 25 * MIB);
    assert_ok(mr_stats_resource_reset_peak(mr));
    s = read_stats(mr);
    assert_int_equal(s.peak_bytes, 5 * MIB);
    assert_int_equal(s.peak_count, 1);
    assert_int_equal(s.current_bytes, 5 * MIB);
    assert_int_equal(s.total_bytes, 25 * MIB);
    assert_int_equal(s.total_count, 2);
    assert_int_equal(s.failed_count, 1);
    /* A batch-size search: reset, run a step, read its peak. */
    for (size_t step = 1; step <= 4; step++) {
      assert_ok(mr_stats_resource_reset_peak(mr));
      assert_ok(mr_allocate(mr, step * MIB, 0, NULL, &a));
      assert_ok(mr_deallocate(mr, a, step * MIB, 0, NULL));
      s = read_stats(mr);
      assert_int_equal(s.peak_bytes, 5 * MIB + step * MIB);
      assert_int_equal(s.peak_count, 2);
    }
    assert_ok(mr_deallocate(mr, b, 5 * MIB, 0, NULL));
    assert_ok(mr_stats_resource_reset_peak(mr));
    assert_int_equal(read_stats(mr).peak_bytes, 0);
    mr_resource_release(mr);
  }
  /* Not a stats resource. */
  assert_status(mr_stats_resource_reset_peak(u.mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_stats_resource_reset_peak: faulty is not a stats resource");
  assert_status(mr_stats_resource_reset_peak(NULL), MR_ERR_INVALID_ARGUMENT);
  mr_resource_release(u.mr);
}

/* Resets while threads churn: the counts stay exact. The resetting
 * thread has made its first reset before the churn starts (the test waits
 * for it: an event, not a time) and goes on until the churn is over; its
 * failures are counted for the test's thread to check. */
typedef struct reset_loop {
  mr_resource *mr;
  _Atomic int running;
  _Atomic long resets, failures;
  pthread_mutex_t lock;
  pthread_cond_t first;
} reset_loop;

static void *resetting(void *arg) {
  reset_loop *r = arg;
  do {
    if (mr_stats_resource_reset_peak(r->mr) != MR_OK) atomic_fetch_add(&r->failures, 1);
    if (atomic_fetch_add(&r->resets, 1) == 0) {
      pthread_mutex_lock(&r->lock);
      pthread_cond_broadcast(&r->first);
      pthread_mutex_unlock(&r->lock);
    }
  } while (atomic_load(&r->running));
  return NULL;
}

static void test_reset_peak_while_allocating(void **state) {
  faulty_upstream u = faulty_new(false);
  for (int exact = 0; exact < 2; exact++) {
    mr_resource *mr = NULL;
    assert_ok(mr_stats_resource_create_peak(
        u.mr, exact ? MR_STATS_PEAK_EXACT : MR_STATS_PEAK_SHARDED, &mr));
    reset_loop r = {.mr = mr, .running = 1};
    pthread_mutex_init(&r.lock, NULL);
    pthread_cond_init(&r.first, NULL);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, resetting, &r), 0);
    pthread_mutex_lock(&r.lock);
    while (atomic_load(&r.resets) == 0) pthread_cond_wait(&r.first, &r.lock);
    pthread_mutex_unlock(&r.lock);
    long n = churn(mr, 4, 2000, 4096, true);
    atomic_store(&r.running, 0);
    pthread_join(t, NULL);
    pthread_cond_destroy(&r.first);
    pthread_mutex_destroy(&r.lock);
    assert_int_equal(atomic_load(&r.failures), 0);
    mr_stats s = read_stats(mr);
    assert_int_equal(s.current_bytes, 0);
    assert_int_equal(s.total_count, (uint64_t)n);
    assert_int_equal(s.total_bytes, churn_bytes());
    /* Each thread holds at most 16 blocks of at most 4096 bytes. */
    assert_true(s.peak_count <= 4 * 16 + (exact ? 0 : 4 * 256));
    assert_ok(mr_stats_resource_reset_peak(mr));
    assert_int_equal(read_stats(mr).peak_bytes, 0);
    mr_resource_release(mr);
  }
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(u.mr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_peaks_within_the_documented_bound),
      cmocka_unit_test(test_describe_props_and_edges),
      cmocka_unit_test(test_counts_and_failures),
      cmocka_unit_test(test_sync_forms_and_errors),
      cmocka_unit_test(test_threads_exact),
      cmocka_unit_test(test_exact_peak_across_threads),
      cmocka_unit_test(test_peak_choice),
      cmocka_unit_test(test_exact_peak_many_threads),
      cmocka_unit_test(test_reset_peak),
      cmocka_unit_test(test_reset_peak_while_allocating),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
