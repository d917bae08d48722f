/*
 * stats.c: "stats(UP)": current, peak and total bytes and counts.
 *
 * The counters are the core's sharded statistics, the same ones every
 * context keeps per tag (a context wraps each tag in this adaptor). Bytes
 * are counted as requested, not as the upstream rounds them.
 *
 * A context's tag wrapper is this adaptor with hooks (mri_tag_hooks): its
 * allocations are named "library:tag" for NVTX tools, and an allocation
 * that fails for lack of memory is reported to the context (the
 * out-of-memory dump). Both sit off the common path: the name behind one
 * untaken branch when no tool is attached, the report on the failure path.
 *
 * stats(UP, peak=exact) keeps exact peaks across threads as well: its own
 * ops table, whose methods also update one shared atomic per event, so the
 * default path carries no branch for it.
 */
#include <stdlib.h>
#include <string.h>

#include "adaptors/adaptors_internal.h"
#include "core/nvtx.h"

typedef struct stats_state {
  mr_resource *upstream;
  char *description;
  mri_stats stats;
  mri_tag_hooks hooks; /* all NULL for stats(UP); the label is owned */
  bool shares_exact;   /* stats.exact is the adaptor below's (hooks.shared_exact) */
  mri_nvtx_label nvtx_label;
} stats_state;
MRI_ADAPTOR_STATE(stats_state);

static void stats_failed(stats_state *s, mr_status st, size_t bytes, mr_stream stream)
    __attribute__((noinline, cold));

static void stats_failed(stats_state *s, mr_status st, size_t bytes, mr_stream stream) {
  mri_stats_on_fail(&s->stats);
  if (st == MR_ERR_OUT_OF_MEMORY && s->hooks.on_oom != NULL)
    s->hooks.on_oom(s->hooks.user, bytes, stream);
}

/* The methods' bodies; `exact` is a constant in each caller, so the
 * sharded methods have no trace of the exact peaks. */
static inline mr_status stats_allocate_(void *self, size_t bytes, size_t alignment,
                                        mr_stream stream, void **ptr, bool exact) {
  stats_state *s = self;
  mr_status st = mri_allocate(s->upstream, bytes, alignment, stream, ptr);
  if (MRI_LIKELY(st == MR_OK)) {
    mri_stats_on_alloc(&s->stats, bytes);
    if (exact) mri_stats_exact_on_alloc(&s->stats, bytes);
    mri_nvtx_name(*ptr, &s->nvtx_label);
  } else {
    stats_failed(s, st, bytes, stream);
  }
  return st;
}

static inline mr_status stats_deallocate_(void *self, void *ptr, size_t bytes, size_t alignment,
                                          mr_stream stream, bool exact) {
  stats_state *s = self;
  mr_status st = mri_deallocate(s->upstream, ptr, bytes, alignment, stream);
  /* A refused free (wrong size, unknown pointer) leaves the block counted. */
  if (MRI_LIKELY(st == MR_OK)) {
    mri_stats_on_free(&s->stats, bytes);
    if (exact) mri_stats_exact_on_free(&s->stats, bytes);
  }
  return st;
}

static inline mr_status stats_allocate_sync_(void *self, size_t bytes, size_t alignment, void **ptr,
                                             bool exact) {
  stats_state *s = self;
  mr_status st = mr_allocate_sync(s->upstream, bytes, alignment, ptr);
  if (st == MR_OK) {
    mri_stats_on_alloc(&s->stats, bytes);
    if (exact) mri_stats_exact_on_alloc(&s->stats, bytes);
    mri_nvtx_name(*ptr, &s->nvtx_label);
  } else {
    stats_failed(s, st, bytes, NULL);
  }
  return st;
}

static inline mr_status stats_deallocate_sync_(void *self, void *ptr, size_t bytes,
                                               size_t alignment, bool exact) {
  stats_state *s = self;
  mr_status st = mr_deallocate_sync(s->upstream, ptr, bytes, alignment);
  if (st == MR_OK) {
    mri_stats_on_free(&s->stats, bytes);
    if (exact) mri_stats_exact_on_free(&s->stats, bytes);
  }
  return st;
}

static mr_status stats_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  return stats_allocate_(self, bytes, alignment, stream, ptr, false);
}

static mr_status stats_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  return stats_deallocate_(self, ptr, bytes, alignment, stream, false);
}

static mr_status stats_allocate_sync(void *self, size_t bytes, size_t alignment, void **ptr) {
  return stats_allocate_sync_(self, bytes, alignment, ptr, false);
}

static mr_status stats_deallocate_sync(void *self, void *ptr, size_t bytes, size_t alignment) {
  return stats_deallocate_sync_(self, ptr, bytes, alignment, false);
}

static mr_status exact_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  return stats_allocate_(self, bytes, alignment, stream, ptr, true);
}

static mr_status exact_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  return stats_deallocate_(self, ptr, bytes, alignment, stream, true);
}

static mr_status exact_allocate_sync(void *self, size_t bytes, size_t alignment, void **ptr) {
  return stats_allocate_sync_(self, bytes, alignment, ptr, true);
}

static mr_status exact_deallocate_sync(void *self, void *ptr, size_t bytes, size_t alignment) {
  return stats_deallocate_sync_(self, ptr, bytes, alignment, true);
}

static void stats_destroy(void *self) {
  stats_state *s = self;
  if (s->shares_exact) s->stats.exact = NULL; /* the adaptor below owns them */
  mri_stats_fini(&s->stats);
  free((char *)s->hooks.label);
  mri_adaptor_free(s);
}

static const mr_resource_ops stats_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "stats",
    .allocate = stats_allocate,
    .deallocate = stats_deallocate,
    .allocate_sync = stats_allocate_sync,
    .deallocate_sync = stats_deallocate_sync,
    .synchronize = mri_forward_synchronize,
    .trim = mri_forward_trim,
    .destroy = stats_destroy,
};

