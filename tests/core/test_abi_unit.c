/*
 * test_abi_unit.c: the versioned-struct rules of docs/abi.md, seen from a
 * program built against an older or a newer header.
 *
 * A "newer header" is simulated by a struct that embeds today's and appends
 * a field; an "older" one by a size that stops before the last field (for
 * the structs whose oldest release is shorter) or by a size below any
 * release (refused). Only the public API is used, as a program would.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test_util.h"

#define FUTURE_FILL 0xA5A5A5A5A5A5A5A5ULL

static mr_resource *host(void) {
  mr_resource *mr = NULL;
  assert_ok(mr_host_resource_create(&mr));
  return mr;
}

/* ---- structs the library fills --------------------------------------------- */

typedef struct newer_props {
  mr_resource_props known;
  uint64_t future; /* a field some later release appends */
} newer_props;

static void test_fill_for_a_newer_header(void **state) {
  (void)state;
  mr_resource *mr = host();
  newer_props p;
  memset(&p, 0xff, sizeof p);
  p.known.size = sizeof p;
  assert_ok(mr_resource_get_props(mr, &p.known));
  /* Filled as far as this library knows; the rest zeroed, and the size
   * says where this library's struct ends. */
  assert_int_equal(p.known.size, sizeof(mr_resource_props));
  assert_int_equal(p.known.kind, MR_MEMORY_HOST);
  assert_int_equal(p.known.device, -1);
  assert_int_equal(p.future, 0);
  mr_resource_release(mr);
}

static void test_fill_refuses_sizes_no_release_had(void **state) {
  (void)state;
  mr_resource *mr = host();
  mr_resource_props props = {.size = 0};
  assert_status(mr_resource_get_props(mr, &props), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_resource_props.size is 0");
  assert_error_contains("sizeof(mr_resource_props)");
  /* Nothing was written. */
  assert_int_equal(props.size, 0);
  assert_int_equal(props.kind, 0);

  props.size = offsetof(mr_resource_props, native_alignment);
  assert_status(mr_resource_get_props(mr, &props), MR_ERR_INVALID_ARGUMENT);

  /* A size no header could give (an unset field): refused, not read. */
  props.size = (size_t)1 << 40;
  assert_status(mr_resource_get_props(mr, &props), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("not a size this struct can have");
  mr_resource_release(mr);
}

/* ---- structs the library reads ------------------------------------------- */

static mr_status nop_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                              void **ptr) {
  (void)self, (void)alignment, (void)stream;
  *ptr = malloc(bytes);
  return *ptr != NULL ? MR_OK : mr_error(MR_ERR_OUT_OF_MEMORY, "nop: out of memory");
}

static mr_status nop_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                mr_stream stream) {
  (void)self, (void)bytes, (void)alignment, (void)stream;
  free(ptr);
  return MR_OK;
}

static const mr_resource_ops nop_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "nop",
    .allocate = nop_allocate,
    .deallocate = nop_deallocate,
};

static void test_read_from_a_newer_header(void **state) {
  (void)state;
  newer_props p;
  memset(&p, 0, sizeof p);
  p.known.size = sizeof p;
  p.known.kind = MR_MEMORY_PINNED;
  p.known.device = 2;
  p.known.native_alignment = 512;
  mr_resource *mr = NULL;
  /* Fields this library does not know, left zero: accepted. */
  assert_ok(mr_resource_create(&nop_ops, NULL, &p.known, &mr));
  mr_resource_props got = {.size = sizeof got};
  assert_ok(mr_resource_get_props(mr, &got));
  assert_int_equal(got.kind, MR_MEMORY_PINNED);
  assert_int_equal(got.device, 2);
  assert_int_equal(got.native_alignment, 512);
  mr_resource_release(mr);

  /* ... set: the program asks for something this library cannot do. */
  p.future = FUTURE_FILL;
  assert_status(mr_resource_create(&nop_ops, NULL, &p.known, &mr), MR_ERR_UNSUPPORTED);
  assert_error_contains("newer header");
  assert_null(mr);
}

