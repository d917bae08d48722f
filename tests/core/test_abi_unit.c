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

/* docs/abi.md's numbers, as a program reads them there. */
#define ABI_GROWTH ((size_t)4096) /* how far past the library's struct a size may be */
#define SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
#define LENGTH_OF(a) (sizeof(a) / sizeof((a)[0]))

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
  d.known = (mr_context_desc){
      .size = sizeof d, .library = "abi", .tags = tags, .tag_count = 2, .overrides = "result=host"};
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
  /* Device 99 is past every device a test sees: the entry is ignored. */
  mr_context_desc desc = {.size = sizeof desc,
                          .library = "abi",
                          .tags = tags,
                          .tag_count = 1,
                          .overrides = "temp=stats(host)\ntemp@99=host"};
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
  assert_int_equal(e.device, 99);
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

static void remember_size(void *user, const mr_track_record *rec) { *(size_t *)user = rec->size; }

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

/* ---- every call that fills a struct: one checklist ----------------------- */

/* The sizes docs/abi.md promises to handle, tried on one call. `fill` calls
 * the API with `out`, a struct of the type `type` whose size field is set.
 * Each buffer is a heap block of exactly the bytes the caller claims to own
 * (or fewer, for the refused sizes), so under AddressSanitizer any write
 * past it is reported, and without it the untouched bytes are checked. */
typedef mr_status (*fill_fn)(void *user, void *out);

#define GARBAGE_SIZE ((size_t)0xBEBEBEBEBEBEBEBEULL) /* an uninitialised size */

static void *block_of(size_t bytes, size_t size_field, unsigned char fill) {
  unsigned char *p = malloc(bytes);
  assert_non_null(p);
  memset(p, fill, bytes);
  memcpy(p, &size_field, sizeof size_field);
  return p;
}

static size_t size_of_block(const void *p) {
  size_t size;
  memcpy(&size, p, sizeof size);
  return size;
}

/* `known`: this library's sizeof; `oldest`: the oldest release's size. */
static void check_fill(const char *type, size_t known, size_t oldest, fill_fn fill, void *user) {
  char expect[128];
  /* 4097 bytes too large: an unset field, refused; nothing written. */
  unsigned char *p = block_of(known, known + ABI_GROWTH + 1, 0x5a);
  assert_status(fill(user, p), MR_ERR_INVALID_ARGUMENT);
  snprintf(expect, sizeof expect, "%s.size is %zu", type, known + ABI_GROWTH + 1);
  assert_error_contains(expect);
  assert_int_equal(size_of_block(p), known + ABI_GROWTH + 1);
  for (size_t i = sizeof(size_t); i < known; i++) assert_int_equal(p[i], 0x5a);
  free(p);

  /* An uninitialised size, and sizes below the oldest release. */
  size_t refused[] = {GARBAGE_SIZE, SIZE_MAX, 0, sizeof(size_t), oldest - 1};
  for (size_t k = 0; k < LENGTH_OF(refused); k++) {
    p = block_of(known, refused[k], 0x5a);
    assert_status(fill(user, p), MR_ERR_INVALID_ARGUMENT);
    snprintf(expect, sizeof expect, "sizeof(%s)", type);
    assert_error_contains(expect);
    assert_int_equal(size_of_block(p), refused[k]);
    for (size_t i = sizeof(size_t); i < known; i++) assert_int_equal(p[i], 0x5a);
    free(p);
  }

  /* The oldest release's struct: accepted, filled as far as it goes. */
  p = block_of(oldest, oldest, 0x5a);
  assert_ok(fill(user, p));
  assert_int_equal(size_of_block(p), oldest);
  free(p);

  /* A newer header's struct, as far as the limit: filled as far as this
   * library knows, the rest zeroed, the size says what was filled. */
  size_t newer[] = {known + sizeof(uint64_t), known + ABI_GROWTH};
  for (size_t k = 0; k < LENGTH_OF(newer); k++) {
    p = block_of(newer[k], newer[k], 0xff);
    assert_ok(fill(user, p));
    assert_int_equal(size_of_block(p), known);
    for (size_t i = known; i < newer[k]; i++) assert_int_equal(p[i], 0);
    free(p);
  }

  /* This header's own struct. */
  p = block_of(known, known, 0xff);
  assert_ok(fill(user, p));
  assert_int_equal(size_of_block(p), known);
  free(p);
}

static mr_status fill_props(void *user, void *out) { return mr_resource_get_props(user, out); }

static mr_status fill_source(void *user, void *out) {
  return mr_context_get_source(user, 0, 0, out);
}

