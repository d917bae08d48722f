/*
 * snapshot.c: taking a snapshot of the live process, and freeing one.
 *
 * The driver pools are read first, then every live context under the
 * list's lock (context.c), so none is destroyed while it is read. For each
 * tag and device: the spec and its origin, the tag's statistics, and down
 * the chain the first cache(...) (its counters), the first track(...) (the
 * largest live blocks, chosen while the tracker's lock is held, with a
 * heap of fixed size: nothing is allocated under it) and any pool(...)
 * (its pool's use). A tag that shares another's resource (tag=@other)
 * names that tag instead of showing the same chain twice.
 *
 * Everything is read, nothing changed: no trim, no synchronization, no
 * device memory; the driver is not loaded if it was not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "context/context_internal.h"
#include "adaptors/adaptors_internal.h"
#include "context/snapshot_internal.h"
#include "core/reclaim.h"
#include "driver/driver_internal.h"

/* ---- freeing ------------------------------------------------------------------- */

void mri_snap_idle_free(mri_snap_idle *idle, size_t count) {
  for (size_t i = 0; i < count; i++) {
    free(idle[i].resource);
    free(idle[i].owner);
  }
  free(idle);
}

static void free_slot(mri_snap_slot *s) {
  mri_snap_idle_free(s->idle, s->idle_count);
  for (size_t b = 0; b < s->block_count; b++) {
    for (size_t f = 0; f < s->blocks[b].frame_count; f++) free(s->blocks[b].frames[f]);
    free(s->blocks[b].frames);
  }
  free(s->spec);
  free(s->origin);
  free(s->status);
  free(s->reason);
  free(s->shares);
  free(s->blocks);
}

static void free_context(mri_snap_context *c) {
  for (size_t t = 0; t < c->tag_count; t++) {
    mri_snap_tag *tag = &c->tags[t];
    for (size_t d = 0; d < tag->slot_count; d++) free_slot(&tag->slots[d]);
    free(tag->slots);
    free(tag->name);
  }
  free(c->tags);
  free(c->library);
}

void mr_snapshot_destroy(mr_snapshot *snapshot) {
  if (snapshot == NULL) return;
  for (size_t i = 0; i < snapshot->context_count; i++) free_context(&snapshot->contexts[i]);
  free(snapshot->contexts);
  for (size_t i = 0; i < snapshot->pool_count; i++) {
    free(snapshot->pools[i].which);
    free(snapshot->pools[i].owner);
  }
  free(snapshot->pools);
  free(snapshot->devices);
  mri_snap_idle_free(snapshot->idle, snapshot->idle_count);
  free(snapshot->host);
  free(snapshot->oom.library);
  free(snapshot->oom.tag);
  free(snapshot->oom.message);
  free(snapshot->mrctx_version);
  free(snapshot);
}

/* ---- the largest live blocks of a tracker ---------------------------------------- */

/* A block while the largest are chosen, with its raw frames' row. */
typedef struct candidate {
  mri_snap_block block;
  size_t row;         /* its frames: largest.frames[row * depth ...] */
  size_t frame_count; /* how many of them */
} candidate;

/* A min-heap by size of at most `capacity` blocks: the smallest of the
 * largest seen so far is on top, and a larger block replaces it (and takes
 * its row of frames). */
typedef struct largest {
  candidate *items;
  size_t count, capacity;
  uint64_t live_count, live_bytes;
  size_t depth;        /* the tracker's stacks=N; 0: no frames */
  const void **frames; /* capacity rows of depth frames */
} largest;

/* Whether block a should sort before block b in the result: larger first,
 * then older, then by address (so a snapshot is reproducible). */
static bool comes_before(const mri_snap_block *a, const mri_snap_block *b) {
  if (a->bytes != b->bytes) return a->bytes > b->bytes;
  if (a->age_ns != b->age_ns) return a->age_ns > b->age_ns;
  return a->ptr < b->ptr;
}

static void swap(candidate *a, candidate *b) {
  candidate tmp = *a;
  *a = *b;
  *b = tmp;
}

