/*
 * replay_streams.h: the CUDA streams `mrctx replay` replays a log's events
 * on (replay_streams.c, built where the toolkit's headers are; it opens the
 * driver itself, as the library does, and links nothing from CUDA).
 */
#ifndef MRCTX_TOOLS_REPLAY_STREAMS_H
#define MRCTX_TOOLS_REPLAY_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mrctx/mrctx.h>

/* A stream for each of the log's `count` Stream values, on `device`, in
 * out[i]: 0 is the legacy default stream (NULL), 1 and 2 are the driver's
 * own handles for the legacy and the per-thread default stream (as
 * cudaStreamLegacy and cudaStreamPerThread are), and every other value a
 * stream created for the replay. Makes `device`'s primary context current
 * on the calling thread. On failure: false and the reason in `why`. */
bool replay_streams_create(int device, const uint64_t *values, size_t count, mr_stream *out,
                           char *why, size_t cap);

/* Make `device`'s primary context current on the calling thread, as
 * replay_streams_create does on its own (each replay thread calls it, as a
 * program's threads each have their device's context). On failure: false
 * and the reason in `why`. */
bool replay_streams_make_current(int device, char *why, size_t cap);

/* Destroy the streams replay_streams_create made. */
void replay_streams_destroy(const uint64_t *values, size_t count, mr_stream *streams);

#endif
