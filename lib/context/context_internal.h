/*
 * context/context_internal.h (internal): what the rest of the context layer
 * (snapshots, the out-of-memory report) and its tests use of a context
 * beyond the public API.
 */
#ifndef MRCTX_LIB_CONTEXT_INTERNAL_H
#define MRCTX_LIB_CONTEXT_INTERNAL_H

#include "core/core.h"

/* The index of `ctx`'s tag called `name`, -1 if it has none (a binary
 * search: usable while the context is being created, once its tags are). */
int mri_context_find_tag(const mr_context *ctx, const char *name);
/* "temp, pinned, result": the context's tags, for messages. */
const char *mri_context_tag_list(const mr_context *ctx);

/* Call fn(user, ctx, id) for every live context, oldest first (`id`
 * counts contexts created in the process, from 1), with the list locked:
 * a context being destroyed meanwhile waits, one being created joins after.
 * Stops at, and returns, the first status that is not MR_OK. `fn` must not
 * create or destroy contexts. */
mr_status mri_context_foreach_live(mr_status (*fn)(void *user, const mr_context *ctx, uint64_t id),
                                   void *user);

/* An allocation of `bytes` through `library`'s `tag` on `device` failed
 * with MR_ERR_OUT_OF_MEMORY: write the out-of-memory snapshot if
 * MRCTX_OOM_SNAPSHOT asks for one and call the observer (oom.c). This
 * thread's error message is kept as it was. */
void mri_oom_report(const char *library, const char *tag, int device, size_t bytes,
                    mr_stream stream);

/* Tests: read MRCTX_OOM_SNAPSHOT again at the next out-of-memory (it is
 * read once otherwise). */
void mri_oom_forget_env(void);

#endif /* MRCTX_LIB_CONTEXT_INTERNAL_H */
