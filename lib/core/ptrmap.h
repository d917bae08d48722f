/*
 * core/ptrmap.h (internal): the pointer map (ptrmap.c), from a block's
 * address to how it was allocated, which the keeping adaptors, track and
 * the core's over-aligned path look blocks up in.
 */
#ifndef MRCTX_LIB_CORE_PTRMAP_H
#define MRCTX_LIB_CORE_PTRMAP_H

#include "core/core.h"

/* An open-addressing hash map from a block's pointer to the record of how
 * it was allocated, which a free checks and passes back upstream. Not
 * thread-safe: callers hold their own lock. */
typedef struct mri_ptrmap_value {
  size_t bytes;     /* the size the block was allocated with */
  size_t alignment; /* the alignment it was allocated with */
  union {
    mr_stream stream; /* track: the stream it was allocated on */
    void *raw;        /* over-aligned: the upstream block the key points into
                         (bytes and alignment are then that block's) */
  };
  uint64_t time_ns; /* track: when it was allocated (mri_monotonic_ns) */
} mri_ptrmap_value;

typedef struct mri_ptrmap mri_ptrmap;

mri_ptrmap *mri_ptrmap_create(void);
void mri_ptrmap_destroy(mri_ptrmap *map);
/* Insert or replace. MR_ERR_OUT_OF_MEMORY if it cannot grow. */
mr_status mri_ptrmap_put(mri_ptrmap *map, const void *key, mri_ptrmap_value value);
/* Remove `key`; true (and *value) if it was there. */
bool mri_ptrmap_take(mri_ptrmap *map, const void *key, mri_ptrmap_value *value);
bool mri_ptrmap_get(const mri_ptrmap *map, const void *key, mri_ptrmap_value *value);
size_t mri_ptrmap_count(const mri_ptrmap *map);
/* Visit every entry (the map must not change meanwhile). */
void mri_ptrmap_foreach(const mri_ptrmap *map,
                        void (*fn)(void *user, const void *key, const mri_ptrmap_value *value),
                        void *user);

#endif /* MRCTX_LIB_CORE_PTRMAP_H */