static void test_read_refuses_missing_size(void **state) {
  (void)state;
  static const mr_tag tags[] = {{"temp", "host"}};
  mr_context_desc desc = {.library = "abi", .tags = tags, .tag_count = 1}; /* no size */
  mr_context *ctx = NULL;
  assert_status(mr_context_create(&desc, &ctx), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_context_create: mr_context_desc.size is 0");
  assert_error_contains("sizeof(mr_context_desc)");
  assert_null(ctx);

  desc.size = sizeof desc;
  assert_ok(mr_context_create(&desc, &ctx));
  mr_context_destroy(ctx);

  mr_resource_props props = {.kind = MR_MEMORY_HOST}; /* no size */
  mr_resource *mr = NULL;
  assert_status(mr_resource_create(&nop_ops, NULL, &props, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
}

typedef struct newer_desc {
  mr_context_desc known;
  const char *future;
} newer_desc;

static void test_context_desc_from_a_newer_header(void **state) {
  (void)state;
  static const mr_tag tags[] = {{"temp", "host"}, {"result", "stats(host)"}};
  newer_desc d;
  memset(&d, 0, sizeof d);
  d.known = (mr_context_desc){.size = sizeof d, .library = "abi", .tags = tags, .tag_count = 2,
                              .overrides = "result=host"};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&d.known, &ctx));
  assert_string_equal(mr_resource_describe(mr_context_get_mr(ctx, 1)), "host");
  mr_context_destroy(ctx);

  d.future = "something new";
  assert_status(mr_context_create(&d.known, &ctx), MR_ERR_UNSUPPORTED);
  assert_null(ctx);
}

/* ---- the context's sources and ignored entries ------------------------------ */

typedef struct newer_source {
  mr_spec_source known;
  uint64_t future;
} newer_source;

static void test_sources_and_ignored_entries(void **state) {
  (void)state;
  static const mr_tag tags[] = {{"temp", "host"}};
  /* Device 3 is past every device a unit test sees: the entry is ignored. */
  mr_context_desc desc = {.size = sizeof desc, .library = "abi", .tags = tags, .tag_count = 1,
                          .overrides = "temp=stats(host)\ntemp@3=host"};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));

  newer_source s;
  memset(&s, 0xff, sizeof s);
  s.known.size = sizeof s;
  assert_ok(mr_context_get_source(ctx, 0, 0, &s.known));
  assert_int_equal(s.known.size, sizeof(mr_spec_source));
  assert_int_equal(s.known.origin, MR_SPEC_OVERRIDE);
  assert_string_equal(s.known.spec, "stats(host)");
  assert_int_equal(s.known.line, 1);
  assert_int_equal(s.future, 0);

  mr_spec_source unsized;
  memset(&unsized, 0, sizeof unsized);
  assert_status(mr_context_get_source(ctx, 0, 0, &unsized), MR_ERR_INVALID_ARGUMENT);

  assert_int_equal(mr_context_ignored_count(ctx), 1);
  mr_ignored_entry e = {.size = sizeof e};
  assert_ok(mr_context_get_ignored(ctx, 0, &e));
  assert_string_equal(e.tag, "temp");
  assert_int_equal(e.device, 3);
  /* The source belongs to the context and is this library's struct. */
  assert_non_null(e.source);
  assert_int_equal(e.source->size, sizeof(mr_spec_source));
  assert_int_equal(e.source->origin, MR_SPEC_OVERRIDE);
  assert_int_equal(e.source->line, 2);
  assert_string_equal(e.source->spec, "host");
  assert_int_equal(e.source->status, MR_OK);

  mr_ignored_entry bad = {.size = 1};
  assert_status(mr_context_get_ignored(ctx, 0, &bad), MR_ERR_INVALID_ARGUMENT);
  mr_context_destroy(ctx);
}

/* ---- statistics ----------------------------------------------------------- */

