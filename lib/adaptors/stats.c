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
 */
#include <stdlib.h>

#include "adaptors/adaptors_internal.h"
#include "core/nvtx.h"

typedef struct stats_state {
  mr_resource *upstream;
  char *description;
  mri_stats stats;
  mri_tag_hooks hooks; /* all NULL for stats(UP); the label is owned */
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

static mr_status stats_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  stats_state *s = self;
  mr_status st = mri_allocate(s->upstream, bytes, alignment, stream, ptr);
  if (MRI_LIKELY(st == MR_OK)) {
    mri_stats_on_alloc(&s->stats, bytes);
    mri_nvtx_name(*ptr, &s->nvtx_label);
  } else {
    stats_failed(s, st, bytes, stream);
  }
  return st;
}

static mr_status stats_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  stats_state *s = self;
  mr_status st = mri_deallocate(s->upstream, ptr, bytes, alignment, stream);
  /* A refused free (wrong size, unknown pointer) leaves the block counted. */
  if (MRI_LIKELY(st == MR_OK)) mri_stats_on_free(&s->stats, bytes);
  return st;
}

static mr_status stats_allocate_sync(void *self, size_t bytes, size_t alignment, void **ptr) {
  stats_state *s = self;
  mr_status st = mr_allocate_sync(s->upstream, bytes, alignment, ptr);
  if (st == MR_OK) {
    mri_stats_on_alloc(&s->stats, bytes);
    mri_nvtx_name(*ptr, &s->nvtx_label);
  } else {
    stats_failed(s, st, bytes, NULL);
  }
  return st;
}

static mr_status stats_deallocate_sync(void *self, void *ptr, size_t bytes, size_t alignment) {
  stats_state *s = self;
  mr_status st = mr_deallocate_sync(s->upstream, ptr, bytes, alignment);
  if (st == MR_OK) mri_stats_on_free(&s->stats, bytes);
  return st;
}

static void stats_destroy(void *self) {
  stats_state *s = self;
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

mr_status mri_tag_resource_create(mr_resource *upstream, const char *description,
                                  const mri_tag_hooks *hooks, mr_resource **out) {
  mr_status st = mri_adaptor_check(&stats_ops, upstream, out);
  if (st != MR_OK) return st;
  stats_state *s = description != NULL
                       ? mri_adaptor_alloc(sizeof *s, upstream, "%s", description)
                       : mri_adaptor_alloc(sizeof *s, upstream, "stats(%s)",
                                           mr_resource_describe(upstream));
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  st = mri_stats_init(&s->stats);
  if (st != MR_OK) {
    mri_adaptor_free(s); /* the counters were never set up */
    return st;
  }
  if (hooks != NULL) {
    s->hooks = *hooks;
    s->hooks.label = hooks->label != NULL ? mri_strdup(hooks->label) : NULL;
    if (hooks->label != NULL && s->hooks.label == NULL) st = MR_ERR_OUT_OF_MEMORY;
    s->nvtx_label.text = s->hooks.label;
  }
  return mri_adaptor_create(&stats_ops, s, MRI_ADAPTOR_PASSES, st, out);
}

mr_status mri_stats_resource_create(mr_resource *upstream, const char *description,
                                    mr_resource **out) {
  return mri_tag_resource_create(upstream, description, NULL, out);
}

mr_status mr_stats_resource_create(mr_resource *upstream, mr_resource **out) {
  return mri_stats_resource_create(upstream, NULL, out);
}

const mri_stats *mri_stats_resource_counters(const mr_resource *mr) {
  const stats_state *s = mr_resource_state(mr, &stats_ops);
  return s != NULL ? &s->stats : NULL;
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
