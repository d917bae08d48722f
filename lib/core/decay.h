/*
 * core/decay.h (internal): idle memory goes back by itself.
 *
 * Memory a keeping resource (cache, arena, fixed, bin) holds idle, and
 * memory reserved above use in the driver pools mrctx configures, goes back
 * once it stayed idle for a whole idle time (docs/semantics.md, "Idle
 * memory goes back by itself"). The models are jemalloc's dirty_decay_ms
 * and mimalloc's purge delay; what goes back is the minimum idle over a
 * window, so a working set used in every window stays and a burst's excess
 * goes back.
 *
 * One process-wide thread does it, started when the first reclaimer whose
 * idle time is not "never" registers (never in a process that configures
 * none), stopped at exit (atexit, before the driver goes) and by
 * mri_decay_stop. It wakes every idle time / MRI_DECAY_TICKS (the shortest
 * of the registered ones), with no lock held while it sleeps. Each tick,
 * under the registry's lock (mri_reclaimer_walk_locked), it:
 *  - skips reclaimers marked keep or whose idle time is never;
 *  - for one that tracks its own low-water mark (release_window: the
 *    cache, whose idle segments change only off its fast path), calls it
 *    once per window: what stayed idle the whole window goes back;
 *  - for the others, samples `idle` and keeps the window's minimum, which
 *    goes back at the window's end through release_nowait (or release);
 *  - then trims the driver pools of a device by what the adaptors of that
 *    device gave them this tick, so that memory reaches cudaMalloc users
 *    at once rather than one window later.
 * Allocations that hit do nothing for any of this: no clock read, no store.
 *
 * Stream order. release_nowait skips memory not yet known past its
 * streams' work (an event query, cuMemPoolTrimTo's own rule): a tick never
 * waits for the device. The cache's window release waits for the device
 * (its idle segments carry no events), but only at the end of a window in
 * which something stayed idle, never on every tick.
 *
 * Fork. The child has no decay thread; the next registration (a resource
 * made) or idle time set starts one again.
 *
 * Graph capture. Another thread may be capturing a graph while a tick
 * runs (PyTorch's torch.cuda.graph captures in the global mode). A tick
 * therefore runs in the relaxed capture mode (cuThreadExchangeStreamCaptureMode,
 * through the hooks the driver layer sets at load), in which the driver
 * lets it synchronize the device without refusing the call or
 * invalidating that capture, and resources give memory upstream on the
 * per-thread default stream (MRI_STREAM_PER_THREAD), never on the legacy
 * stream, which a capturing blocking stream makes unusable.
 */
#ifndef MRCTX_LIB_CORE_DECAY_H
#define MRCTX_LIB_CORE_DECAY_H

#include <stdbool.h>
#include <stdint.h>

#include <mrctx/mrctx.h>

#include "core/reclaim.h"

/* The idle time of a process that sets none (MRCTX_IDLE_TIME): the one
 * place the default lives (docs/semantics.md says why 10 s). */
#define MRI_IDLE_TIME_DEFAULT_NS (UINT64_C(10) * 1000000000u)

/* Ticks per idle time: the sampling period of the window's minimum. */
#define MRI_DECAY_TICKS 8

/* mri_reclaimer.idle_time: the process's (0, an initializer's zero) or
 * never; any other value is the resource's own, in nanoseconds. */
#define MRI_IDLE_PROCESS UINT64_C(0)
#define MRI_IDLE_NEVER UINT64_MAX

/* Parse a duration: digits and a unit (us, ms, s, m, h), or "0", "off" or
 * "never" (*ns = 0). `what` names it in the error (an mr_status with
 * mr_last_error set). */
mr_status mri_duration_parse(const char *text, const char *what, uint64_t *ns);

/* "10s", "250ms", "off" (0): how a description writes a duration. */
void mri_duration_format(uint64_t ns, char *buf, size_t cap);

/* The process's idle time in nanoseconds (0: never): MRCTX_IDLE_TIME, read
 * once, or MRI_IDLE_TIME_DEFAULT_NS. A bad value is reported on stderr,
 * once, and the default holds. */
uint64_t mri_idle_time_process(void);

/* Read MRCTX_IDLE_TIME again (tests). Returns what parsing it said. */
mr_status mri_idle_time_reread(void);

/* `r`'s idle time in nanoseconds; 0: never. */
uint64_t mri_reclaimer_idle_time(const mri_reclaimer *r);

/* A reclaimer registered (reclaim.c): start the thread if it decays. */
void mri_decay_registered(const mri_reclaimer *r);

/* One tick at `now_ns` (the thread's body; tests call it with a clock of
 * their own). Returns the period until the next one. */
uint64_t mri_decay_tick(uint64_t now_ns);

/* Set by the driver layer when the driver loads: enter the relaxed capture
 * mode on the calling thread, returning what restores the previous one
 * (negative: nothing to restore), and restore it. */
typedef int (*mri_capture_relax_fn)(void);
typedef void (*mri_capture_restore_fn)(int saved);
void mri_decay_set_capture_hooks(mri_capture_relax_fn relax, mri_capture_restore_fn restore);

/* Tests: true keeps the thread from starting (and stops it), so that only
 * mri_decay_tick decays. */
void mri_decay_manual(bool manual);

/* Stop the thread (it starts again when needed); waits for its tick. */
void mri_decay_stop(void);

/* Whether the thread runs. */
bool mri_decay_running(void);

/* Bytes the decay gave back since the process began. */
uint64_t mri_decay_released(void);

/* Tests: wait until the decay gave back at least `bytes` in all (true), or
 * the thread stopped (false). */
bool mri_decay_wait_released(uint64_t bytes);

#endif /* MRCTX_LIB_CORE_DECAY_H */