static void sift_down(largest *h, size_t i) {
  for (;;) {
    size_t least = i, l = 2 * i + 1, r = l + 1;
    /* The heap's top is the block that comes last. */
    if (l < h->count && comes_before(&h->items[least].block, &h->items[l].block)) least = l;
    if (r < h->count && comes_before(&h->items[least].block, &h->items[r].block)) least = r;
    if (least == i) return;
    swap(&h->items[i], &h->items[least]);
    i = least;
  }
}

static void sift_up(largest *h, size_t i) {
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!comes_before(&h->items[parent].block, &h->items[i].block)) return;
    swap(&h->items[i], &h->items[parent]);
    i = parent;
  }
}

/* Under the tracker's lock: no allocation here (the frames are copied as
 * addresses, named after the walk). */
static void consider_block(void *user, const mr_track_record *rec) {
  largest *h = user;
  mri_snap_block b = {.ptr = (uint64_t)(uintptr_t)rec->ptr,
                      .bytes = rec->bytes,
                      .alignment = rec->alignment,
                      .stream = (uint64_t)(uintptr_t)rec->stream,
                      .age_ns = rec->age_ns};
  h->live_count++;
  h->live_bytes += rec->bytes;
  if (h->capacity == 0) return;
  candidate *into;
  bool appended = h->count < h->capacity;
  if (appended) {
    into = &h->items[h->count];
    *into = (candidate){.block = b, .row = h->count};
    h->count++;
  } else if (comes_before(&b, &h->items[0].block)) {
    into = &h->items[0];
    into->block = b; /* keeps the row of the block it replaces */
  } else {
    return;
  }
  size_t n = rec->frame_count < h->depth ? rec->frame_count : h->depth;
  into->frame_count = rec->frames != NULL ? n : 0;
  for (size_t f = 0; f < into->frame_count; f++)
    h->frames[into->row * h->depth + f] = rec->frames[f];
  if (appended)
    sift_up(h, h->count - 1);
  else
    sift_down(h, 0);
}

static int compare_candidates(const void *a, const void *b) {
  const mri_snap_block *x = &((const candidate *)a)->block, *y = &((const candidate *)b)->block;
  return comes_before(x, y) ? -1 : comes_before(y, x) ? 1 : 0;
}

/* A candidate's frames, named (outside the tracker's lock). */
static mr_status name_frames(const largest *h, const candidate *c, mri_snap_block *b) {
  if (c->frame_count == 0) return MR_OK;
  b->frames = mri_calloc(c->frame_count, sizeof *b->frames);
  if (b->frames == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t f = 0; f < c->frame_count; f++) {
    char name[512];
    mr_track_describe_frame(h->frames[c->row * h->depth + f], name, sizeof name);
    b->frames[b->frame_count] = mri_strdup(name);
    if (b->frames[b->frame_count] == NULL) return MR_ERR_OUT_OF_MEMORY;
    b->frame_count++;
  }
  return MR_OK;
}

/* `taken_ns`: the snapshot's moment on the monotonic clock. The tracker
 * measures each block's age from when its walk starts, which is later for
 * each tag walked (making room for `capacity` blocks takes milliseconds);
 * ages are moved back to the snapshot's moment, so that blocks of
 * different tags keep their order on one timeline (memory_viz places each
 * block at the snapshot's time less its age). */
