/*
 * align.c: "align(UP, alignment=SIZE)": a larger minimum alignment.
 *
 * Every request goes upstream with max(its alignment, SIZE); where the
 * upstream serves less natively the core over-allocates, by up to SIZE per
 * request, which is why SIZE is at most MR_ALIGN_MAX_ALIGNMENT (2 GiB).
 * Stateless apart from the alignment, so thread-safe as its upstream is.
 */
#include "adaptors/adaptors_internal.h"

typedef struct align_state {
  mr_resource *upstream;
  char *description;
  size_t alignment;
} align_state;
MRI_ADAPTOR_STATE(align_state);

static mr_status align_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  align_state *s = self;
  return mri_allocate(s->upstream, bytes, alignment > s->alignment ? alignment : s->alignment,
                      stream, ptr);
}

static mr_status align_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  align_state *s = self;
  return mri_deallocate(s->upstream, ptr, bytes,
                        alignment > s->alignment ? alignment : s->alignment, stream);
}

static void align_destroy(void *self) { mri_adaptor_free(self); }

static const mr_resource_ops align_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "align",
    .allocate = align_allocate,
    .deallocate = align_deallocate,
    .synchronize = mri_forward_synchronize,
    .trim = mri_forward_trim,
    .destroy = align_destroy,
};

mr_status mr_align_resource_create(mr_resource *upstream, size_t alignment, mr_resource **out) {
  mr_status st = mri_adaptor_check(&align_ops, upstream, out);
  if (st != MR_OK) return st;
  if (!mri_is_pow2(alignment))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "align(%s): alignment %zu is not a power of two",
                     mr_resource_describe(upstream), alignment);
  if (alignment > MR_ALIGN_MAX_ALIGNMENT) {
    char size[32], max[32];
    mri_format_size(alignment, size, sizeof size);
    mri_format_size(MR_ALIGN_MAX_ALIGNMENT, max, sizeof max);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "align(%s): alignment %zu (%s) is more than %s, the largest align serves",
                     mr_resource_describe(upstream), alignment, size, max);
  }
  char size[32];
  mri_format_size(alignment, size, sizeof size);
  align_state *s = mri_adaptor_alloc(sizeof *s, upstream, "align(%s, alignment=%s)",
                                     mr_resource_describe(upstream), size);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->alignment = alignment;
  return mri_adaptor_create(&align_ops, s, MRI_ADAPTOR_PASSES, MR_OK, out);
}
