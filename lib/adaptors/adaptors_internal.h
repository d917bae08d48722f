/*
 * adaptors/adaptors_internal.h (internal): what the config and context
 * layers use from the adaptors beyond the public constructors.
 */
#ifndef MRCTX_LIB_ADAPTORS_INTERNAL_H
#define MRCTX_LIB_ADAPTORS_INTERNAL_H

#include <stddef.h>

#include "core/core.h"
#include "core/reclaim.h"
#include "core/stats.h"

/* ---- the adaptor skeleton (adaptor.c) ------------------------------------
 *
 * Every adaptor is built the same way:
 *
 *   mr_status st = mri_adaptor_check(&arena_ops, upstream, out);
 *   if (st != MR_OK) return st;
 *   ... check the parameters, give those that are 0 their defaults ...
 *   arena_state *a = mri_adaptor_alloc(sizeof *a, upstream, "arena(%s, chunk=%s)",
 *                                      mr_resource_describe(upstream), size);
 *   if (a == NULL) return MR_ERR_OUT_OF_MEMORY;
 *   ... the rest of the state; st = its first failure ...
 *   return mri_adaptor_create(&arena_ops, a, MRI_ADAPTOR_KEEPS, st, out);
 *
 * and every destroy ends with mri_adaptor_free(state).
 */

/* What every adaptor's state begins with, under these names and in this
 * order (MRI_ADAPTOR_STATE checks it): the upstream, a reference of the
 * adaptor's own, and the description, the resolved spec text that the
 * adaptor's messages quote. */
typedef struct mri_adaptor_head {
  mr_resource *upstream;
  char *description;
} mri_adaptor_head;

