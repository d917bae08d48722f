/*
 * bin.c: "bin(UP, min=SIZE, max=SIZE, count=N)": power-of-two size classes.
 *
 * Each class from `min` to `max` is a fixed(UP, block=class, count=N) made by
 * mr_fixed_resource_create, so bin and fixed are one mechanism (stream-
 * ordered reuse, slabs, trim). A request goes to the smallest class that
 * holds it; requests larger than `max` go straight to UP. The route
 * depends only on the size, so a free (same size as the allocation) takes
 * the same one. A free with a wrong size reaches a class or UP that did
 * not hand the pointer out: a class refuses it; before UP gets one, the
 * classes are asked whether the pointer is theirs (UP would take it for
 * one of its own). With MRCTX_DEBUG bin checks sizes itself (core/debug.h).
 * Thread-safe: the classes are.
 */
#include "adaptors/adaptors_internal.h"
#include "core/debug.h"

#define BIN_MIN_CLASS MR_DEFAULT_ALIGNMENT
/* Size classes a bin holds: min 256B reaches max 32PiB. More classes are
 * refused at creation, so every index below stays inside `classes`. */
#define BIN_MAX_CLASSES 48

typedef struct bin_state {
  mr_resource *upstream;
  char *description;
  size_t min, max;
  unsigned min_shift; /* log2(min) */
  size_t class_count;
  mr_resource *classes[BIN_MAX_CLASSES];
  mri_size_check check; /* MRCTX_DEBUG: the live allocations' sizes */
} bin_state;
MRI_ADAPTOR_STATE(bin_state);

static unsigned log2_size(size_t x) {
  return (unsigned)(63 - __builtin_clzll((unsigned long long)x));
}

/* The class index for 0 < bytes <= max: the smallest class that holds
 * `bytes` (a size between two classes rounds up). Below class_count, since
 * max is the last class. */
static size_t class_of(const bin_state *b, size_t bytes) {
  if (bytes <= b->min) return 0;
  return log2_size(bytes - 1) + 1 - b->min_shift;
}

/* Where a request of `bytes` goes: its class, or upstream past max. The
 * index is checked against class_count as well, although class_of keeps
 * below it for every size up to max: so that no size, whatever reaches
 * here, can read past the class table. */
static mr_resource *route(const bin_state *b, size_t bytes) {
  if (bytes > b->max) return b->upstream;
  size_t k = class_of(b, bytes);
  return MRI_LIKELY(k < b->class_count) ? b->classes[k] : b->upstream;
}

static mr_status bin_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                              void **ptr) {
  bin_state *b = self;
  mr_resource *to = route(b, bytes);
  mr_status st = mri_allocate(to, bytes, alignment, stream, ptr);
  if (MRI_UNLIKELY(st == MR_OK &&
                   mri_size_check_note(&b->check, *ptr, bytes, alignment) != MR_OK)) {
    if (mri_deallocate(to, *ptr, bytes, alignment, stream) != MR_OK) {
    }
    *ptr = NULL;
    return mri_size_check_note_failed(b->description, bytes);
  }
  return st;
}

/* A free past max goes to the upstream, which must never get a block of
 * a class (freed with a wrong size): refused. The classes' lookups cost
 * little beside the upstream's free. */
static mr_status refuse_class_block(const bin_state *b, void *ptr, size_t bytes) {
  for (size_t i = 0; i < b->class_count; i++) {
    if (mri_fixed_owns(b->classes[i], ptr))
      return mri_error(MR_ERR_INVALID_ARGUMENT,
                       "%s: %p is a block of its %zu-byte class, not an allocation of %zu bytes "
                       "(freed with another size?)",
                       b->description, ptr, b->min << i, bytes);
  }
  return MR_OK;
}