static mr_status take_blocks(mri_snap_slot *s, const mr_resource *tracker, size_t capacity,
                             uint64_t taken_ns) {
  largest h = {.capacity = capacity, .depth = mri_track_stack_depth(tracker)};
  if (capacity > 0) {
    h.items = mri_calloc(capacity, sizeof *h.items);
    if (h.items == NULL) return MR_ERR_OUT_OF_MEMORY;
    if (h.depth > 0) {
      if (capacity > SIZE_MAX / sizeof *h.frames / h.depth) {
        free(h.items);
        return MR_ERR_OUT_OF_MEMORY;
      }
      h.frames = mri_calloc(capacity * h.depth, sizeof *h.frames);
      if (h.frames == NULL) {
        free(h.items);
        return MR_ERR_OUT_OF_MEMORY;
      }
    }
  }
  uint64_t walked = mri_monotonic_ns();
  mr_status st = mr_track_resource_foreach(tracker, consider_block, &h, NULL);
  if (st == MR_OK) {
    uint64_t late = walked > taken_ns ? walked - taken_ns : 0;
    for (size_t i = 0; i < h.count; i++) {
      uint64_t *age = &h.items[i].block.age_ns;
      *age = *age > late ? *age - late : 0;
    }
    qsort(h.items, h.count, sizeof *h.items, compare_candidates);
    s->has_track = true;
    s->track_live_count = h.live_count;
    s->track_live_bytes = h.live_bytes;
    if (h.count > 0) {
      s->blocks = mri_calloc(h.count, sizeof *s->blocks);
      if (s->blocks == NULL) st = MR_ERR_OUT_OF_MEMORY;
    }
    /* Each block counted as it is filled: free_slot frees what is. */
    for (size_t i = 0; i < h.count && st == MR_OK; i++) {
      s->blocks[s->block_count] = h.items[i].block;
      st = name_frames(&h, &h.items[i], &s->blocks[s->block_count]);
      s->block_count++;
    }
  }
  free(h.items);
  free(h.frames);
  return st;
}

/* ---- contexts ------------------------------------------------------------------ */

typedef struct taker {
  mr_snapshot *snap;
  uint64_t taken_ns; /* the snapshot's moment, monotonic: blocks' ages count to it */
  size_t largest_blocks;
  size_t context_capacity, pool_capacity;
  /* A destroyed context's final figures (mri_snapshot_take_final): its
   * counters only, no live blocks, no pools. */
  bool final;
  /* The keeping resources' idle memory and reclaims (core/reclaim.h):
   * read where the driver may be called (not at exit: an owned pool's
   * idle memory is the driver's to say). */
  bool idle;
  size_t idle_capacity;
} taker;

/* Append `f` to `*list` (growing it by doubling). */
static mr_status add_idle(mri_snap_idle **list, size_t *count, size_t *capacity,
                          const mri_reclaim_figures *f, bool with_owner) {
  if (*count == *capacity) {
    size_t grown_capacity = *capacity ? 2 * *capacity : 4;
    mri_snap_idle *grown = mri_host_realloc(*list, grown_capacity * sizeof *grown);
    if (grown == NULL) return MR_ERR_OUT_OF_MEMORY;
    *list = grown;
    *capacity = grown_capacity;
  }
  mri_snap_idle *i = &(*list)[(*count)++];
  *i = (mri_snap_idle){.device = f->device,
                       .keep = f->keep,
                       .idle_bytes = f->idle_bytes,
                       .reclaims = f->reclaims,
                       .reclaimed_bytes = f->reclaimed_bytes,
                       .reclaim_ns = f->reclaim_ns};
  i->resource = mri_strdup(f->what);
  if (with_owner && f->label[0] != '\0') i->owner = mri_strdup(f->label);
  if (i->resource == NULL || (with_owner && f->label[0] != '\0' && i->owner == NULL))
    return MR_ERR_OUT_OF_MEMORY;
  return MR_OK;
}

typedef struct idle_taker {
  taker *t;
  mr_status status;
} idle_taker;

/* Under the registry's lock (host memory only). */
static void take_one_idle(void *user, const mri_reclaim_figures *f) {
  idle_taker *it = user;
  if (it->status != MR_OK) return;
  mr_snapshot *snap = it->t->snap;
  it->status = add_idle(&snap->idle, &snap->idle_count, &it->t->idle_capacity, f, true);
}

/* Every keeping resource of the process. */
static mr_status take_idle(taker *t) {
  idle_taker it = {.t = t};
  t->snap->has_idle = true;
  mri_reclaimer_foreach(take_one_idle, &it);
  return it.status;
}

