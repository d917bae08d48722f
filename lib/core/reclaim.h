/*
 * core/reclaim.h (internal): one process, one memory.
 *
 * Every resource that keeps idle memory (a cache's segments and threads'
 * stacks, an arena's chunks, fixed blocks and so bins, the driver pools
 * mrctx owns or whose release threshold it raised) registers a reclaimer
 * here at creation and unregisters it at destroy. An allocation that runs
 * out of memory in the driver (lib/driver) then takes idle memory back from
 * every registered resource of the process on that device -- every
 * context's, every tag's, resources made directly -- and retries once,
 * before any retry adaptor or OOM handler above sees the failure;
 * mr_release_idle does the same on demand (docs/semantics.md, "One
 * process, one memory").
 *
 * Locks. The registry's lock is held across a whole reclaim: a resource
 * cannot be destroyed (its unregister waits) while a reclaim may call it,
 * and reclaims run one at a time. A reclaimer's `release` may take its
 * resource's own locks: no built-in resource holds one of its locks while
 * it calls its upstream, so the thread whose allocation failed holds none,
 * and no thread waits for the registry's lock while holding a resource's.
 * `release` never allocates device memory: a reclaim cannot recurse into
 * another (and a thread that is reclaiming, say through an OOM handler
 * running under one, never starts a second).
 *
 * Stream order. `release` gives back only memory no stream can still use:
 * it waits for the device first (a reclaim is the out-of-memory slow path
 * or an explicit request; a device synchronization there costs little
 * beside failing, and skipping would leave the most recently freed memory,
 * usually the bulk, where no one else can get it).
 */
#ifndef MRCTX_LIB_CORE_RECLAIM_H
#define MRCTX_LIB_CORE_RECLAIM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mrctx/mrctx.h>

/* Give back idle memory of `obj`, about `goal` bytes or more (0: all of
 * it); *released gets the bytes that went back. Live memory is never
 * touched. An error leaves the memory that could not go back where it was. */
typedef mr_status (*mri_release_idle_fn)(void *obj, size_t goal, size_t *released);
/* The bytes `obj` keeps idle now (for messages and statistics). */
typedef size_t (*mri_idle_bytes_fn)(void *obj);
/* Start a new window of `obj`'s low-water mark of idle memory, which it
 * tracks itself; with `release`, first give back what stayed idle since
 * the previous call. *released gets the bytes that went back
 * (core/decay.h). */
typedef mr_status (*mri_decay_window_fn)(void *obj, bool release, size_t *released);

/* Device matched by reclaims: a device id for device memory, -1 for memory
 * on the host side (pinned, managed). */
#define MRI_RECLAIM_HOST (-1)
/* The device a resource over memory with `props` registers with. */
static inline int mri_reclaim_device_of(const mr_resource_props *props) {
  return props->kind == MR_MEMORY_DEVICE ? props->device : MRI_RECLAIM_HOST;
}

/* mri_reclaim's `device` for every resource of the process. */
#define MRI_RECLAIM_ALL (-2)

/* A reclaimer's label: "library:tag", cut to fit. */
#define MRI_RECLAIM_LABEL_CAP 128

typedef struct mri_reclaimer {
  mri_release_idle_fn release;
  mri_idle_bytes_fn idle; /* may be NULL */
  void *obj;
  int device;
  const char *what; /* the resource's description (the resource owns it) */
  /* Driver pools: reclaimed after every adaptor of the device, which give
   * their idle memory back to them first. */
  bool pool;
  /* Excluded from process-wide reclaims (keep=yes); its own trim still
   * gives the memory back. */
  _Atomic bool keep;
  /* Whose keep setting applies: the state (self) of the resource the
   * application sees; NULL: obj's (a bin's classes take the bin's). */
  const void *group;
  /* What reclaims took back from it. */
  _Atomic uint64_t reclaims, reclaimed_bytes, reclaim_ns;
  /* Idle memory goes back by itself (core/decay.h): its idle time
   * (MRI_IDLE_PROCESS, the zero of an initializer: MRCTX_IDLE_TIME's), a
   * way to give back without waiting for any stream, and the decay's own
   * state (its thread's, under the registry's lock). */
  _Atomic uint64_t idle_time;
  mri_release_idle_fn release_nowait;
  mri_decay_window_fn release_window;
  uint64_t decay_start;
  size_t decay_low;
  /* What the last reclaim that took something took (its generation, see
   * mri_reclaim_generation, and bytes), under the registry's lock: what an
   * allocation that still fails names (reclaim_report.c). */
  uint64_t last_generation;
  size_t last_released;
  /* "library:tag" of the first context tag whose chain holds it (""
   * until one does: resources made directly, the driver's default pools),
   * under the registry's lock (mri_reclaimer_label). */
  char label[MRI_RECLAIM_LABEL_CAP];
  struct mri_reclaimer *prev, *next; /* the registry's, under its lock */
  bool registered;
} mri_reclaimer;