static mr_status fill_ignored(void *user, void *out) {
  return mr_context_get_ignored(user, 0, out);
}

static mr_status fill_context_stats(void *user, void *out) {
  return mr_context_get_stats(user, 0, -1, out);
}

static mr_status fill_context_stats_one_device(void *user, void *out) {
  return mr_context_get_stats(user, 0, 0, out);
}

static mr_status fill_resource_stats(void *user, void *out) {
  return mr_stats_resource_get(user, out);
}

static mr_status fill_cache_stats(void *user, void *out) {
  return mr_cache_resource_get_stats(user, out);
}

static mr_status fill_snapshot_info(void *user, void *out) {
  return mr_snapshot_get_info(user, out);
}

#define CHECK_FILL(type, oldest_field, fill, user) \
  check_fill(#type, sizeof(type), SIZE_THROUGH(type, oldest_field), (fill), (user))

static void test_every_filled_struct(void **state) {
  (void)state;
  mr_resource *mr = host();
  CHECK_FILL(mr_resource_props, native_alignment, fill_props, mr);

  static const mr_tag tags[] = {{"temp", "stats(host)"}};
  mr_context_desc desc = {.size = sizeof desc,
                          .library = "abi",
                          .tags = tags,
                          .tag_count = 1,
                          .overrides = "temp@99=host"};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  void *p = NULL;
  assert_ok(mr_allocate(mr_context_get_mr(ctx, 0), 100, 0, NULL, &p));
  CHECK_FILL(mr_spec_source, reason, fill_source, ctx);
  CHECK_FILL(mr_ignored_entry, source, fill_ignored, ctx);
  CHECK_FILL(mr_stats, failed_count, fill_context_stats, ctx);
  CHECK_FILL(mr_stats, failed_count, fill_context_stats_one_device, ctx);
  /* What was filled is right. */
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_context_get_stats(ctx, 0, -1, &s));
  assert_int_equal(s.current_bytes, 100);
  assert_int_equal(s.total_count, 1);
  assert_ok(mr_deallocate(mr_context_get_mr(ctx, 0), p, 100, 0, NULL));

  mr_resource *stats = NULL;
  assert_ok(mr_stats_resource_create(mr, &stats));
  CHECK_FILL(mr_stats, failed_count, fill_resource_stats, stats);
  mr_resource_release(stats);

  mr_resource *cache = NULL;
  assert_ok(mr_cache_resource_create(mr, 0, &cache));
  CHECK_FILL(mr_cache_stats, trims, fill_cache_stats, cache);
  mr_resource_release(cache);

  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_take(NULL, &snap));
  CHECK_FILL(mr_snapshot_info, context_count, fill_snapshot_info, snap);
  mr_snapshot_destroy(snap);
  mr_context_destroy(ctx);
  mr_resource_release(mr);
}

static mr_status fill_device_info(void *user, void *out) {
  (void)user;
  return mr_device_get_info(0, out);
}

static mr_status fill_driver_pool_info(void *user, void *out) {
  (void)user;
  return mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_CURRENT, 0, out);
}

static mr_status fill_pool_resource_info(void *user, void *out) {
  return mr_pool_resource_get_info(user, out);
}

/* The structs the driver fills: over the fake driver (fake.core.abi); in
 * the unit suite, where no driver loads, the calls say so. */
static void test_every_driver_struct(void **state) {
  (void)state;
  int count = 0;
  if (mr_device_count(&count) == MR_ERR_NO_DRIVER) {
    mr_device_info info = {.size = sizeof info};
    assert_status(mr_device_get_info(0, &info), MR_ERR_NO_DRIVER);
    skip();
  }
  assert_true(count >= 1);
  CHECK_FILL(mr_device_info, concurrent_managed_access, fill_device_info, NULL);
  CHECK_FILL(mr_pool_info, used_high, fill_driver_pool_info, NULL);
  mr_resource *device = NULL;
  assert_ok(mr_device_resource_create(0, &device));
  CHECK_FILL(mr_pool_info, used_high, fill_pool_resource_info, device);
  mr_resource_release(device);
}

/* ---- every call that reads a struct: one checklist ------------------------ */

/* `make` writes a valid struct of this header into its `known` bytes;
 * `read` passes it to the call and undoes what the call made. */
typedef struct read_case {
  void (*make)(void *out);
  mr_status (*read)(const void *in);
} read_case;

