/*
 * adaptors/adaptors_internal.h (internal): what the config and context
 * layers use from the adaptors beyond the public constructors.
 */
#ifndef MRCTX_LIB_ADAPTORS_INTERNAL_H
#define MRCTX_LIB_ADAPTORS_INTERNAL_H

#include "core/core.h"

/* A stats adaptor with a chosen description: the context wraps every tag's
 * resource in one, described as the resource it wraps, so per-tag
 * statistics and stats(UP) are one mechanism. NULL description: "stats(UP)". */
mr_status mri_stats_resource_create(mr_resource *upstream, const char *description,
                                    mr_resource **out);

/* The counters of a stats adaptor (NULL if `mr` is not one). */
const mri_stats *mri_stats_resource_counters(const mr_resource *mr);

/* Introspection for tests and tools. An arena's chunks, how many of them
 * have nothing live, and its pass-through allocations. */
mr_status mri_arena_counts(const mr_resource *mr, size_t *chunks, size_t *idle, size_t *large);
/* A fixed resource's slabs, free blocks and pass-through allocations. */
mr_status mri_fixed_counts(const mr_resource *mr, size_t *slabs, size_t *free_blocks,
                           size_t *large);

/* Return a fixed resource's idle slabs upstream without passing the trim
 * on (bin trims its classes, then its upstream once). */
mr_status mri_fixed_release_idle(mr_resource *mr);

#endif
