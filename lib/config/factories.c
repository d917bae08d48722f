/*
 * factories.c: the built-in resource names of the spec language.
 *
 * Each factory reads its arguments and calls the public constructor a
 * program would call, so a spec and the equivalent C code build the same
 * object (and describe themselves the same way). They are registered through
 * the registry's one entry path, like any application's factory.
 *
 * Defaults (docs/configuration.md lists them):
 *   pool       kind=device, release=max, max=0 (no limit), initial=0,
 *              access=all, ipc=none
 *   expandable page=the driver's granularity (2MiB), large_page=none (0),
 *              reserve=the device's memory (per stream), ipc=none
 *   adaptors   a size or count left out is passed as 0, which the
 *              constructor turns into its default (the MR_*_DEFAULT_*
 *              macros of adaptors.h), so a spec and a C call with 0 build
 *              the same object: cache max 1GiB, arena chunk 64MiB, fixed
 *              block 1MiB and count 16, bin min 256B, max 64KiB and count
 *              64, retry attempts 3
 *   log, limit, align: file, bytes and alignment are required (alignment at
 *              most MR_ALIGN_MAX_ALIGNMENT, 2GiB)
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"
#include "core/decay.h"
#include "driver/driver_internal.h"

/* ---- driver resources: device-bound, no parameters ------------------------ */

/* The sync_* names take one optional parameter, reason="...": a note kept
 * in the description and nothing else. It is how a sync resource that
 * stands in for a missing pool says why (sync_device(reason="device 3 has
 * no device memory-pool support")), so that description parses back. */
typedef struct driver_factory {
  const char *name;
  mr_status (*create)(int device, mr_resource **out);
  mr_memory_kind kind;
  int sync_kind; /* the mr_pool_kind of a sync_* name; -1 for the others */
} driver_factory;

static const driver_factory driver_factories[] = {
    {"device", mr_device_resource_create, MR_MEMORY_DEVICE, -1},
    {"device_default", mr_device_default_resource_create, MR_MEMORY_DEVICE, -1},
    {"pinned", mr_pinned_resource_create, MR_MEMORY_PINNED, -1},
    {"managed", mr_managed_resource_create, MR_MEMORY_MANAGED, -1},
    {"sync_device", mr_sync_device_resource_create, MR_MEMORY_DEVICE, MR_POOL_DEVICE},
    {"sync_pinned", mr_sync_pinned_resource_create, MR_MEMORY_PINNED, MR_POOL_PINNED},
    {"sync_managed", mr_sync_managed_resource_create, MR_MEMORY_MANAGED, MR_POOL_MANAGED},
};

static mr_status make_driver_resource(void *user, const mr_spec_args *args, mr_resource **out) {
  const driver_factory *f = user;
  const char *reason = NULL;
  if (f->sync_kind >= 0) {
    mr_status st = mr_spec_args_word(args, "reason", NULL, &reason);
    if (st != MR_OK) return st;
  }
  int device = mr_spec_args_device(args);
  /* What the stand-in reports when there is no driver or device to build
   * the resource: the props the resource would have (sync_* free at once,
   * not in stream order), so a library's requirements check the same. */
  mr_resource_props props =
      mri_memory_kind_props(f->kind, device, f->sync_kind < 0, MR_DEFAULT_ALIGNMENT);
  mri_spec_args_hint_props(args, &props);
  if (reason != NULL)
    return mri_sync_resource_create((mr_pool_kind)f->sync_kind, device, reason, out);
  return f->create(device, out);
}

/* pool(kind=device|pinned|managed, release=SIZE|max, max=SIZE, initial=SIZE,
 *      access=all|none, ipc=none|fd) */
