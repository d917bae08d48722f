/*
 * destroyed.c: the final figures of destroyed contexts, for
 * MRCTX_STATS_AT_EXIT.
 *
 * The operator who sets the variable wants to know what each library
 * used, and most programs destroy their contexts before they exit (the
 * Python interpreter always does). So while the variable is set, each
 * context leaves a record as it is destroyed: what a snapshot records of
 * it (snapshot.c), read before its resources go. The at-exit report lists
 * the records after the live contexts, marked as destroyed.
 *
 * Memory stays bounded however many contexts come and go: the last
 * MRI_DESTROYED_KEPT records are kept whole, and an older one is merged
 * into one record per library name (its tags matched by name, their
 * devices by index): counts and bytes add up, peaks are the largest of
 * any one context's (they lived one after another, mostly, so the sum
 * would overstate), and a spec that differed reads "(various)". Past
 * MRI_DESTROYED_LIBRARIES merged libraries, or MRI_DESTROYED_TAGS tags in
 * one, a context is only counted (destroyed_not_kept).
 *
 * Without the variable nothing is kept and mr_context_destroy pays one
 * atomic load; the allocation path is never involved. The records' lock
 * is taken with no other lock of the library held, and none is taken
 * under it.
 */
#include <stdlib.h>
#include <string.h>

#include "context/snapshot_internal.h"
#include "core/fork.h"

enum {
  /* The latest destroyed contexts kept whole. */
  MRI_DESTROYED_KEPT = 64,
  /* Library names with a merged record, and tags in one. */
  MRI_DESTROYED_LIBRARIES = 256,
  MRI_DESTROYED_TAGS = 1024,
};

static atomic_bool keeping;
static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;
static mri_fork_lockable records_fork;
__attribute__((constructor)) static void records_fork_register(void) {
  mri_fork_register_mutex(&records_fork, &records_lock, MRI_FORK_RANK_LEAF);
}

/* Under records_lock. */
static mri_snap_context merged[MRI_DESTROYED_LIBRARIES]; /* by first merge */
static size_t merged_count;
static mri_snap_context recent[MRI_DESTROYED_KEPT]; /* a ring, oldest at recent_first */
static size_t recent_first, recent_count;
static uint64_t not_kept;

void mri_destroyed_start(void) { atomic_store(&keeping, true); }

static void merge_stats(mr_stats *into, const mr_stats *from) {
  uint64_t peak_bytes = into->peak_bytes > from->peak_bytes ? into->peak_bytes : from->peak_bytes;
  uint64_t peak_count = into->peak_count > from->peak_count ? into->peak_count : from->peak_count;
  mr_stats_add(into, from);
  into->peak_bytes = peak_bytes;
  into->peak_count = peak_count;
}

static void merge_cache(mr_cache_stats *into, const mr_cache_stats *from) {
  into->hits += from->hits;
  into->misses += from->misses;
  into->cross_stream += from->cross_stream;
  into->bypassed += from->bypassed;
  into->cached_bytes += from->cached_bytes;
  into->cached_blocks += from->cached_blocks;
  into->trims += from->trims;
}

/* `text` where it is the same in both, "(various)" where not. */
static bool merge_text(char **into, const char *from) {
  if (*into == NULL || from == NULL || strcmp(*into, from) == 0) return true;
  char *various = mri_strdup("(various)");
  if (various == NULL) return false;
  free(*into);
  *into = various;
  return true;
}

static bool merge_slot(mri_snap_slot *into, const mri_snap_slot *from) {
  merge_stats(&into->stats, &from->stats);
  if (into->has_cache && from->has_cache) merge_cache(&into->cache, &from->cache);
  return merge_text(&into->spec, from->spec) && merge_text(&into->origin, from->origin);
}

/* `from`'s slots into `into`'s, by device; a device `into` lacks moves
 * over. `from` keeps what it did not give. */
static bool merge_tag(mri_snap_tag *into, mri_snap_tag *from) {
  for (size_t d = 0; d < from->slot_count; d++) {
    mri_snap_slot *slot = NULL;
    for (size_t e = 0; e < into->slot_count && slot == NULL; e++)
      if (into->slots[e].device == from->slots[d].device) slot = &into->slots[e];
    if (slot != NULL) {
      if (!merge_slot(slot, &from->slots[d])) return false;
      continue;
    }
    mri_snap_slot *grown =
        mri_host_realloc(into->slots, (into->slot_count + 1) * sizeof *into->slots);
    if (grown == NULL) return false;
    into->slots = grown;
    into->slots[into->slot_count++] = from->slots[d];
    from->slots[d] = (mri_snap_slot){0};
  }
  return true;
}

/* The record `c` (taken over: it is freed here) merged into its library's
 * record. false: counted as not kept instead. */