static void check_read(const char *type, size_t known, size_t oldest, const read_case *c) {
  char expect[128];
  size_t refused[] = {known + ABI_GROWTH + 1, GARBAGE_SIZE, SIZE_MAX, 0, oldest - 1};
  for (size_t k = 0; k < LENGTH_OF(refused); k++) {
    unsigned char *p = block_of(known, 0, 0);
    c->make(p);
    memcpy(p, &refused[k], sizeof(size_t));
    assert_status(c->read(p), MR_ERR_INVALID_ARGUMENT);
    snprintf(expect, sizeof expect, "%s.size is %zu", type, refused[k]);
    assert_error_contains(expect);
    free(p);
  }
  /* The oldest release's struct: the fields it lacks take their defaults. */
  unsigned char *p = block_of(known, 0, 0);
  c->make(p);
  memcpy(p, &oldest, sizeof oldest);
  unsigned char *old = block_of(oldest, 0, 0);
  memcpy(old, p, oldest);
  assert_ok(c->read(old));
  free(old);
  /* A newer header's struct: zero past this library's fields is "not set";
   * anything else asks for what this library cannot do. */
  size_t bigger = known + ABI_GROWTH;
  unsigned char *newer = block_of(bigger, 0, 0);
  memcpy(newer, p, known);
  memcpy(newer, &bigger, sizeof bigger);
  assert_ok(c->read(newer));
  newer[bigger - 1] = 1;
  assert_status(c->read(newer), MR_ERR_UNSUPPORTED);
  free(newer);
  free(p);
}

static mr_status read_props(const void *in) {
  mr_resource *mr = NULL;
  mr_status st = mr_resource_create(&nop_ops, NULL, in, &mr);
  mr_resource_release(mr);
  return st;
}

static void make_props(void *out) {
  *(mr_resource_props *)out = (mr_resource_props){.size = sizeof(mr_resource_props),
                                                  .kind = MR_MEMORY_HOST,
                                                  .device = -1,
                                                  .host_accessible = true};
}

static mr_status read_desc(const void *in) {
  mr_context *ctx = NULL;
  mr_status st = mr_context_create(in, &ctx);
  mr_context_destroy(ctx);
  return st;
}

static void make_desc(void *out) {
  static const mr_tag tags[] = {{"temp", "host"}};
  *(mr_context_desc *)out = (mr_context_desc){
      .size = sizeof(mr_context_desc), .library = "abi", .tags = tags, .tag_count = 1};
}

static mr_status read_snapshot_options(const void *in) {
  mr_snapshot *snap = NULL;
  mr_status st = mr_snapshot_take(in, &snap);
  mr_snapshot_destroy(snap);
  return st;
}

static void make_snapshot_options(void *out) {
  *(mr_snapshot_options *)out =
      (mr_snapshot_options){.size = sizeof(mr_snapshot_options), .largest_blocks = 3};
}

/* Without a driver the pool is refused after its desc is read: MR_OK here
 * means "the desc was accepted". */
static mr_status read_pool_desc(const void *in) {
  mr_resource *mr = NULL;
  mr_status st = mr_pool_resource_create(0, in, &mr);
  mr_resource_release(mr);
  return st == MR_ERR_NO_DRIVER ? MR_OK : st;
}

static void make_pool_desc(void *out) { mr_pool_desc_init(out, MR_POOL_DEVICE); }

static mr_status read_stats_json(const void *in) {
  FILE *f = fopen("/dev/null", "w");
  assert_non_null(f);
  mr_status st = mr_stats_write_json(in, f);
  fclose(f);
  return st;
}

static void make_stats(void *out) {
  mr_stats_init(out);
  ((mr_stats *)out)->peak_bytes = 7;
}