static const mr_resource_ops exact_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "stats",
    .allocate = exact_allocate,
    .deallocate = exact_deallocate,
    .allocate_sync = exact_allocate_sync,
    .deallocate_sync = exact_deallocate_sync,
    .synchronize = mri_forward_synchronize,
    .trim = mri_forward_trim,
    .destroy = stats_destroy,
};

static const char *peak_word(mr_stats_peak peak) {
  return peak == MR_STATS_PEAK_EXACT ? "exact" : "sharded";
}

mr_status mri_tag_resource_create(mr_resource *upstream, const char *description,
                                  mr_stats_peak peak, const mri_tag_hooks *hooks,
                                  mr_resource **out) {
  if (peak != MR_STATS_PEAK_SHARDED && peak != MR_STATS_PEAK_EXACT) {
    if (out != NULL) *out = NULL;
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "stats: peak %d is neither MR_STATS_PEAK_SHARDED nor MR_STATS_PEAK_EXACT",
                     (int)peak);
  }
  const mr_resource_ops *ops = peak == MR_STATS_PEAK_EXACT ? &exact_ops : &stats_ops;
  mr_status st = mri_adaptor_check(ops, upstream, out);
  if (st != MR_OK) return st;
  /* The description parses back to the same object: peak=exact is said,
   * the default is not. */
  stats_state *s =
      description != NULL ? mri_adaptor_alloc(sizeof *s, upstream, "%s", description)
      : peak == MR_STATS_PEAK_EXACT
          ? mri_adaptor_alloc(sizeof *s, upstream, "stats(%s, peak=%s)",
                              mr_resource_describe(upstream), peak_word(peak))
          : mri_adaptor_alloc(sizeof *s, upstream, "stats(%s)", mr_resource_describe(upstream));
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  st = mri_stats_init(&s->stats);
  if (st != MR_OK) {
    mri_adaptor_free(s); /* the counters were never set up */
    return st;
  }
  if (peak == MR_STATS_PEAK_EXACT && hooks != NULL && hooks->shared_exact != NULL) {
    /* The adaptor below counts every allocation of this one: its peaks are
     * this one's, and the sharded methods leave them to it. */
    s->stats.exact = hooks->shared_exact;
    s->shares_exact = true;
    ops = &stats_ops;
  } else if (peak == MR_STATS_PEAK_EXACT) {
    st = mri_stats_keep_exact_peaks(&s->stats);
  }
  if (hooks != NULL && st == MR_OK) {
    s->hooks = *hooks;
    s->hooks.label = hooks->label != NULL ? mri_strdup(hooks->label) : NULL;
    if (hooks->label != NULL && s->hooks.label == NULL) st = MR_ERR_OUT_OF_MEMORY;
    s->nvtx_label.text = s->hooks.label;
  }
  return mri_adaptor_create(ops, s, MRI_ADAPTOR_PASSES, st, out);
}

mr_status mri_stats_resource_create(mr_resource *upstream, const char *description,
                                    mr_resource **out) {
  return mri_tag_resource_create(upstream, description, MR_STATS_PEAK_SHARDED, NULL, out);
}

mr_status mr_stats_resource_create(mr_resource *upstream, mr_resource **out) {
  return mri_stats_resource_create(upstream, NULL, out);
}

mr_status mr_stats_resource_create_peak(mr_resource *upstream, mr_stats_peak peak,
                                        mr_resource **out) {
  return mri_tag_resource_create(upstream, NULL, peak, NULL, out);
}

static const stats_state *stats_state_of(const mr_resource *mr) {
  const stats_state *s = mr_resource_state(mr, &stats_ops);
  return s != NULL ? s : mr_resource_state(mr, &exact_ops);
}

mri_stats_exact *mri_stats_exact_below(const mr_resource *mr, bool *alone) {
  /* retry, log and track hand every allocation on unchanged: a stats
   * adaptor below them counts what the chain hands out -- and only that,
   * where no other chain holds any link on the way down. */
  *alone = true;
  for (; mr != NULL; mr = mr_resource_upstream(mr)) {
    if (atomic_load_explicit(&mr->refs, memory_order_acquire) != 1) *alone = false;
    const stats_state *s = stats_state_of(mr);
    if (s != NULL) return s->stats.exact;
    if (!mri_is_retry(mr) && !mri_is_log(mr) && !mri_is_track(mr)) break;
  }
  return NULL;
}

const mri_stats *mri_stats_resource_counters(const mr_resource *mr) {
  const stats_state *s = stats_state_of(mr);
  return s != NULL ? &s->stats : NULL;
}

mr_status mr_stats_resource_reset_peak(mr_resource *mr) {
  /* The counters are the adaptor's own, reached through its state: the
   * const of mri_stats_resource_counters is for readers. */
  mri_stats *counters = (mri_stats *)mri_stats_resource_counters(mr);
  if (counters == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_stats_resource_reset_peak: %s is not a stats resource",
                     mr != NULL ? mr_resource_describe(mr) : "NULL");
  mri_stats_reset_peak(counters);
  return MR_OK;
}

mr_status mr_stats_resource_get(const mr_resource *mr, mr_stats *stats) {
  const mri_stats *counters = mri_stats_resource_counters(mr);
  if (counters == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_stats_resource_get: %s is not a stats resource",
                     mr_resource_describe(mr));
  if (stats == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_stats_resource_get: stats is NULL");
  mr_stats full;
  mr_stats_init(&full);
  mr_status st = mri_stats_read(counters, &full);
  if (st != MR_OK) return st;
  return MRI_STRUCT_WRITE(stats, &full, mr_stats, failed_count, "mr_stats_resource_get");
}
