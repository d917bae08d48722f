/*
 * limit.c: "limit(UP, bytes=SIZE)": refuse allocations past a byte limit.
 *
 * Bytes are counted as requested. The budget is reserved with a lock-free
 * compare-and-swap before the upstream call and given back if upstream
 * fails, so the count stays exact under any interleaving and no failed
 * allocation keeps budget.
 */
#include "adaptors/adaptors_internal.h"

typedef struct limit_state {
  mr_resource *upstream;
  char *description;
  size_t limit;
  _Atomic size_t used;
} limit_state;
MRI_ADAPTOR_STATE(limit_state);

static mr_status limit_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  limit_state *s = self;
  size_t used = atomic_load_explicit(&s->used, memory_order_relaxed);
  do {
    if (bytes > s->limit || used > s->limit - bytes) {
      char limit_text[32];
      mri_format_size(s->limit, limit_text, sizeof limit_text);
      return mri_error(MR_ERR_OUT_OF_MEMORY,
                       "%s: %zu bytes requested with %zu bytes in use would pass the limit "
                       "of %zu bytes (%s)",
                       s->description, bytes, used, s->limit, limit_text);
    }
  } while (!atomic_compare_exchange_weak_explicit(&s->used, &used, used + bytes,
                                                  memory_order_relaxed, memory_order_relaxed));
  mr_status st = mri_allocate(s->upstream, bytes, alignment, stream, ptr);
  if (MRI_UNLIKELY(st != MR_OK)) atomic_fetch_sub_explicit(&s->used, bytes, memory_order_relaxed);
  return st;
}

static mr_status limit_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  limit_state *s = self;
  mr_status st = mri_deallocate(s->upstream, ptr, bytes, alignment, stream);
  /* A refused free (unknown pointer, wrong size) keeps its budget. */
  if (MRI_LIKELY(st == MR_OK)) atomic_fetch_sub_explicit(&s->used, bytes, memory_order_relaxed);
  return st;
}

static void limit_destroy(void *self) { mri_adaptor_free(self); }

static const mr_resource_ops limit_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "limit",
    .allocate = limit_allocate,
    .deallocate = limit_deallocate,
    .synchronize = mri_forward_synchronize,
    .trim = mri_forward_trim,
    .destroy = limit_destroy,
};

/* `limit` 0 is a limit, not a default: it refuses everything. */
mr_status mr_limit_resource_create(mr_resource *upstream, size_t limit, mr_resource **out) {
  mr_status st = mri_adaptor_check(&limit_ops, upstream, out);
  if (st != MR_OK) return st;
  char size[32];
  mri_format_size(limit, size, sizeof size);
  limit_state *s = mri_adaptor_alloc(sizeof *s, upstream, "limit(%s, bytes=%s)",
                                     mr_resource_describe(upstream), size);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->limit = limit;
  atomic_init(&s->used, 0);
  return mri_adaptor_create(&limit_ops, s, MRI_ADAPTOR_PASSES, MR_OK, out);
}

mr_status mr_limit_resource_used(const mr_resource *mr, size_t *used) {
  if (used == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_limit_resource_used: used is NULL");
  *used = 0;
  limit_state *s = mr_resource_state(mr, &limit_ops);
  if (s == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_limit_resource_used: %s is not a limit resource",
                     mr_resource_describe(mr));
  *used = atomic_load_explicit(&s->used, memory_order_relaxed);
  return MR_OK;
}
