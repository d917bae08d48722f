/*
 * context/context_internal.h (internal): context creation with resolver
 * options, for tests that must not build certain names (the fuzzer resolves
 * host-only: see tests/fuzz).
 */
#ifndef MRCTX_LIB_CONTEXT_INTERNAL_H
#define MRCTX_LIB_CONTEXT_INTERNAL_H

#include "core/core.h"

/* mr_context_create, except that no factory runs for names where
 * `skip_factory` is true: such calls are checked and stand in as
 * unavailable resources (status MR_ERR_UNSUPPORTED). */
mr_status mri_context_create(const mr_context_desc *desc,
                             bool (*skip_factory)(const char *name),
                             mr_context **ctx);

#endif /* MRCTX_LIB_CONTEXT_INTERNAL_H */
