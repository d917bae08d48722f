/*
 * mylib.h: a tiny library that shows how a library uses mrctx (the
 * walk-through in docs/library-authors.md follows this file and mylib.c).
 *
 * mylib de-duplicates integers. It declares three kinds of allocation --
 * scratch space, a staging copy of the input, and the result it hands back
 * -- as tags, creates one mr_context, and takes that context in every call.
 * Applications change where each kind of memory comes from without
 * rebuilding: MYLIB_MEMORY='temp=cache(host); staging=host'.
 *
 * mylib works on the host, so every tag must resolve to host-accessible
 * memory (host, pinned or managed); calls say so if one does not.
 */
#ifndef MYLIB_H
#define MYLIB_H

#include <mrctx/mrctx.h>

/* mylib's allocation kinds: tag value i is mylib_tags[i]. */
enum mylib_tag {
  MYLIB_TEMP,    /* scratch space, freed before a call returns */
  MYLIB_STAGING, /* a page-locked copy of the input */
  MYLIB_RESULT,  /* what mylib returns; the caller frees it with mylib_free */
  MYLIB_TAG_COUNT
};

extern const mr_tag mylib_tags[MYLIB_TAG_COUNT];

/* The environment variable operators set to override mylib's memory. */
#define MYLIB_MEMORY_VARIABLE "MYLIB_MEMORY"

/* Create mylib's context. `overrides` is the application's override text
 * (NULL for none); MYLIB_MEMORY, if set, beats it. OUT: *ctx, destroy with
 * mr_context_destroy. */
mr_status mylib_context_create(const char *overrides, mr_context **ctx);

/* The distinct values of in[0..n), ascending, in memory from the RESULT
 * tag. Stream-ordered: the work and its temporaries are ordered on
 * `stream`; the call waits for `stream` before it touches memory. OUT:
 * *out (NULL when *out_n is 0) and *out_n. */
mr_status mylib_unique(const mr_context *ctx, const int32_t *in, size_t n, mr_stream stream,
                       int32_t **out, size_t *out_n);

/* Free a result of mylib_unique, on the same device, after `stream`'s
 * prior work. */
mr_status mylib_free(const mr_context *ctx, int32_t *result, size_t n, mr_stream stream);

#endif /* MYLIB_H */