/* Add `r` (its release, idle, obj, device, what and pool set); no lock of the
 * resource may be held. */
void mri_reclaimer_register(mri_reclaimer *r);
/* Remove `r` (no-op if not registered); waits for a reclaim in progress
 * to end, so call it before the resource's state goes, with none of its
 * locks held. */
void mri_reclaimer_unregister(mri_reclaimer *r);

/* The resource `self` (a reclaimer's group, or obj) changed its
 * description from `was` to `now` (keep=, idle=): reclaimers that named it
 * by `was` (a driver pool's, expandable's) name it by `now`, under the
 * registry's lock, before the caller frees `was`. */
void mri_reclaimer_rename(const void *self, const char *was, const char *now);

/* Set `r`'s group (see above): before the resource is returned to anyone. */
void mri_reclaimer_set_group(mri_reclaimer *r, const void *group);

/* What one reclaim did. */
typedef struct mri_reclaim_result {
  size_t released;     /* bytes given back */
  size_t resources;    /* reclaimers that gave something back */
  size_t kept;         /* idle bytes left on the device: marked keep, or still in use by streams */
  mr_status status;    /* the first failure of a release; MR_OK if none */
  int device;          /* the device reclaimed (MRI_RECLAIM_ALL, MRI_RECLAIM_HOST) */
  uint64_t ns;         /* how long the walk took */
  uint64_t generation; /* the reclaim's number (mri_reclaim_generation once it ended) */
  /* From mri_reclaim_take_failure: the first of the reclaims (one after
   * the other) that the failed allocation went through, its retries'
   * included, whose figures above are summed; else `generation`. */
  uint64_t first_generation;
  bool shared; /* another thread's reclaim served this failure: nothing else set */
  /* Reclaimers outside mrctx (mrctx/reclaim.h, core/reclaimers.h): how many
   * were called, the bytes they reported. */
  size_t external_called, external_released;
  /* mri_reclaim_after_oom's progress: 0 none yet, 1 the adaptors' idle
   * memory (back to the pools beneath them), 2 the pools trimmed too, 3
   * the reclaimers outside mrctx too. */
  int stage;
  /* Bytes the adaptors gave back that no pool pass trimmed yet, and what
   * the pool passes trimmed (released counts a byte once). */
  size_t untrimmed, pools_released;
} mri_reclaim_result;

/* What started a reclaim: said in MRCTX_VERBOSE's line for it. */
typedef enum mri_reclaim_trigger {
  MRI_RECLAIM_ON_OOM,     /* an allocation ran out of device memory */
  MRI_RECLAIM_ON_REQUEST, /* mr_release_idle (and Python's release_idle) */
} mri_reclaim_trigger;

/* Take idle memory back from every reclaimer of `device` (MRI_RECLAIM_ALL:
 * of all), until `goal` bytes went back (0: everything), for `trigger`.
 * Reclaimers marked keep are skipped. On a thread already reclaiming,
 * nothing. */
void mri_reclaim(int device, size_t goal, mri_reclaim_trigger trigger, mri_reclaim_result *result);

/* Counts completed reclaims. An allocation that failed reads it at its
 * failure and passes it to mri_reclaim_after_oom. */
uint64_t mri_reclaim_generation(void);

