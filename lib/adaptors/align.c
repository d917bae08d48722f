/*
 * align.c: "align(UP, alignment=SIZE)": a larger minimum alignment.
 *
 * Every request goes upstream with max(its alignment, SIZE); where the
 * upstream serves less natively the core over-allocates, by up to SIZE per
 * request, which is why SIZE is at most MR_ALIGN_MAX_ALIGNMENT (2 GiB).
 * Stateless apart from the alignment, so thread-safe as its upstream is.
 */
#include <stdlib.h>

#include "adaptors/adaptors_internal.h"

typedef struct align_state {
  mr_resource *upstream; /* mri_adaptor_head */
  size_t alignment;
} align_state;

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

static void align_destroy(void *self) {
  align_state *s = self;
  mr_resource_release(s->upstream);
  free(s);
}

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
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "align: out is NULL");
  *out = NULL;
  if (upstream == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "align: upstream is NULL");
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
  align_state *s = mri_calloc(1, sizeof *s);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->upstream = mr_resource_retain(upstream);
  s->alignment = alignment;
  char size[32];
  mri_format_size(alignment, size, sizeof size);
  char *text = mri_asprintf("align(%s, alignment=%s)", mr_resource_describe(upstream), size);
  mr_status st = text != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY;
  mr_resource_props props = upstream->props;
  props.native_alignment = 0; /* any alignment passes on to upstream */
  if (st == MR_OK) st = mri_resource_create(&align_ops, s, &props, upstream, text, out);
  free(text);
  if (st != MR_OK) align_destroy(s);
  return st;
}