static mr_status make_pool(void *user, const mr_spec_args *args, mr_resource **out) {
  static const char *const kinds[] = {"device", "pinned", "managed", NULL};
  static const char *const accesses[] = {"all", "none", NULL};
  static const char *const handles[] = {"none", "fd", NULL};
  static const char *const max_word[] = {"max", NULL};
  int kind = 0;
  mr_status st = mr_spec_args_choice(args, "kind", kinds, MR_POOL_DEVICE, &kind);
  if (st != MR_OK) return st;
  mr_pool_desc desc;
  mr_pool_desc_init(&desc, (mr_pool_kind)kind);
  const char *release = mri_spec_args_peek(args, "release");
  if (release != NULL && strcmp(release, "max") == 0) {
    int unused;
    st = mr_spec_args_choice(args, "release", max_word, 0, &unused);
  } else {
    st = mr_spec_args_size(args, "release", MR_POOL_RELEASE_MAX, &desc.release_threshold);
  }
  if (st == MR_OK) st = mr_spec_args_size(args, "max", 0, &desc.max_size);
  if (st == MR_OK) st = mr_spec_args_size(args, "initial", 0, &desc.initial_size);
  int access = MR_POOL_ACCESS_ALL;
  if (st == MR_OK) st = mr_spec_args_choice(args, "access", accesses, MR_POOL_ACCESS_ALL, &access);
  int handle = MR_POOL_HANDLE_NONE;
  if (st == MR_OK) st = mr_spec_args_choice(args, "ipc", handles, MR_POOL_HANDLE_NONE, &handle);
  if (st != MR_OK) return st;
  desc.access = (mr_pool_access)access;
  desc.handle_type = (mr_pool_handle)handle;
  int device = mr_spec_args_device(args);
  mr_resource_props props =
      mri_memory_kind_props(mri_pool_memory_kind(desc.kind), device, true, MR_DEFAULT_ALIGNMENT);
  mri_spec_args_hint_props(args, &props);
  return mr_pool_resource_create(device, &desc, out);
}

/* expandable(page=SIZE, large_page=SIZE, reserve=SIZE, ipc=none|fd) */
static mr_status make_expandable(void *user, const mr_spec_args *args, mr_resource **out) {
  static const char *const handles[] = {"none", "fd", NULL};
  mr_expandable_desc desc;
  mr_expandable_desc_init(&desc);
  int handle = MR_POOL_HANDLE_NONE;
  mr_status st = mr_spec_args_size(args, "page", 0, &desc.page_size);
  if (st == MR_OK) st = mr_spec_args_size(args, "large_page", 0, &desc.large_page_size);
  if (st == MR_OK) st = mr_spec_args_size(args, "reserve", 0, &desc.reserve_size);
  if (st == MR_OK) st = mr_spec_args_choice(args, "ipc", handles, MR_POOL_HANDLE_NONE, &handle);
  if (st != MR_OK) return st;
  desc.handle_type = (mr_pool_handle)handle;
  int device = mr_spec_args_device(args);
  mr_resource_props props =
      mri_memory_kind_props(MR_MEMORY_DEVICE, device, true, MR_DEFAULT_ALIGNMENT);
  mri_spec_args_hint_props(args, &props);
  return mr_expandable_resource_create(device, &desc, out);
}

/* ---- host ---------------------------------------------------------------- */

static mr_status make_host(void *user, const mr_spec_args *args, mr_resource **out) {
  return mr_host_resource_create(out);
}

/* ---- adaptors ------------------------------------------------------------- */

/* An adaptor's spec: NAME(UP, key=value, ...). The upstream is required;
 * `build` reads the parameters and calls the public constructor, which
 * takes its own reference to the upstream. */
typedef struct adaptor_factory {
  const char *name;
  mr_status (*build)(mr_resource *upstream, const mr_spec_args *args, mr_resource **out);
} adaptor_factory;

static mr_status make_adaptor(void *user, const mr_spec_args *args, mr_resource **out) {
  const adaptor_factory *f = user;
  mr_resource *upstream;
  mr_status st = mr_spec_args_upstream(args, 0, &upstream);
  if (st != MR_OK) return st;
  st = f->build(upstream, args, out);
  mr_resource_release(upstream);
  return st;
}

/* A size or count parameter (read by `get`: mr_spec_args_size or
 * mr_spec_args_uint) that must fit this platform's size_t. */
static mr_status
size_t_param(mr_status (*get)(const mr_spec_args *, const char *, uint64_t, uint64_t *),
             const mr_spec_args *args, const char *key, uint64_t fallback, size_t *out) {
  uint64_t value;
  mr_status st = get(args, key, fallback, &value);
  *out = (size_t)value;
#if SIZE_MAX < UINT64_MAX
  if (st == MR_OK && value > SIZE_MAX)
    return mr_spec_args_error(args, key, "%s=%llu does not fit this platform's size_t", key,
                              (unsigned long long)value);
#endif
  return st;
}

static mr_status size_param(const mr_spec_args *args, const char *key, uint64_t fallback,
                            size_t *out) {
  return size_t_param(mr_spec_args_size, args, key, fallback, out);
}

static mr_status count_param(const mr_spec_args *args, const char *key, uint64_t fallback,
                             size_t *out) {
  return size_t_param(mr_spec_args_uint, args, key, fallback, out);
}

/* arena's chunk and fixed's block are rounded up to a multiple of 256 and
 * must be below 2^63 once rounded; a value the constructor would round past
 * that would be described by a size it refuses. Refused here, at the
 * parameter. */
#define ROUNDED_SIZE_MAX ((SIZE_MAX / 2) & ~(size_t)(MR_DEFAULT_ALIGNMENT - 1))

