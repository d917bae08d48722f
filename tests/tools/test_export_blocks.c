/*
 * test_export_blocks.c: the blocks `mrctx export` sees in snapshots
 * (tools/mrctx/export_blocks.c): which listings are the same block, and
 * what noting them costs, counted (export_blocks.compared), not timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "export_blocks.h"

#define SECOND 1000000000ULL
#define MS 1000000ULL

static mr_snapshot_block listing(uint64_t ptr, uint64_t age_ns) {
  return (mr_snapshot_block){.size = sizeof(mr_snapshot_block),
                             .library = "solver",
                             .tag = "results",
                             .device = 0,
                             .ptr = ptr,
                             .bytes = 4096,
                             .alignment = 256,
                             .age_ns = age_ns};
}

static void note(export_blocks *set, mr_snapshot_block b, uint64_t now_ns) {
  assert_int_equal(export_blocks_note(set, &b, now_ns), EXPORT_BLOCKS_OK);
}

/* 128k blocks in one snapshot, and again in a later one (their ages a
 * second longer, half of them measured 0.6 ms off): each listing costs a
 * few comparisons. A scan of the blocks seen made 2^33 of them here (25 s
 * for the one snapshot). */
static void test_cost_does_not_grow_with_the_blocks(void **state) {
  (void)state;
  enum { N = 1 << 17 };
  const uint64_t first = 1767225600 * SECOND, later = first + SECOND;
  export_blocks set = {0};
  for (uint64_t i = 0; i < N; i++) note(&set, listing(0x7f0000000000 + 512 * i, 1000 * i), first);
  for (uint64_t i = 0; i < N; i++)
    note(&set, listing(0x7f0000000000 + 512 * i, 1000 * i + SECOND + (i % 2 ? 600000 : 0)), later);
  assert_int_equal(set.count, N);
  for (size_t i = 0; i < N; i++) {
    assert_int_equal(set.items[i].born_ns, first - 1000 * i);
    assert_int_equal(set.items[i].last_ns, later);
  }
  /* Three lookups a listing, at most half the slots full. */
  assert_true(set.compared <= 8 * (uint64_t)(2 * N));
  export_blocks_free(&set);
}

/* Less than a millisecond apart is the same block, across a millisecond's
 * edge too; a millisecond or more is another. */
static void test_same_block_within_a_millisecond(void **state) {
  (void)state;
  const uint64_t now = 100 * SECOND;
  export_blocks set = {0};
  note(&set, listing(0x1000, now - 2 * MS + 1), now);                   /* born at 2 ms - 1 ns */
  note(&set, listing(0x1000, now + SECOND - 2 * MS - 1), now + SECOND); /* 2 ns later */
  assert_int_equal(set.count, 1);
  assert_int_equal(set.items[0].last_ns, now + SECOND);
  note(&set, listing(0x1000, now + 2 * SECOND - 2 * MS + 1 - (MS - 1)), now + 2 * SECOND);
  assert_int_equal(set.count, 1); /* MS - 1 apart */
  note(&set, listing(0x1000, now + 3 * SECOND - 2 * MS + 1 - MS), now + 3 * SECOND);
  assert_int_equal(set.count, 2); /* MS apart: allocated again */
  assert_int_equal(set.items[0].last_ns, now + 2 * SECOND);
  assert_int_equal(set.items[1].born_ns, 3 * MS - 1);
  export_blocks_free(&set);
}

/* Another place, size, device, library or tag is another block. */
static void test_place_and_owner(void **state) {
  (void)state;
  const uint64_t now = 100 * SECOND;
  export_blocks set = {0};
  mr_snapshot_block b = listing(0x1000, SECOND);
  note(&set, b, now);
  b.ptr = 0x2000;
  note(&set, b, now);
  b = listing(0x1000, SECOND);
  b.bytes = 8192;
  note(&set, b, now);
  b = listing(0x1000, SECOND);
  b.device = 1;
  note(&set, b, now);
  b = listing(0x1000, SECOND);
  b.library = "codec";
  note(&set, b, now);
  b = listing(0x1000, SECOND);
  b.tag = "temp";
  note(&set, b, now);
  assert_int_equal(set.count, 6);
  note(&set, listing(0x1000, SECOND), now); /* the first again */
  assert_int_equal(set.count, 6);
  export_blocks_free(&set);
}

/* A listing near two blocks of its place is the one seen first. */
static void test_first_seen_of_two(void **state) {
  (void)state;
  const uint64_t now = 100 * SECOND;
  export_blocks set = {0};
  note(&set, listing(0x1000, now - 11200000), now); /* born at 11.2 ms */
  note(&set, listing(0x1000, now - 10000000), now); /* at 10.0 ms: another */
  assert_int_equal(set.count, 2);
  note(&set, listing(0x1000, now + SECOND - 10600000), now + SECOND); /* 10.6: both near */
  assert_int_equal(set.count, 2);
  assert_int_equal(set.items[0].last_ns, now + SECOND);
  assert_int_equal(set.items[1].last_ns, now);
  export_blocks_free(&set);
}

/* A block first listed without its call site takes the first one given. */
static void test_call_site_from_a_later_listing(void **state) {
  (void)state;
  const uint64_t now = 100 * SECOND;
  export_blocks set = {0};
  note(&set, listing(0x1000, SECOND), now);
  assert_int_equal(set.items[0].frame_count, 0);
  const char *const frames[] = {"solver_factor+0x5c (/usr/lib/libsolver.so)", "main+0x9e (app)"};
  mr_snapshot_block b = listing(0x1000, 2 * SECOND);
  b.frames = frames;
  b.frame_count = 2;
  note(&set, b, now + SECOND);
  assert_int_equal(set.items[0].frame_count, 2);
  assert_string_equal(set.items[0].frames[1], "main+0x9e (app)");
  export_blocks_free(&set);
}

/* Times at the ends of the range: born at 0 and at 2^64 - 1 ns; older
 * than its snapshot's clock is refused. */
static void test_extreme_times(void **state) {
  (void)state;
  export_blocks set = {0};
  note(&set, listing(0x1000, UINT64_MAX), UINT64_MAX);
  note(&set, listing(0x2000, 0), UINT64_MAX);
  note(&set, listing(0x3000, 0), 0);
  note(&set, listing(0x4000, (uint64_t)INT64_MAX + 1), (uint64_t)INT64_MAX + 1);
  assert_int_equal(set.count, 4);
  assert_int_equal(set.items[0].born_ns, 0);
  assert_int_equal(set.items[1].born_ns, UINT64_MAX);
  assert_int_equal(set.items[3].born_ns, 0);
  mr_snapshot_block b = listing(0x5000, (uint64_t)INT64_MAX + 1);
  assert_int_equal(export_blocks_note(&set, &b, INT64_MAX), EXPORT_BLOCKS_TOO_OLD);
  b = listing(0x5000, 1);
  assert_int_equal(export_blocks_note(&set, &b, 0), EXPORT_BLOCKS_TOO_OLD);
  assert_int_equal(set.count, 4);
  export_blocks_free(&set);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cost_does_not_grow_with_the_blocks),
      cmocka_unit_test(test_same_block_within_a_millisecond),
      cmocka_unit_test(test_place_and_owner),
      cmocka_unit_test(test_first_seen_of_two),
      cmocka_unit_test(test_call_site_from_a_later_listing),
      cmocka_unit_test(test_extreme_times),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
