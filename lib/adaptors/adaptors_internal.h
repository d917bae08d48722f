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

#endif
