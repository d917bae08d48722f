/*
 * snapshot_memory_viz.c: a snapshot as PyTorch's memory_viz reads it
 * (mr_snapshot_write_memory_viz; core/memory_viz.h writes the format).
 *
 * What a snapshot knows of blocks is what its track(...)s list: each
 * tracked tag's largest live blocks on each device, with their age and,
 * with stacks=N, their call sites. Each becomes a segment holding one
 * block (mrctx records no cache's segment layout), owned by the pool of
 * its library:tag, and an allocation in the device's timeline at the
 * snapshot's time less its age, oldest first. A snapshot knows of no frees,
 * so the timeline only climbs; an out-of-memory dump ends with the failed
 * allocation ("oom", with the device's free memory where the snapshot read
 * it). Tags without a track(...) have no blocks to show.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context/snapshot_internal.h"
#include "core/memory_viz.h"

/* The blocks and their allocations, as the writer takes them. */
typedef struct viz_build {
  mri_memviz_block *blocks;
  mri_memviz_event *events;
  char **owners; /* one "library:tag" per block (the blocks point into them) */
  size_t count, capacity;
} viz_build;

static void build_free(viz_build *b) {
  for (size_t i = 0; i < b->count; i++) free(b->owners[i]);
  free(b->blocks);
  free(b->events);
  free(b->owners);
}

static mr_status add_block(viz_build *b, const mri_snap_context *c, const mri_snap_tag *t,
                           const mri_snap_slot *s, const mri_snap_block *k, uint64_t now_ns) {
  if (k->age_ns > now_ns)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_snapshot_write_memory_viz: the block at 0x%" PRIx64
                     " of %s:%s on device %d is %" PRIu64
                     " ns old, more than the snapshot's time_unix_ns %" PRIu64
                     " (allocated before 1970): a damaged snapshot?",
                     k->ptr, c->library, t->name, s->device, k->age_ns, now_ns);
  if (b->count == b->capacity) {
    size_t capacity = b->capacity ? 2 * b->capacity : 64;
    mri_memviz_block *blocks = realloc(b->blocks, capacity * sizeof *blocks);
    if (blocks != NULL) b->blocks = blocks;
    mri_memviz_event *events = realloc(b->events, capacity * sizeof *events);
    if (events != NULL) b->events = events;
    char **owners = realloc(b->owners, capacity * sizeof *owners);
    if (owners != NULL) b->owners = owners;
    if (blocks == NULL || events == NULL || owners == NULL)
      return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_snapshot_write_memory_viz: out of host memory");
    b->capacity = capacity;
  }
  char *owner = NULL;
  if (asprintf(&owner, "%s:%s", c->library, t->name) < 0)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_snapshot_write_memory_viz: out of host memory");
  size_t i = b->count++;
  b->owners[i] = owner;
  b->blocks[i] = (mri_memviz_block){.owner = owner,
                                    .device = s->device,
                                    .ptr = k->ptr,
                                    .bytes = k->bytes,
                                    .stream = k->stream,
                                    .frames = (const char *const *)k->frames,
                                    .frame_count = k->frame_count,
                                    .live = true};
  b->events[i] = (mri_memviz_event){
      .time_us = (now_ns - k->age_ns) / 1000, .action = MRI_MEMVIZ_ALLOC, .block = i};
  return MR_OK;
}

/* Oldest first; of two allocated in the same microsecond, the snapshot's
 * order. */
static int by_time(const void *a, const void *b) {
  const mri_memviz_event *x = a, *y = b;
  if (x->time_us != y->time_us) return x->time_us < y->time_us ? -1 : 1;
  return x->block < y->block ? -1 : x->block > y->block ? 1 : 0;
}

mr_status mr_snapshot_write_memory_viz(const mr_snapshot *snap, FILE *out) {
  if (snap == NULL || out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_write_memory_viz: NULL argument");
  viz_build b = {0};
  mr_status st = MR_OK;
  for (size_t ci = 0; ci < snap->context_count && st == MR_OK; ci++) {
    const mri_snap_context *c = &snap->contexts[ci];
    for (size_t ti = 0; ti < c->tag_count && st == MR_OK; ti++) {
      const mri_snap_tag *t = &c->tags[ti];
      for (size_t si = 0; si < t->slot_count && st == MR_OK; si++) {
        const mri_snap_slot *s = &t->slots[si];
        for (size_t k = 0; k < s->block_count && st == MR_OK; k++)
          st = add_block(&b, c, t, s, &s->blocks[k], snap->time_unix_ns);
      }
    }
  }
  /* The failed allocation of an out-of-memory dump, last. */
  mri_memviz_event oom = {0};
  if (st == MR_OK && snap->has_oom) {
    oom = (mri_memviz_event){.time_us = snap->time_unix_ns / 1000,
                             .action = MRI_MEMVIZ_OOM,
                             .device = snap->oom.device,
                             .bytes = snap->oom.bytes,
                             .stream = snap->oom.stream};
    for (size_t d = 0; d < snap->device_count; d++)
      if (snap->devices[d].device == snap->oom.device)
        oom.device_free = snap->devices[d].free_bytes;
    if (b.count == b.capacity) {
      mri_memviz_event *events = realloc(b.events, (b.count + 1) * sizeof *events);
      if (events == NULL)
        st = mri_error(MR_ERR_OUT_OF_MEMORY, "mr_snapshot_write_memory_viz: out of host memory");
      else
        b.events = events;
    }
  }
  if (st == MR_OK) {
    qsort(b.events, b.count, sizeof *b.events, by_time);
    size_t event_count = b.count;
    if (snap->has_oom) b.events[event_count++] = oom;
    char generator[96];
    snprintf(generator, sizeof generator, "mrctx %s",
             snap->mrctx_version != NULL ? snap->mrctx_version : "?");
    char source[160];
    snprintf(source, sizeof source, "mrctx snapshot of pid %lld (%s)", (long long)snap->pid,
             snap->has_oom ? "out of memory" : "request");
    mri_memviz viz = {.blocks = b.blocks,
                      .block_count = b.count,
                      .events = b.events,
                      .event_count = event_count,
                      .end_us = snap->time_unix_ns / 1000,
                      .generator = generator,
                      .source = source};
    errno = 0;
    if (!mri_memviz_write(out, &viz))
      st = mri_error(errno == ENOMEM ? MR_ERR_OUT_OF_MEMORY : MR_ERR_INVALID_ARGUMENT,
                     "mr_snapshot_write_memory_viz: writing failed: %s", strerror(errno));
  }
  build_free(&b);
  return st;
}
