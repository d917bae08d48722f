/*
 * context/context_internal.h (internal): what the rest of the context layer
 * (snapshots, the operator's reports, the out-of-memory report) and its
 * tests use of a context beyond the public API.
 */
#ifndef MRCTX_LIB_CONTEXT_INTERNAL_H
#define MRCTX_LIB_CONTEXT_INTERNAL_H

#include "core/core.h"

/* Whether `ctx` was made with MR_CONTEXT_DESCRIBE_ONLY: its tags are inert
 * stand-ins that never allocate. */
bool mri_context_describe_only(const mr_context *ctx);

/* Call fn(user, ctx, id) for every live context, oldest first (`id`
 * counts contexts created in the process, from 1), with the list locked:
 * a context being destroyed meanwhile waits, one being created joins after.
 * Stops at, and returns, the first status that is not MR_OK. `fn` must not
 * create or destroy contexts. */
mr_status mri_context_foreach_live(mr_status (*fn)(void *user, const mr_context *ctx, uint64_t id),
                                   void *user);

/* `ctx` was just created (on the live list): MRCTX_VERBOSE's table and the
 * first read of the operator's variables (report.c). */
void mri_report_context_created(const mr_context *ctx);

/* An allocation of `bytes` through `library`'s `tag` on `device` failed
 * with MR_ERR_OUT_OF_MEMORY: write the out-of-memory snapshot if
 * MRCTX_OOM_SNAPSHOT asks for one and call the observer (oom.c). This
 * thread's error message is kept as it was. */
void mri_oom_report(const char *library, const char *tag, int device, size_t bytes,
                    mr_stream stream);

/* `text` written to `path` whole as the out-of-memory snapshot is
 * (core/file_write.h), one at a time with the dumps (oom.c). On failure,
 * false and a line on stderr naming `what` ("at-exit statistics"), the
 * path and why. */
bool mri_write_file_replacing(const char *path, const char *text, size_t length, const char *what);

/* Tests: read MRCTX_OOM_SNAPSHOT again at the next out-of-memory (it is
 * read once otherwise). */
void mri_oom_forget_env(void);

#endif /* MRCTX_LIB_CONTEXT_INTERNAL_H */