static mr_status add_pool(taker *t, const char *which, const char *owner, const mr_pool_info *info,
                          const void *resource) {
  mr_snapshot *snap = t->snap;
  if (snap->pool_count == t->pool_capacity) {
    size_t capacity = t->pool_capacity ? 2 * t->pool_capacity : 8;
    mri_snap_pool *grown = mri_host_realloc(snap->pools, capacity * sizeof *grown);
    if (grown == NULL) return MR_ERR_OUT_OF_MEMORY;
    snap->pools = grown;
    t->pool_capacity = capacity;
  }
  mri_snap_pool *p = &snap->pools[snap->pool_count++];
  *p = (mri_snap_pool){.info = *info, .resource = resource};
  p->which = mri_strdup(which);
  p->owner = owner != NULL ? mri_strdup(owner) : NULL;
  if (p->which == NULL || (owner != NULL && p->owner == NULL)) return MR_ERR_OUT_OF_MEMORY;
  return MR_OK;
}

/* The pool a pool(...) resource owns, once even if several chains hold it. */
static mr_status take_owned_pool(taker *t, const mr_resource *pool, const char *owner) {
  for (size_t i = 0; i < t->snap->pool_count; i++)
    if (t->snap->pools[i].resource == pool) return MR_OK;
  mr_pool_info info = {.size = sizeof info};
  if (mr_pool_resource_get_info(pool, &info) != MR_OK) return MR_OK; /* left out */
  return add_pool(t, "owned", owner, &info, pool);
}

/* What the chain below a tag holds: the first cache and tracker, and
 * owned pools. */
static mr_status take_chain(taker *t, mri_snap_slot *s, const mr_resource *inner,
                            const char *owner) {
  for (const mr_resource *r = inner; r != NULL; r = mr_resource_upstream(r)) {
    mr_status st = MR_OK;
    mri_reclaim_figures f;
    if (t->idle && mri_reclaim_figures_of(r, &f)) {
      size_t capacity = s->idle_count; /* grown at each: chains keep one or two */
      st = add_idle(&s->idle, &s->idle_count, &capacity, &f, false);
      if (st != MR_OK) return st;
    }
    if (mri_is_cache(r) && !s->has_cache) {
      s->cache = (mr_cache_stats){.size = sizeof s->cache};
      st = mr_cache_resource_get_stats(r, &s->cache);
      s->has_cache = st == MR_OK;
    } else if (t->final) {
      continue;
    } else if (mri_is_track(r) && !s->has_track) {
      st = take_blocks(s, r, t->largest_blocks, t->taken_ns);
    } else if (mri_pool_is_owned(r)) {
      st = take_owned_pool(t, r, owner);
    }
    if (st != MR_OK) return st;
  }
  return MR_OK;
}

static mr_status take_slot(taker *t, const mr_context *ctx, int tag, int device, mri_snap_slot *s) {
  s->device = device;
  const mr_resource *wrapper = mr_context_get_mr_on(ctx, tag, device);
  const mr_resource *inner = mr_resource_upstream(wrapper);
  mr_spec_source source = {.size = sizeof source};
  mr_status st = mr_context_get_source(ctx, tag, device, &source);
  if (st != MR_OK) return st;
  s->spec = mri_strdup(mr_resource_describe(wrapper));
  s->origin = mri_strdup(mr_spec_origin_name(source.origin));
  if (s->spec == NULL || s->origin == NULL) return MR_ERR_OUT_OF_MEMORY;
  if (source.status != MR_OK) {
    s->status = mri_strdup(mr_status_name(source.status));
    s->reason = mri_strdup(source.reason);
    if (s->status == NULL || s->reason == NULL) return MR_ERR_OUT_OF_MEMORY;
  }
  mr_stats_init(&s->stats);
  st = mr_context_get_stats(ctx, tag, device, &s->stats);
  if (st != MR_OK) return st;
  for (int other = 0; other < tag; other++) {
    if (mr_resource_upstream(mr_context_get_mr_on(ctx, other, device)) == inner) {
      s->shares = mri_strdup(mr_context_tag_name(ctx, other));
      return s->shares != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY;
    }
  }
  char owner[256];
  snprintf(owner, sizeof owner, "%s:%s", mr_context_library(ctx), mr_context_tag_name(ctx, tag));
  return take_chain(t, s, inner, owner);
}

