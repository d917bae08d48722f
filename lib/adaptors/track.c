/*
 * track.c: "track(UP)": record live allocations, to find leaks.
 *
 * Every live allocation is kept (pointer -> bytes, alignment, stream, the
 * time it was made) under one mutex. A free of a pointer the tracker does not know, or with another
 * size or alignment, is refused with MR_ERR_INVALID_ARGUMENT before it
 * reaches upstream. Reports go to a FILE the caller names, and on destroy
 * to stderr (never stdout).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "adaptors/adaptors_internal.h"
#include "core/debug.h"

typedef struct track_state {
  mr_resource *upstream;
  char *description;
  pthread_mutex_t lock;
  mri_fork_lockable lock_fork; /* `lock` across fork() (core/fork.h) */
  mri_ptrmap *live; /* ptr -> {bytes, alignment, stream} */
  mr_resource *self; /* for the owner label, which a context sets later */
} track_state;
MRI_ADAPTOR_STATE(track_state);

static mr_status track_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  track_state *t = self;
  mr_status st = mri_allocate(t->upstream, bytes, alignment, stream, ptr);
  if (st != MR_OK) return st;
  uint64_t now = mri_monotonic_ns();
  pthread_mutex_lock(&t->lock);
  st = mri_ptrmap_put(t->live, *ptr,
                      (mri_ptrmap_value){
                          .bytes = bytes, .alignment = alignment, .stream = stream, .time_ns = now});
  pthread_mutex_unlock(&t->lock);
  if (st != MR_OK) {
    mri_deallocate(t->upstream, *ptr, bytes, alignment, stream);
    *ptr = NULL;
    return mri_error(MR_ERR_OUT_OF_MEMORY,
                     "%s: out of host memory recording a %zu-byte allocation", t->description,
                     bytes);
  }
  return MR_OK;
}

static mr_status track_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  track_state *t = self;
  mri_ptrmap_value v;
  pthread_mutex_lock(&t->lock);
  if (!mri_ptrmap_take(t->live, ptr, &v)) {
    pthread_mutex_unlock(&t->lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p is not a live allocation (never allocated here, or freed already)",
                     t->description, ptr);
  }
  if (v.bytes != bytes || v.alignment != alignment) {
    mri_ptrmap_put(t->live, ptr, v); /* reuses the slot just freed */
    pthread_mutex_unlock(&t->lock);
    return mri_size_mismatch_error(t->description, ptr, v.bytes, v.alignment, bytes,
                                   alignment);
  }
  pthread_mutex_unlock(&t->lock);
  mr_status st = mri_deallocate(t->upstream, ptr, bytes, alignment, stream);
  if (st != MR_OK) {
    /* Still allocated: keep it on the books. */
    pthread_mutex_lock(&t->lock);
    mri_ptrmap_put(t->live, ptr, v);
    pthread_mutex_unlock(&t->lock);
  }
  return st;
}

typedef struct foreach_ctx {
  void (*fn)(void *user, const mr_track_record *rec);
  void *user;
  const char *owner;
  uint64_t now; /* when the walk began: ages are measured to it */
} foreach_ctx;

static void visit(void *user, const void *key, const mri_ptrmap_value *value) {
  foreach_ctx *ctx = user;
  mr_track_record rec = {
      .size = sizeof rec,
      .ptr = (void *)key,
      .bytes = value->bytes,
      .alignment = value->alignment,
      .stream = value->stream,
      .owner = ctx->owner,
      .age_ns = ctx->now > value->time_ns ? ctx->now - value->time_ns : 0,
  };
  ctx->fn(ctx->user, &rec);
}

static mr_status track_foreach(track_state *t,
                               void (*fn)(void *user, const mr_track_record *rec), void *user,
                               size_t *count) {
  foreach_ctx ctx = {fn, user, mri_resource_owner(t->self), 0};
  pthread_mutex_lock(&t->lock);
  ctx.now = mri_monotonic_ns();
  if (count != NULL) *count = mri_ptrmap_count(t->live);
  if (fn != NULL) mri_ptrmap_foreach(t->live, visit, &ctx);
  pthread_mutex_unlock(&t->lock);
  return MR_OK;
}

typedef struct record_list {
  mr_track_record *items;
  size_t count, capacity;
} record_list;