#define MRI_ADAPTOR_STATE(type)                                                              \
  _Static_assert(offsetof(type, upstream) == offsetof(mri_adaptor_head, upstream) &&         \
                     offsetof(type, description) == offsetof(mri_adaptor_head, description), \
                 #type " must begin with mri_adaptor_head's fields")

/* How an adaptor's properties differ from its upstream's (kind, device and
 * access are always the upstream's). */
typedef enum mri_adaptor_memory {
  /* Passes every request on: any alignment (native_alignment 0), and the
   * upstream's stream order. */
  MRI_ADAPTOR_PASSES,
  /* Hands out 256-byte-aligned memory it keeps and reuses in stream order
   * wherever device work can touch it (mri_reuse_follows_streams): native
   * alignment 256, stream-ordered there. */
  MRI_ADAPTOR_KEEPS,
} mri_adaptor_memory;

/* A constructor's first step: `out` must not be NULL (*out is set NULL),
 * nor `upstream`. MR_ERR_INVALID_ARGUMENT naming the adaptor (ops->name),
 * "arena: upstream is NULL". */
mr_status mri_adaptor_check(const mr_resource_ops *ops, mr_resource *upstream, mr_resource **out);

/* A zeroed state of `size` bytes whose head holds a new reference to
 * `upstream` and the description, printf'd from `format`. NULL, with
 * MR_ERR_OUT_OF_MEMORY set and nothing to undo, when host memory ran out. */
void *mri_adaptor_alloc(size_t size, mr_resource *upstream, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* A constructor's last step. If `st` is MR_OK, the resource over `state`,
 * described and with properties as its head and `memory` say; from then
 * on the resource owns the state. Otherwise, or if that fails, the state
 * is destroyed with ops->destroy (which must cope with whatever the
 * constructor set up so far) and the error, its message kept, returned. */
mr_status mri_adaptor_create(const mr_resource_ops *ops, void *state, mri_adaptor_memory memory,
                             mr_status st, mr_resource **out);

/* The tail of every adaptor's destroy: release the upstream, free the
 * description and the state itself. */
void mri_adaptor_free(void *state);

/* Instead of mri_adaptor_create, for an adaptor whose creation would touch
 * the world (a log opening its file) while this thread only describes
 * (mri_describe_only, core.h): the inert stand-in with the description and
 * properties the resource would have had. The state -- its head, nothing
 * else set up -- is freed with mri_adaptor_free either way. */
mr_status mri_adaptor_describe_only(void *state, mri_adaptor_memory memory, mr_resource **out);

/* Method bodies for adaptors that pass the call to their upstream. */
mr_status mri_forward_synchronize(void *self, mr_stream stream);
mr_status mri_forward_trim(void *self);

/* ---- for the config and context layers ---------------------------------- */

/* A stats adaptor with a chosen description: the context wraps every tag's
 * resource in one, described as the resource it wraps, so per-tag
 * statistics and stats(UP) are one mechanism. NULL description: "stats(UP)". */
mr_status mri_stats_resource_create(mr_resource *upstream, const char *description,
                                    mr_resource **out);

/* What a context's tag wrapper adds to the stats adaptor: the label
 * "library:tag", which NVTX tools are given for each allocation, and who to
 * tell when an allocation fails with MR_ERR_OUT_OF_MEMORY (after the
 * chain's retry gave up): `on_oom`, on the allocating thread, with the
 * failure's message as this thread's last error (it must leave it so). */
typedef struct mri_tag_hooks {
  const char *label; /* copied */
  void (*on_oom)(void *user, size_t bytes, mr_stream stream);
  void *user;
  /* With MR_STATS_PEAK_EXACT: the exact peaks of a stats adaptor below
   * that sees exactly this wrapper's allocations (mri_stats_exact_below,
   * alone), read instead of keeping a second set; NULL: the wrapper keeps
   * its own. */
  mri_stats_exact *shared_exact;
} mri_tag_hooks;

/* mri_stats_resource_create with a way of keeping peaks and a context's
 * hooks (NULL: none): the one constructor of stats adaptors. */
mr_status mri_tag_resource_create(mr_resource *upstream, const char *description,
                                  mr_stats_peak peak, const mri_tag_hooks *hooks,
                                  mr_resource **out);

/* The exact peaks of the first stats adaptor of `mr`'s chain, going down
 * through retry, log and track (which hand allocations on unchanged), if
 * it keeps them; else NULL. OUT: *alone, whether every resource from `mr`
 * down to that adaptor has one reference, the one above it (`mr`'s being
 * the caller's): then nothing else allocates through the adaptor, and its
 * peaks are exactly those of what `mr` hands out. A context's tag wrapper
 * keeps its peaks the way the tag's spec asks, so tag=stats(UP,
 * peak=exact) makes the tag's statistics exact too, at no further cost
 * where the adaptor is the tag's alone. */
mri_stats_exact *mri_stats_exact_below(const mr_resource *mr, bool *alone);

/* The counters of a stats adaptor (NULL if `mr` is not one). */
const mri_stats *mri_stats_resource_counters(const mr_resource *mr);

/* Introspection for tests and tools. An arena's chunks, how many of them
 * have nothing live, and its pass-through allocations. */
mr_status mri_arena_counts(const mr_resource *mr, size_t *chunks, size_t *idle, size_t *large);
/* A fixed resource's slabs, free blocks and pass-through allocations. */
mr_status mri_fixed_counts(const mr_resource *mr, size_t *slabs, size_t *free_blocks,
                           size_t *large);

/* The calling thread's stacks in the cache `mr`: the bytes they hold now,
 * every stream's together, and the most they may hold now (the thread's
 * byte bound). Zero for a thread that never used the cache. */
mr_status mri_cache_thread_stacks(const mr_resource *mr, size_t *bytes, size_t *bound);

/* True if `ptr` is a block of the fixed resource `mr` (in one of its slabs,
 * or one of its pass-through allocations). */
bool mri_fixed_owns(const mr_resource *mr, const void *ptr);

/* Return a fixed resource's idle slabs upstream without passing the trim
 * on (bin trims its classes, then its upstream once). */
mr_status mri_fixed_release_idle(mr_resource *mr);
/* A bin's class: its idle memory is kept or reclaimed as the bin's
 * (`group`: the bin's state; mr_resource_keep_idle). */
void mri_fixed_set_reclaim_group(mr_resource *mr, const void *group);

/* Whether `mr` is the library's own retry, log, track or cache adaptor:
 * made by that kind's constructor, over the ops table the library defines
 * for it (mr_resource_state's check, a pointer comparison). The name does
 * not tell: an application's resource may give its ops any name, "cache"
 * included, and is none of these. One function per kind, so that a
 * misspelt kind does not compile. NULL is none of them. */
bool mri_is_retry(const mr_resource *mr);
bool mri_is_log(const mr_resource *mr);
bool mri_is_track(const mr_resource *mr);
bool mri_is_cache(const mr_resource *mr);

/* track(UP, stacks=N)'s N, for snapshots (which copy that many frames per
 * block under the tracker's lock); 0 for a tracker without stacks or a
 * resource that is no tracker. */
size_t mri_track_stack_depth(const mr_resource *mr);

/* frame_source.c: the frames the registered source (mr_track_set_frame_source)
 * gives for the allocation being made on this thread, at most `cap`,
 * innermost first, as interned entries that live for the process; 0 where
 * no source is set or it gives none. Never fails: a frame that cannot be
 * interned (no host memory) is left out. */
size_t mri_track_runtime_frames(const void **frames, size_t cap);
/* Whether `frame` is such an entry; if so its text, "function
 * (file:line)", into `buf` (cut to `cap` bytes). */
bool mri_track_describe_runtime_frame(const void *frame, char *buf, size_t cap);

#endif