static mr_status take_context(void *user, const mr_context *ctx, uint64_t id) {
  taker *t = user;
  mr_snapshot *snap = t->snap;
  if (snap->context_count == t->context_capacity) {
    size_t capacity = t->context_capacity ? 2 * t->context_capacity : 8;
    mri_snap_context *grown = mri_host_realloc(snap->contexts, capacity * sizeof *grown);
    if (grown == NULL) return MR_ERR_OUT_OF_MEMORY;
    snap->contexts = grown;
    t->context_capacity = capacity;
  }
  mri_snap_context *c = &snap->contexts[snap->context_count++];
  *c = (mri_snap_context){.id = id, .device_count = mr_context_device_count(ctx)};
  c->library = mri_strdup(mr_context_library(ctx));
  size_t tags = mr_context_tag_count(ctx);
  c->tags = mri_calloc(tags, sizeof *c->tags);
  if (c->library == NULL || c->tags == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t tag = 0; tag < tags; tag++) {
    mri_snap_tag *tg = &c->tags[c->tag_count++];
    tg->name = mri_strdup(mr_context_tag_name(ctx, (int)tag));
    tg->slots = mri_calloc((size_t)c->device_count, sizeof *tg->slots);
    if (tg->name == NULL || tg->slots == NULL) return MR_ERR_OUT_OF_MEMORY;
    for (int device = 0; device < c->device_count; device++) {
      mr_status st = take_slot(t, ctx, (int)tag, device, &tg->slots[tg->slot_count++]);
      if (st != MR_OK) return st;
    }
  }
  return MR_OK;
}

mr_status mri_snapshot_take_final(const mr_context *ctx, uint64_t id, mri_snap_context *out) {
  mr_snapshot tmp = {0};
  taker t = {.snap = &tmp, .final = true};
  mr_status st = take_context(&t, ctx, id);
  if (st == MR_OK) {
    *out = tmp.contexts[0];
    tmp.context_count = 0;
  }
  for (size_t i = 0; i < tmp.context_count; i++) free_context(&tmp.contexts[i]);
  free(tmp.contexts);
  return st;
}

void mri_snapshot_free_context(mri_snap_context *c) { free_context(c); }

/* ---- driver pools ---------------------------------------------------------------- */

/* Each device's current pool (and its default pool when another is
 * current), then the pinned and managed default pools. A pool that cannot
 * be read (no pool support on the device, say) is left out. */
static mr_status take_driver_pools(taker *t) {
  int devices = 0;
  if (!mri_driver_loaded() || mr_device_count(&devices) != MR_OK) return MR_OK;
  for (int d = 0; d < devices; d++) {
    mr_pool_info info = {.size = sizeof info};
    if (mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_CURRENT, d, &info) != MR_OK) continue;
    mr_status st = add_pool(t, "device_current", NULL, &info, NULL);
    if (st == MR_OK && !info.is_default &&
        mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_DEFAULT, d, &info) == MR_OK)
      st = add_pool(t, "device_default", NULL, &info, NULL);
    if (st != MR_OK) return st;
  }
  if (devices == 0) return MR_OK;
  static const struct {
    mr_driver_pool pool;
    const char *which;
  } hosts[] = {{MR_DRIVER_POOL_PINNED_DEFAULT, "pinned_default"},
               {MR_DRIVER_POOL_MANAGED_DEFAULT, "managed_default"}};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(hosts); i++) {
    mr_pool_info info = {.size = sizeof info};
    if (mr_driver_pool_get_info(hosts[i].pool, 0, &info) != MR_OK) continue;
    mr_status st = add_pool(t, hosts[i].which, NULL, &info, NULL);
    if (st != MR_OK) return st;
  }
  return MR_OK;
}

/* Each device's free and total memory, for the devices whose primary
 * context is active (the process uses them): reading one never creates a
 * context, which would cost device memory. */