#define CHECK_READ(type, oldest_field, make, read) \
  check_read(#type, sizeof(type), SIZE_THROUGH(type, oldest_field), &(read_case){(make), (read)})

static void test_every_read_struct(void **state) {
  (void)state;
  CHECK_READ(mr_resource_props, native_alignment, make_props, read_props);
  CHECK_READ(mr_context_desc, overrides, make_desc, read_desc);
  CHECK_READ(mr_snapshot_options, largest_blocks, make_snapshot_options, read_snapshot_options);
  CHECK_READ(mr_pool_desc, access, make_pool_desc, read_pool_desc);
  CHECK_READ(mr_stats, failed_count, make_stats, read_stats_json);

  /* mr_stats_add has no status to return: a struct whose size no header
   * has is left alone, and adds nothing to the other. */
  mr_stats a, b;
  mr_stats_init(&a);
  mr_stats_init(&b);
  b.total_bytes = 5;
  size_t sizes[] = {sizeof(mr_stats) + ABI_GROWTH + 1, GARBAGE_SIZE, SIZE_MAX};
  for (size_t k = 0; k < LENGTH_OF(sizes); k++) {
    a.size = sizes[k];
    mr_stats_add(&a, &b);
    assert_int_equal(a.total_bytes, 0);
    a.size = sizeof a;
    b.size = sizes[k];
    mr_stats_add(&a, &b);
    assert_int_equal(a.total_bytes, 0);
    b.size = sizeof b;
  }
  mr_stats_add(&a, &b);
  assert_int_equal(a.total_bytes, 5);
}

/* ---- ops tables of every size ---------------------------------------------- */

static int trims_seen;

static mr_status counting_trim(void *self) {
  (void)self;
  trims_seen++;
  return MR_OK;
}

/* Where an ops table of an older (or this) header may end: after a member
 * from deallocate on. Anything else ends inside a method pointer, whose
 * remaining bytes would be garbage the library calls. */
static bool ops_size_ends_a_member(size_t size) {
  static const size_t ends[] = {
      SIZE_THROUGH(mr_resource_ops, deallocate),
      SIZE_THROUGH(mr_resource_ops, allocate_sync),
      SIZE_THROUGH(mr_resource_ops, deallocate_sync),
      SIZE_THROUGH(mr_resource_ops, synchronize),
      SIZE_THROUGH(mr_resource_ops, trim),
      SIZE_THROUGH(mr_resource_ops, describe),
      SIZE_THROUGH(mr_resource_ops, destroy),
  };
  for (size_t i = 0; i < LENGTH_OF(ends); i++)
    if (size == ends[i]) return true;
  return false;
}

static void test_ops_sizes(void **state) {
  (void)state;
  /* A table with every method set, in a block as long as the largest size
   * tried, so the library reads only what the caller owns. */
  size_t cap = sizeof(mr_resource_ops) + ABI_GROWTH + 64;
  mr_resource_ops *ops = calloc(1, cap);
  assert_non_null(ops);
  *ops = nop_ops;
  ops->trim = counting_trim;
  for (size_t size = 0; size <= sizeof(mr_resource_ops); size++) {
    ops->size = size;
    mr_resource *mr = NULL;
    mr_status st = mr_resource_create(ops, NULL, NULL, &mr);
    if (ops_size_ends_a_member(size)) {
      assert_int_equal(st, MR_OK);
      /* trim is called only where the table reaches it. */
      trims_seen = 0;
      assert_ok(mr_resource_trim(mr));
      assert_int_equal(trims_seen, size >= SIZE_THROUGH(mr_resource_ops, trim) ? 1 : 0);
      mr_resource_release(mr);
    } else {
      assert_int_equal(st, MR_ERR_INVALID_ARGUMENT);
      assert_null(mr);
      char expect[64];
      snprintf(expect, sizeof expect, "ops->size is %zu", size);
      assert_error_contains(expect);
      assert_error_contains("sizeof(mr_resource_ops)");
    }
  }
  /* A newer header's table: more methods, each a pointer, within the
   * limit every versioned struct has. What this library does not know it
   * leaves alone (new methods are optional). */
  size_t newer[] = {sizeof(mr_resource_ops) + sizeof(void (*)(void)),
                    sizeof(mr_resource_ops) + ABI_GROWTH};
  for (size_t k = 0; k < LENGTH_OF(newer); k++) {
    ops->size = newer[k];
    mr_resource *mr = NULL;
    assert_ok(mr_resource_create(ops, NULL, NULL, &mr));
    mr_resource_release(mr);
  }
  /* Partway through a newer method, past the limit, uninitialised. */
  size_t refused[] = {sizeof(mr_resource_ops) + 4, sizeof(mr_resource_ops) + ABI_GROWTH + 8,
                      GARBAGE_SIZE, SIZE_MAX};
  for (size_t k = 0; k < LENGTH_OF(refused); k++) {
    ops->size = refused[k];
    mr_resource *mr = NULL;
    assert_status(mr_resource_create(ops, NULL, NULL, &mr), MR_ERR_INVALID_ARGUMENT);
    assert_null(mr);
    assert_error_contains("sizeof(mr_resource_ops)");
  }
  free(ops);
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
      cmocka_unit_test(test_every_filled_struct),
      cmocka_unit_test(test_every_driver_struct),
      cmocka_unit_test(test_every_read_struct),
      cmocka_unit_test(test_ops_sizes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