static void collect(void *user, const mr_track_record *rec) {
  record_list *list = user;
  if (list->count < list->capacity) list->items[list->count++] = *rec;
}

static int by_address(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const mr_track_record *)a)->ptr;
  uintptr_t y = (uintptr_t)((const mr_track_record *)b)->ptr;
  return (x > y) - (x < y);
}

/* One line per allocation, by address, then the total. */
static mr_status track_report(track_state *t, FILE *out, const char *heading) {
  record_list list = {0};
  pthread_mutex_lock(&t->lock);
  list.capacity = mri_ptrmap_count(t->live);
  pthread_mutex_unlock(&t->lock);
  /* Room for a few more, in case allocations land meanwhile; later ones are
   * left out of this report, which is a snapshot anyway. */
  list.capacity += 16;
  list.items = mri_calloc(list.capacity, sizeof *list.items);
  if (list.items == NULL)
    return mri_error_prefix(MR_ERR_OUT_OF_MEMORY, "%s: report", t->description);
  track_foreach(t, collect, &list, NULL);
  qsort(list.items, list.count, sizeof *list.items, by_address);
  size_t total = 0;
  for (size_t i = 0; i < list.count; i++) {
    const mr_track_record *r = &list.items[i];
    total += r->bytes;
    fprintf(out, "  %p %zu bytes (alignment %zu, stream %p) owner %s\n", r->ptr, r->bytes,
            r->alignment, (void *)r->stream, r->owner[0] != '\0' ? r->owner : "unknown");
  }
  fprintf(out, "%s%s: %zu allocation%s outstanding, %zu bytes in all\n", heading, t->description,
          list.count, list.count == 1 ? "" : "s", total);
  free(list.items);
  if (fflush(out) != 0 || ferror(out))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: writing the report failed", t->description);
  return MR_OK;
}

static void track_destroy(void *self) {
  track_state *t = self;
  if (t->live != NULL) {
    if (mri_ptrmap_count(t->live) != 0) track_report(t, stderr, "mrctx: leak: ");
    mri_ptrmap_destroy(t->live);
  }
  mri_fork_unregister(&t->lock_fork);
  pthread_mutex_destroy(&t->lock);
  mri_adaptor_free(t);
}

static const mr_resource_ops track_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "track",
    .allocate = track_allocate,
    .deallocate = track_deallocate,
    .synchronize = mri_forward_synchronize,
    .trim = mri_forward_trim,
    .destroy = track_destroy,
};

mr_status mr_track_resource_create(mr_resource *upstream, mr_resource **out) {
  mr_status st = mri_adaptor_check(&track_ops, upstream, out);
  if (st != MR_OK) return st;
  track_state *t =
      mri_adaptor_alloc(sizeof *t, upstream, "track(%s)", mr_resource_describe(upstream));
  if (t == NULL) return MR_ERR_OUT_OF_MEMORY;
  pthread_mutex_init(&t->lock, NULL);
  mri_fork_register_mutex(&t->lock_fork, &t->lock, MRI_FORK_RANK_RESOURCE);
  t->live = mri_ptrmap_create();
  st = mri_adaptor_create(&track_ops, t, MRI_ADAPTOR_PASSES,
                          t->live != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY, out);
  if (st == MR_OK) t->self = *out;
  return st;
}

static track_state *track_of(const mr_resource *mr, const char *call) {
  track_state *t = mr_resource_state(mr, &track_ops);
  if (t == NULL)
    mri_error(MR_ERR_INVALID_ARGUMENT, "%s: %s is not a track resource", call,
              mr_resource_describe(mr));
  return t;
}

mr_status mr_track_resource_foreach(const mr_resource *mr,
                                    void (*fn)(void *user, const mr_track_record *rec),
                                    void *user, size_t *count) {
  if (count != NULL) *count = 0;
  track_state *t = track_of(mr, "mr_track_resource_foreach");
  if (t == NULL) return MR_ERR_INVALID_ARGUMENT;
  return track_foreach(t, fn, user, count);
}

mr_status mr_track_resource_report(const mr_resource *mr, FILE *out) {
  track_state *t = track_of(mr, "mr_track_resource_report");
  if (t == NULL) return MR_ERR_INVALID_ARGUMENT;
  if (out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_track_resource_report: out is NULL");
  return track_report(t, out, "");
}