static mr_status take_device_memory(mr_snapshot *snap) {
  int devices = 0;
  if (!mri_driver_loaded() || mr_device_count(&devices) != MR_OK || devices <= 0) return MR_OK;
  snap->devices = mri_calloc((size_t)devices, sizeof *snap->devices);
  if (snap->devices == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (int d = 0; d < devices; d++) {
    mri_snap_device *dev = &snap->devices[snap->device_count];
    if (mri_device_memory_if_active(d, &dev->free_bytes, &dev->total_bytes)) {
      dev->device = d;
      snap->device_count++;
    }
  }
  return MR_OK;
}

/* ---- where: host and launcher ranks ---------------------------------------------- */

/* The first of `names` set to a whole number from 0 up; -1 if none is. A
 * value that is not one (empty, negative, words) is passed over, as if
 * unset. */
static int64_t env_number(const char *const *names, size_t count) {
  for (size_t i = 0; i < count; i++) {
    const char *value = getenv(names[i]);
    if (value == NULL || value[0] < '0' || value[0] > '9') continue;
    char *end;
    errno = 0;
    long long n = strtoll(value, &end, 10);
    if (errno == 0 && *end == '\0' && n >= 0) return n;
  }
  return -1;
}

/* The launchers' variables, first found wins (docs/observability.md):
 * torchrun and torch.distributed, Open MPI, MPICH and Intel MPI (PMI),
 * Slurm. */
static const char *const rank_vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"};
static const char *const local_rank_vars[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                              "MPI_LOCALRANKID", "SLURM_LOCALID"};
static const char *const world_size_vars[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                              "SLURM_NTASKS"};

static mr_status take_launcher(mr_snapshot *snap) {
  char host[256];
  if (gethostname(host, sizeof host) == 0) {
    host[sizeof host - 1] = '\0';
    snap->host = mri_strdup(host);
    if (snap->host == NULL) return MR_ERR_OUT_OF_MEMORY;
  }
  snap->rank = env_number(rank_vars, MRI_ARRAY_SIZE(rank_vars));
  snap->local_rank = env_number(local_rank_vars, MRI_ARRAY_SIZE(local_rank_vars));
  snap->world_size = env_number(world_size_vars, MRI_ARRAY_SIZE(world_size_vars));
  return MR_OK;
}

/* ---- taking --------------------------------------------------------------------- */

static mr_status copy_oom(mri_snap_oom *to, const mri_snap_oom *from) {
  *to = *from;
  to->library = mri_strdup(from->library);
  to->tag = mri_strdup(from->tag);
  to->message = mri_strdup(from->message);
  if (to->library == NULL || to->tag == NULL || to->message == NULL) return MR_ERR_OUT_OF_MEMORY;
  return MR_OK;
}

mr_status mri_snapshot_take(const mr_snapshot_options *options, const mri_snap_oom *oom, bool pools,
                            mr_snapshot **out) {
  mr_snapshot_options given = {.size = sizeof given};
  if (options != NULL) {
    mr_status st =
        MRI_STRUCT_READ(&given, options, mr_snapshot_options, largest_blocks, "mr_snapshot_take");
    if (st != MR_OK) return st;
  }
  taker t = {.largest_blocks =
                 given.largest_blocks != 0 ? given.largest_blocks : MR_SNAPSHOT_DEFAULT_BLOCKS,
             .idle = pools};
  mr_snapshot *snap = mri_calloc(1, sizeof *snap);
  if (snap == NULL) goto oom;
  t.snap = snap;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  t.taken_ns = mri_monotonic_ns();
  snap->time_unix_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
  snap->pid = (int64_t)getpid();
  snap->mrctx_version = mri_strdup(mr_version());
  if (snap->mrctx_version == NULL || take_launcher(snap) != MR_OK) goto oom;
  if (oom != NULL) {
    snap->has_oom = true;
    if (copy_oom(&snap->oom, oom) != MR_OK) goto oom;
  }
  if (pools && (take_driver_pools(&t) != MR_OK || take_device_memory(snap) != MR_OK ||
                take_idle(&t) != MR_OK))
    goto oom;
  mr_status st = mri_context_foreach_live(take_context, &t);
  if (st == MR_ERR_OUT_OF_MEMORY) goto oom;
  if (st != MR_OK) {
    mr_snapshot_destroy(snap);
    return mri_error_prefix(st, "mr_snapshot_take");
  }
  *out = snap;
  return MR_OK;
oom:
  mr_snapshot_destroy(snap);
  return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_snapshot_take: out of host memory");
}

mr_status mr_snapshot_take(const mr_snapshot_options *options, mr_snapshot **snapshot) {
  if (snapshot == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_take: snapshot is NULL");
  *snapshot = NULL;
  return mri_snapshot_take(options, NULL, true, snapshot);
}

mr_status mr_snapshot_get_info(const mr_snapshot *snapshot, mr_snapshot_info *info) {
  if (snapshot == NULL || info == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_get_info: NULL argument");
  mr_snapshot_info full = {
      .size = sizeof full,
      .time_unix_ns = snapshot->time_unix_ns,
      .pid = snapshot->pid,
      .out_of_memory = snapshot->has_oom,
      .oom_library = snapshot->has_oom ? snapshot->oom.library : NULL,
      .oom_tag = snapshot->has_oom ? snapshot->oom.tag : NULL,
      .oom_device = snapshot->has_oom ? snapshot->oom.device : -1,
      .oom_bytes = snapshot->has_oom ? snapshot->oom.bytes : 0,
      .context_count = snapshot->context_count,
      .host = snapshot->host,
      .rank = snapshot->rank,
      .local_rank = snapshot->local_rank,
      .world_size = snapshot->world_size,
  };
  return MRI_STRUCT_WRITE(info, &full, mr_snapshot_info, context_count, "mr_snapshot_get_info");
}

/* A walk over every slot of every tag of every context, in order:
 *   for (slot_walk w = {.snap = snapshot}; next_slot(&w);) ... w.slot ... */
typedef struct slot_walk {
  const mr_snapshot *snap;
  size_t context, tag, slot; /* the next one */
  const mri_snap_context *ctx;
  const mri_snap_tag *tg;
  const mri_snap_slot *sl;
} slot_walk;

static bool next_slot(slot_walk *w) {
  for (; w->context < w->snap->context_count; w->context++, w->tag = 0) {
    const mri_snap_context *ctx = &w->snap->contexts[w->context];
    for (; w->tag < ctx->tag_count; w->tag++, w->slot = 0) {
      const mri_snap_tag *tag = &ctx->tags[w->tag];
      if (w->slot < tag->slot_count) {
        w->ctx = ctx;
        w->tg = tag;
        w->sl = &tag->slots[w->slot++];
        return true;
      }
    }
  }
  return false;
}

mr_status mr_snapshot_foreach_tag(const mr_snapshot *snapshot,
                                  void (*fn)(void *user, const mr_snapshot_tag_entry *entry),
                                  void *user) {
  if (snapshot == NULL || fn == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_foreach_tag: NULL argument");
  for (slot_walk w = {.snap = snapshot}; next_slot(&w);) {
    mr_snapshot_tag_entry entry = {.size = sizeof entry,
                                   .library = w.ctx->library,
                                   .tag = w.tg->name,
                                   .device = w.sl->device,
                                   .spec = w.sl->spec,
                                   .stats = &w.sl->stats};
    fn(user, &entry);
  }
  return MR_OK;
}

mr_status mr_snapshot_foreach_block(const mr_snapshot *snapshot,
                                    void (*fn)(void *user, const mr_snapshot_block *block),
                                    void *user) {
  if (snapshot == NULL || fn == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_foreach_block: NULL argument");
  for (slot_walk w = {.snap = snapshot}; next_slot(&w);) {
    for (size_t b = 0; b < w.sl->block_count; b++) {
      const mri_snap_block *blk = &w.sl->blocks[b];
      mr_snapshot_block block = {.size = sizeof block,
                                 .library = w.ctx->library,
                                 .tag = w.tg->name,
                                 .device = w.sl->device,
                                 .ptr = blk->ptr,
                                 .bytes = blk->bytes,
                                 .alignment = blk->alignment,
                                 .stream = blk->stream,
                                 .age_ns = blk->age_ns,
                                 .frames = (const char *const *)blk->frames,
                                 .frame_count = blk->frame_count};
      fn(user, &block);
    }
  }
  return MR_OK;
}