static void test_stats_of_different_sizes(void **state) {
  (void)state;
  mr_stats a, b;
  mr_stats_init(&a);
  mr_stats_init(&b);
  b.total_bytes = 10;
  b.failed_count = 3;
  mr_stats_add(&a, &b);
  assert_int_equal(a.total_bytes, 10);
  assert_int_equal(a.failed_count, 3);

  /* A struct from a release that ended before failed_count: that field is
   * neither read from it nor written into it. */
  mr_stats older;
  mr_stats_init(&older);
  older.size = offsetof(mr_stats, failed_count);
  older.failed_count = 99; /* past its size: not the caller's memory */
  mr_stats_add(&older, &b);
  assert_int_equal(older.total_bytes, 10);
  assert_int_equal(older.failed_count, 99);
  mr_stats_add(&a, &older);
  assert_int_equal(a.total_bytes, 20);
  assert_int_equal(a.failed_count, 3);

  char buf[512] = {0};
  FILE *f = fmemopen(buf, sizeof buf, "w");
  assert_non_null(f);
  assert_status(mr_stats_write_json(&older, f), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_stats_write_json(&a, f));
  fclose(f);
  assert_non_null(strstr(buf, "\"failed_count\": 3"));

  /* Filled for a newer header: zero past this library's fields. */
  struct {
    mr_stats known;
    uint64_t future;
  } newer;
  memset(&newer, 0xff, sizeof newer);
  newer.known.size = sizeof newer;
  mr_resource *inner = host();
  mr_resource *stats = NULL;
  assert_ok(mr_stats_resource_create(inner, &stats));
  mr_resource_release(inner);
  void *p = NULL;
  assert_ok(mr_allocate(stats, 100, 0, NULL, &p));
  assert_ok(mr_stats_resource_get(stats, &newer.known));
  assert_int_equal(newer.known.size, sizeof(mr_stats));
  assert_int_equal(newer.known.current_bytes, 100);
  assert_int_equal(newer.future, 0);
  assert_ok(mr_deallocate(stats, p, 100, 0, NULL));
  mr_resource_release(stats);
}

static void test_cache_stats_for_a_newer_header(void **state) {
  (void)state;
  mr_resource *inner = host();
  mr_resource *cache = NULL;
  assert_ok(mr_cache_resource_create(inner, 0, &cache));
  mr_resource_release(inner);
  struct {
    mr_cache_stats known;
    uint64_t future;
  } newer;
  memset(&newer, 0xff, sizeof newer);
  newer.known.size = sizeof newer;
  assert_ok(mr_cache_resource_get_stats(cache, &newer.known));
  assert_int_equal(newer.known.size, sizeof(mr_cache_stats));
  assert_int_equal(newer.known.hits, 0);
  assert_int_equal(newer.future, 0);
  mr_cache_stats unsized = {.size = 0};
  assert_status(mr_cache_resource_get_stats(cache, &unsized), MR_ERR_INVALID_ARGUMENT);
  mr_resource_release(cache);
}

static void remember_size(void *user, const mr_track_record *rec) {
  *(size_t *)user = rec->size;
}

static void test_track_record_says_its_size(void **state) {
  (void)state;
  mr_resource *inner = host();
  mr_resource *track = NULL;
  assert_ok(mr_track_resource_create(inner, &track));
  mr_resource_release(inner);
  void *p = NULL;
  assert_ok(mr_allocate(track, 64, 0, NULL, &p));
  size_t seen = 0, count = 0;
  assert_ok(mr_track_resource_foreach(track, remember_size, &seen, &count));
  assert_int_equal(count, 1);
  assert_int_equal(seen, sizeof(mr_track_record));
  assert_ok(mr_deallocate(track, p, 64, 0, NULL));
  mr_resource_release(track);
}

static void test_pool_desc_init_sets_the_size(void **state) {
  (void)state;
  mr_pool_desc desc;
  memset(&desc, 0xff, sizeof desc);
  mr_pool_desc_init(&desc, MR_POOL_PINNED);
  assert_int_equal(desc.size, sizeof desc);
  assert_int_equal(desc.kind, MR_POOL_PINNED);
  assert_int_equal(desc.release_threshold, MR_POOL_RELEASE_MAX);
  assert_int_equal(desc.max_size, 0);
  assert_int_equal(desc.initial_size, 0);
  assert_int_equal(desc.access, MR_POOL_ACCESS_ALL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fill_for_a_newer_header),
      cmocka_unit_test(test_fill_refuses_sizes_no_release_had),
      cmocka_unit_test(test_read_from_a_newer_header),
      cmocka_unit_test(test_read_refuses_missing_size),
      cmocka_unit_test(test_context_desc_from_a_newer_header),
      cmocka_unit_test(test_sources_and_ignored_entries),
      cmocka_unit_test(test_stats_of_different_sizes),
      cmocka_unit_test(test_cache_stats_for_a_newer_header),
      cmocka_unit_test(test_track_record_says_its_size),
      cmocka_unit_test(test_pool_desc_init_sets_the_size),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