static mr_status rounded_size_param(const mr_spec_args *args, const char *key, uint64_t fallback,
                                    size_t *out) {
  mr_status st = size_param(args, key, fallback, out);
  if (st == MR_OK && *out > ROUNDED_SIZE_MAX) {
    char brief[MRI_BRIEF_CAP];
    return mr_spec_args_error(args, key,
                              "%s=%s is too large: at most %zu bytes (it is rounded up to a "
                              "multiple of %zu)",
                              key, mri_brief(mri_spec_args_peek(args, key), brief),
                              ROUNDED_SIZE_MAX, MR_DEFAULT_ALIGNMENT);
  }
  return st;
}

/* Parameters without a sensible default (a limit or an alignment nobody
 * chose would surprise) must be given. */
static mr_status require(const mr_spec_args *args, const char *key, const char *what) {
  if (mr_spec_args_has(args, key)) return MR_OK;
  return mr_spec_args_error(args, NULL, "needs %s=%s", key, what);
}

/* stats(UP, peak=sharded|exact) */
static mr_status build_stats(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  static const char *const peaks[] = {"sharded", "exact", NULL};
  int peak = MR_STATS_PEAK_SHARDED;
  mr_status st = mr_spec_args_choice(args, "peak", peaks, MR_STATS_PEAK_SHARDED, &peak);
  if (st != MR_OK) return st;
  return mr_stats_resource_create_peak(upstream, (mr_stats_peak)peak, out);
}

/* log(UP, file=PATH) */
static mr_status build_log(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  const char *file = NULL;
  mr_status st = require(args, "file", "PATH (the CSV file to write)");
  if (st == MR_OK) st = mr_spec_args_word(args, "file", NULL, &file);
  if (st != MR_OK) return st;
  return mr_log_resource_create(upstream, file, out);
}

/* limit(UP, bytes=SIZE) */
static mr_status build_limit(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  size_t bytes;
  mr_status st = require(args, "bytes", "SIZE (the most it lets be in use)");
  if (st == MR_OK) st = size_param(args, "bytes", 0, &bytes);
  if (st != MR_OK) return st;
  return mr_limit_resource_create(upstream, bytes, out);
}

/* align(UP, alignment=SIZE) */
static mr_status build_align(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  size_t alignment;
  mr_status st = require(args, "alignment", "SIZE (a power of two)");
  if (st == MR_OK) st = size_param(args, "alignment", 0, &alignment);
  if (st != MR_OK) return st;
  if (!mri_is_pow2(alignment))
    return mr_spec_args_error(args, "alignment", "alignment=%zu is not a power of two", alignment);
  if (alignment > MR_ALIGN_MAX_ALIGNMENT) {
    char max[32], brief[MRI_BRIEF_CAP];
    mri_format_size(MR_ALIGN_MAX_ALIGNMENT, max, sizeof max);
    return mr_spec_args_error(args, "alignment",
                              "alignment=%s is more than %s, the largest "
                              "align serves",
                              mri_brief(mri_spec_args_peek(args, "alignment"), brief), max);
  }
  return mr_align_resource_create(upstream, alignment, out);
}

/* keep=yes|no and idle=DURATION|off (cache, arena, fixed, bin): after the
 * constructor, the C calls a program would make (mr_resource_keep_idle,
 * mr_resource_set_idle_time). */
typedef struct keeping {
  bool keep;
  bool idle_given;
  uint64_t idle_ns; /* 0: never */
} keeping;

static mr_status read_keeping(const mr_spec_args *args, keeping *k) {
  static const char *const answers[] = {"no", "yes", NULL};
  int answer = 0;
  *k = (keeping){0};
  mr_status st = mr_spec_args_choice(args, "keep", answers, 0, &answer);
  k->keep = answer == 1;
  const char *idle = NULL;
  if (st == MR_OK) st = mr_spec_args_word(args, "idle", NULL, &idle);
  if (st != MR_OK || idle == NULL) return st;
  if (mri_duration_parse(idle, "idle", &k->idle_ns) != MR_OK) {
    char reason[MRI_ERROR_CAPACITY];
    snprintf(reason, sizeof reason, "%s", mr_last_error());
    return mr_spec_args_error(args, "idle", "%s", reason);
  }
  k->idle_given = true;
  return MR_OK;
}

static mr_status apply_keeping(const keeping *k, mr_status st, mr_resource **out) {
  if (st != MR_OK) return st;
  if (k->keep) st = mr_resource_keep_idle(*out, true);
  if (st == MR_OK && k->idle_given) st = mr_resource_set_idle_time(*out, k->idle_ns);
  if (st != MR_OK) {
    mr_resource_release(*out);
    *out = NULL;
  }
  return st;
}