static mr_status bin_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                mr_stream stream) {
  bin_state *b = self;
  mr_status st = mri_size_check_take(&b->check, b->description, ptr, bytes, alignment);
  if (MRI_UNLIKELY(st != MR_OK)) return st;
  mr_resource *to = route(b, bytes);
  if (to == b->upstream) st = refuse_class_block(b, ptr, bytes);
  if (MRI_LIKELY(st == MR_OK)) st = mri_deallocate(to, ptr, bytes, alignment, stream);
  if (MRI_UNLIKELY(st != MR_OK)) mri_size_check_restore(&b->check, ptr, bytes, alignment);
  return st;
}

static mr_status bin_trim(void *self) {
  bin_state *b = self;
  mr_status result = MR_OK;
  for (size_t i = 0; i < b->class_count; i++) {
    mr_status st = mri_fixed_release_idle(b->classes[i]);
    if (st != MR_OK && result == MR_OK) result = st;
  }
  mr_status st = mr_resource_trim(b->upstream);
  return result != MR_OK ? result : st;
}

static void bin_destroy(void *self) {
  bin_state *b = self;
  for (size_t i = 0; i < b->class_count; i++) mr_resource_release(b->classes[i]);
  mri_size_check_fini(&b->check);
  mri_adaptor_free(b);
}

static const mr_resource_ops bin_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "bin",
    .allocate = bin_allocate,
    .deallocate = bin_deallocate,
    .synchronize = mri_forward_synchronize,
    .trim = bin_trim,
    .destroy = bin_destroy,
};

mr_status mr_bin_resource_create(mr_resource *upstream, size_t min, size_t max, size_t count,
                                 mr_resource **out) {
  mr_status st = mri_adaptor_check(&bin_ops, upstream, out);
  if (st != MR_OK) return st;
  const char *up = mr_resource_describe(upstream);
  if (min == 0) min = MR_BIN_DEFAULT_MIN;
  if (max == 0) max = MR_BIN_DEFAULT_MAX;
  if (count == 0) count = MR_BIN_DEFAULT_COUNT;
  if (!mri_is_pow2(min) || !mri_is_pow2(max) || min < BIN_MIN_CLASS || min > max)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "bin(%s): min %zu and max %zu must be powers of two with %zu <= min <= "
                     "max",
                     up, min, max, (size_t)BIN_MIN_CLASS);
  size_t classes = log2_size(max) - log2_size(min) + 1;
  if (classes > BIN_MAX_CLASSES) {
    char min_text[32], max_text[32], largest[32];
    mri_format_size(min, min_text, sizeof min_text);
    mri_format_size(max, max_text, sizeof max_text);
    mri_format_size((uint64_t)min << (BIN_MAX_CLASSES - 1), largest, sizeof largest);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "bin(%s): min %s to max %s makes %zu size classes; at most %d (e.g. "
                     "max=%s with min=%s)",
                     up, min_text, max_text, classes, BIN_MAX_CLASSES, largest, min_text);
  }
  char min_text[32], max_text[32];
  mri_format_size(min, min_text, sizeof min_text);
  mri_format_size(max, max_text, sizeof max_text);
  bin_state *b = mri_adaptor_alloc(sizeof *b, upstream, "bin(%s, min=%s, max=%s, count=%zu)", up,
                                   min_text, max_text, count);
  if (b == NULL) return MR_ERR_OUT_OF_MEMORY;
  b->min = min;
  b->max = max;
  b->min_shift = log2_size(min);
  mri_size_check_init(&b->check);
  for (size_t i = 0; i < classes && st == MR_OK; i++) {
    st = mr_fixed_resource_create(upstream, min << i, count, &b->classes[i]);
    if (st == MR_OK) mri_fixed_set_reclaim_group(b->classes[i], b);
    if (st == MR_OK) b->class_count++;
  }
  if (st != MR_OK)
    mri_error_prefix(st, "bin(%s): class %zu of %zu", up, b->class_count + 1, classes);
  return mri_adaptor_create(&bin_ops, b, MRI_ADAPTOR_KEEPS, st, out);
}