/* After an allocation on `device` of `bytes` failed for want of memory:
 * true if it should try once more. Call it again each time the retry
 * fails, with the same *result (zeroed before the first call): it goes
 * one stage further each time and says false when none is left.
 * Stage 1, mrctx's own idle memory: if a reclaim ended after `generation`
 * was read (another thread's, sharing it), true at once; otherwise after a
 * reclaim of the device, if that gave anything back. Stage 2 (also at once
 * when stage 1 gave nothing back), the reclaimers outside mrctx: true if
 * any was called, with no lock held (core/reclaimers.h). false on a thread
 * that is reclaiming already (an OOM handler under a reclaim, or a
 * reclaimer's callback). *result says what this thread's reclaims did
 * (zeros when it shared another's). */
bool mri_reclaim_after_oom(int device, size_t bytes, uint64_t generation,
                           mri_reclaim_result *result);

/* Append to this thread's error message what a reclaim that did not help
 * took back and what stayed idle. Returns `status`. */
mr_status mri_reclaim_explain(mr_status status, const mri_reclaim_result *result);

/* ---- what reclaims did, for people (reclaim_report.c) ---- */

/* Label every reclaimer of `mr` (and of a bin's classes) that has none
 * with `label` ("library:tag"): contexts call it for each resource of a
 * tag's chain once the chain is built, so the first tag that holds a
 * shared resource names it. Not on any allocation path. */
void mri_reclaimer_label(const mr_resource *mr, const char *label);

/* One reclaimer's figures (or a resource's, its reclaimers summed). The
 * strings are the registry's: valid during the callback only. */
typedef struct mri_reclaim_figures {
  const char *what;  /* the resource's description */
  const char *label; /* "library:tag", or "" */
  int device;        /* as mri_reclaimer.device */
  bool pool, keep;
  uint64_t idle_bytes; /* idle now */
  uint64_t reclaims, reclaimed_bytes, reclaim_ns;
} mri_reclaim_figures;

/* Call `fn` for every reclaimer, under the registry's lock, this thread
 * marked reclaiming meanwhile (no reclaim starts on it while it holds the
 * lock): the decay's ticks (decay.c) and the reports (reclaim_report.c).
 * Completed reclaims are not counted. */
void mri_reclaimer_walk_locked(void (*fn)(void *user, mri_reclaimer *r), void *user);

/* The figures of `mr`'s reclaimers (a bin's classes summed with it);
 * false if it keeps no idle memory of its own (none registered). */
bool mri_reclaim_figures_of(const mr_resource *mr, mri_reclaim_figures *out);

/* Call `fn` for every reclaimer of the process, newest first, under the
 * registry's lock: `fn` may allocate host memory, never device memory,
 * and must not reclaim. */
void mri_reclaimer_foreach(void (*fn)(void *user, const mri_reclaim_figures *f), void *user);

/* After a reclaim ended (the registry's lock released): MRCTX_VERBOSE's
 * line for it, one line on stderr. `bytes`: what the failed allocation
 * asked (ON_OOM) or the goal (ON_REQUEST, 0: all). */
void mri_reclaim_log(mri_reclaim_trigger trigger, size_t bytes, const mri_reclaim_result *result);
/* Forget MRCTX_VERBOSE as read: the next reclaim reads it again (tests). */
void mri_reclaim_forget_env(void);

/* This thread's last allocation that still failed after a reclaim
 * (recorded by mri_reclaim_explain): taken once, cleared by taking. false
 * if there is none. The out-of-memory report (context/oom.c) takes it.
 * Failures noted one after the other, with no reclaim between them (a
 * retry adaptor's attempts), are summed into one. */
bool mri_reclaim_take_failure(mri_reclaim_result *out);
void mri_reclaim_note_failure(const mri_reclaim_result *result);

/* "liba:work 11.0 GiB (keep=yes), libc:tmp 2.0 GiB": the idle memory of
 * `device` that library:tags other than `exclude` (may be NULL) held
 * before the reclaim `result` says of (what it took back from them and
 * what stays), biggest first, `most` of them and a count of the rest.
 * Written into `buf`; false (buf "") when no other one held any. */
bool mri_reclaim_idle_elsewhere(const mri_reclaim_result *result, const char *exclude, size_t most,
                                char *buf, size_t cap);

#endif /* MRCTX_LIB_CORE_RECLAIM_H */