/* arena(UP, chunk=SIZE, keep=yes|no, idle=DURATION): chunks taken on first use. */
static mr_status build_arena(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  size_t chunk;
  keeping keep;
  mr_status st = rounded_size_param(args, "chunk", 0, &chunk);
  if (st == MR_OK) st = read_keeping(args, &keep);
  if (st != MR_OK) return st;
  return apply_keeping(&keep, mr_arena_resource_create(upstream, chunk, out), out);
}

/* fixed(UP, block=SIZE, count=N, keep=yes|no, idle=DURATION): the first `count` blocks
 * taken at creation. */
static mr_status build_fixed(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  size_t block, count;
  keeping keep;
  mr_status st = rounded_size_param(args, "block", 0, &block);
  if (st == MR_OK) st = count_param(args, "count", 0, &count);
  if (st == MR_OK) st = read_keeping(args, &keep);
  if (st != MR_OK) return st;
  return apply_keeping(&keep, mr_fixed_resource_create(upstream, block, count, out), out);
}

/* bin(UP, min=SIZE, max=SIZE, count=N, keep=yes|no, idle=DURATION): every class's blocks
 * taken at creation (by default classes 256B..64KiB, 64 blocks each: about
 * 8MiB). */
static mr_status build_bin(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  size_t min, max, count;
  keeping keep;
  mr_status st = size_param(args, "min", 0, &min);
  if (st == MR_OK) st = size_param(args, "max", 0, &max);
  if (st == MR_OK) st = count_param(args, "count", 0, &count);
  if (st == MR_OK) st = read_keeping(args, &keep);
  if (st != MR_OK) return st;
  return apply_keeping(&keep, mr_bin_resource_create(upstream, min, max, count, out), out);
}

/* retry(UP, attempts=N). Spec-built retries use the process-wide OOM
 * handler. */
static mr_status build_retry(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  uint64_t attempts;
  mr_status st = mr_spec_args_uint(args, "attempts", 0, &attempts);
  if (st != MR_OK) return st;
  if (attempts > INT_MAX)
    return mr_spec_args_error(args, "attempts", "attempts=%llu is more than %d",
                              (unsigned long long)attempts, INT_MAX);
  return mr_retry_resource_create(upstream, (int)attempts, NULL, NULL, out);
}

/* track(UP, stacks=N): N frames of each live allocation's call site. */
static mr_status build_track(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  uint64_t stacks;
  mr_status st = mr_spec_args_uint(args, "stacks", 0, &stacks);
  if (st != MR_OK) return st;
  if (stacks > MR_TRACK_MAX_STACKS)
    return mr_spec_args_error(args, "stacks",
                              "stacks=%llu is more than %d, the most frames kept per allocation",
                              (unsigned long long)stacks, MR_TRACK_MAX_STACKS);
  return mr_track_resource_create_stacks(upstream, (size_t)stacks, out);
}

/* cache(UP, max=SIZE, keep=yes|no, idle=DURATION) */
static mr_status build_cache(mr_resource *upstream, const mr_spec_args *args, mr_resource **out) {
  size_t max_cached;
  keeping keep;
  mr_status st = size_param(args, "max", 0, &max_cached);
  if (st == MR_OK) st = read_keeping(args, &keep);
  if (st != MR_OK) return st;
  return apply_keeping(&keep, mr_cache_resource_create(upstream, max_cached, out), out);
}

static const adaptor_factory adaptor_factories[] = {
    {"align", build_align}, {"arena", build_arena}, {"bin", build_bin}, {"cache", build_cache},
    {"fixed", build_fixed}, {"limit", build_limit}, {"log", build_log}, {"retry", build_retry},
    {"stats", build_stats}, {"track", build_track},
};

mr_status mri_register_builtin_factories(mr_status (*add)(const char *name, mr_factory_fn fn,
                                                          void *user)) {
  for (size_t i = 0; i < MRI_ARRAY_SIZE(driver_factories); i++) {
    mr_status st =
        add(driver_factories[i].name, make_driver_resource, (void *)&driver_factories[i]);
    if (st != MR_OK) return st;
  }
  for (size_t i = 0; i < MRI_ARRAY_SIZE(adaptor_factories); i++) {
    mr_status st = add(adaptor_factories[i].name, make_adaptor, (void *)&adaptor_factories[i]);
    if (st != MR_OK) return st;
  }
  mr_status st = add("host", make_host, NULL);
  if (st == MR_OK) st = add("pool", make_pool, NULL);
  if (st == MR_OK) st = add("expandable", make_expandable, NULL);
  return st;
}