static bool merge_record(mri_snap_context *c) {
  mri_snap_context *into = NULL;
  for (size_t i = 0; i < merged_count && into == NULL; i++)
    if (strcmp(merged[i].library, c->library) == 0) into = &merged[i];
  if (into == NULL) {
    if (merged_count == MRI_DESTROYED_LIBRARIES) {
      mri_snapshot_free_context(c);
      return false;
    }
    merged[merged_count++] = *c; /* the first of its library: moved as it is */
    return true;
  }
  size_t new_tags = 0;
  for (size_t t = 0; t < c->tag_count; t++) {
    bool found = false;
    for (size_t u = 0; u < into->tag_count && !found; u++)
      found = strcmp(into->tags[u].name, c->tags[t].name) == 0;
    new_tags += !found;
  }
  bool merged_whole = into->tag_count + new_tags <= MRI_DESTROYED_TAGS;
  if (merged_whole && new_tags > 0) {
    mri_snap_tag *grown =
        mri_host_realloc(into->tags, (into->tag_count + new_tags) * sizeof *into->tags);
    merged_whole = grown != NULL;
    if (grown != NULL) into->tags = grown;
  }
  for (size_t t = 0; t < c->tag_count && merged_whole; t++) {
    mri_snap_tag *tag = NULL;
    for (size_t u = 0; u < into->tag_count && tag == NULL; u++)
      if (strcmp(into->tags[u].name, c->tags[t].name) == 0) tag = &into->tags[u];
    if (tag == NULL) {
      into->tags[into->tag_count++] = c->tags[t];
      c->tags[t] = (mri_snap_tag){0};
    } else {
      merged_whole = merge_tag(tag, &c->tags[t]);
    }
  }
  if (merged_whole) {
    into->destroyed += c->destroyed;
    if (into->device_count < c->device_count) into->device_count = c->device_count;
  }
  mri_snapshot_free_context(c);
  return merged_whole;
}

void mri_destroyed_keep(const mr_context *ctx, uint64_t id) {
  if (!atomic_load_explicit(&keeping, memory_order_relaxed)) return;
  /* Read outside the lock: the context is the caller's until it returns. */
  mri_snap_context c = {0};
  mr_status st = mri_snapshot_take_final(ctx, id, &c);
  c.destroyed = 1;
  pthread_mutex_lock(&records_lock);
  if (!atomic_load(&keeping) || st != MR_OK) {
    not_kept += st != MR_OK;
    pthread_mutex_unlock(&records_lock);
    mri_snapshot_free_context(&c);
    return;
  }
  if (recent_count == MRI_DESTROYED_KEPT) {
    mri_snap_context oldest = recent[recent_first];
    recent_first = (recent_first + 1) % MRI_DESTROYED_KEPT;
    recent_count--;
    uint64_t count = oldest.destroyed;
    if (!merge_record(&oldest)) not_kept += count;
  }
  recent[(recent_first + recent_count) % MRI_DESTROYED_KEPT] = c;
  recent_count++;
  pthread_mutex_unlock(&records_lock);
}

mr_status mri_destroyed_foreach(mr_status (*fn)(void *user, const mri_snap_context *c), void *user,
                                uint64_t *not_kept_out) {
  mr_status st = MR_OK;
  pthread_mutex_lock(&records_lock);
  *not_kept_out = not_kept;
  for (size_t i = 0; i < merged_count && st == MR_OK; i++) st = fn(user, &merged[i]);
  for (size_t i = 0; i < recent_count && st == MR_OK; i++)
    st = fn(user, &recent[(recent_first + i) % MRI_DESTROYED_KEPT]);
  pthread_mutex_unlock(&records_lock);
  return st;
}

/* ---- copies, for a snapshot -------------------------------------------------------- */

static char *copy_text(const char *s, bool *ok) {
  if (s == NULL) return NULL;
  char *copy = mri_strdup(s);
  if (copy == NULL) *ok = false;
  return copy;
}

/* Records hold no blocks nor idle figures (mri_snapshot_take_final). */
static bool copy_slot(mri_snap_slot *to, const mri_snap_slot *from) {
  bool ok = true;
  *to = *from;
  to->blocks = NULL;
  to->block_count = 0;
  to->idle = NULL;
  to->idle_count = 0;
  to->spec = copy_text(from->spec, &ok);
  to->origin = copy_text(from->origin, &ok);
  to->status = copy_text(from->status, &ok);
  to->reason = copy_text(from->reason, &ok);
  to->shares = copy_text(from->shares, &ok);
  return ok;
}

static mr_status append_copy(void *user, const mri_snap_context *from) {
  mr_snapshot *snap = user;
  mri_snap_context *grown =
      mri_host_realloc(snap->contexts, (snap->context_count + 1) * sizeof *snap->contexts);
  if (grown == NULL) return MR_ERR_OUT_OF_MEMORY;
  snap->contexts = grown;
  mri_snap_context *to = &snap->contexts[snap->context_count++];
  bool ok = true;
  *to = (mri_snap_context){.id = from->id,
                           .destroyed = from->destroyed,
                           .device_count = from->device_count,
                           .library = copy_text(from->library, &ok)};
  to->tags = mri_calloc(from->tag_count ? from->tag_count : 1, sizeof *to->tags);
  if (!ok || to->tags == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t t = 0; t < from->tag_count; t++) {
    const mri_snap_tag *tag = &from->tags[t];
    mri_snap_tag *copy = &to->tags[to->tag_count++];
    copy->name = copy_text(tag->name, &ok);
    copy->slots = mri_calloc(tag->slot_count ? tag->slot_count : 1, sizeof *copy->slots);
    if (!ok || copy->slots == NULL) return MR_ERR_OUT_OF_MEMORY;
    for (size_t d = 0; d < tag->slot_count; d++)
      if (!copy_slot(&copy->slots[copy->slot_count++], &tag->slots[d])) return MR_ERR_OUT_OF_MEMORY;
  }
  return MR_OK;
}

mr_status mri_destroyed_append(mr_snapshot *snap) {
  return mri_destroyed_foreach(append_copy, snap, &snap->destroyed_not_kept);
}

void mri_destroyed_stop(void) {
  pthread_mutex_lock(&records_lock);
  atomic_store(&keeping, false);
  for (size_t i = 0; i < merged_count; i++) mri_snapshot_free_context(&merged[i]);
  for (size_t i = 0; i < recent_count; i++)
    mri_snapshot_free_context(&recent[(recent_first + i) % MRI_DESTROYED_KEPT]);
  merged_count = recent_first = recent_count = 0;
  pthread_mutex_unlock(&records_lock);
}
