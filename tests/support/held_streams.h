/*
 * held_streams.h: the scenarios behind mrctx's first promise — a block is
 * never handed out again before the GPU is done with it — run against any
 * resource, with a stream held on the GPU by cuStreamWaitValue32 on a host
 * word (a gate). Shared by the fake suite (which checks pointers: the fake
 * driver writes memory at once) and the gpu suite (which checks pointers
 * and the bytes the held stream finally wrote).
 *
 * Every scenario opens its gate before it asserts anything, so a failure
 * never leaves the GPU waiting; the process also arms alarm() as a last
 * resort (held_streams_init).
 */
#ifndef MRCTX_HELD_STREAMS_H
#define MRCTX_HELD_STREAMS_H

#include "driver/cuda_api.h"
#include "test_util.h"

/* Call once per process, with a context current: allocates the gate word
 * (pinned, mapped host memory) and arms a watchdog of `seconds` times
 * TIMEOUT_MULTIPLIER (test_watchdog_seconds). */
void held_streams_init(unsigned seconds);

/* 1. Freed on A while A is held; allocated on B: never the same block
 *    while A is held, and B's bytes survive A's late write. */
void held_other_stream(mr_resource *mr, size_t bytes);

/* 2. Freed on A while A is held; A destroyed; B created (the driver hands
 *    it A's handle where it can: checked and reported, not required);
 *    allocated on B: as above. */
void held_destroyed_stream(mr_resource *mr, size_t bytes);

/* 3. A thread frees on its stream A while A is held, destroys A and exits;
 *    this thread allocates on a new stream: as above. */
void held_exited_thread(mr_resource *mr, size_t bytes);

/* 4. Freed on A (not held); A begins a capture; an allocation on A during
 *    the capture is never the block the resource keeps. The allocation is
 *    freed in the capture, which is then ended and dropped. */
void held_capture(mr_resource *mr, size_t bytes);

/* 5. Allocated on S; a held stream R writes it late; the block is
 *    recorded on R (mr_record_stream) and freed on S: allocated again on
 *    another stream it is never the block while R is held, and on S itself
 *    (which waits for R) the new owner's bytes survive R's late write. */
void held_recorded_stream(mr_resource *mr, size_t bytes);

/* 6. Allocated on A (2 x bytes), then another block after it; A is held
 *    and writes the first block late; it is freed on A and a larger one
 *    (3 x bytes) allocated on A and filled there: reuse on one stream is
 *    ordered, so it may be the freed memory, but the late write must land
 *    (no page of it moved while the write was pending: expandable's) and
 *    the new owner's bytes after it. */
void held_same_stream(mr_resource *mr, size_t bytes);

/* Every scenario for `spec` (resolved on device 0), `bytes` per block (the
 * capture scenario for blocks of up to 64 KiB, which every resource of
 * held_specs.h keeps). */
void held_all(const char *spec, size_t bytes);

#endif
