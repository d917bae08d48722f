/*
 * track.c: "track(UP, stacks=N)": record live allocations, to find leaks
 * and who made them.
 *
 * Every live allocation is kept (pointer -> bytes, alignment, stream, the
 * time it was made) under one mutex. A free of a pointer the tracker does not know, or with another
 * size or alignment, is refused with MR_ERR_INVALID_ARGUMENT before it
 * reaches upstream. Reports go to a FILE the caller names, and on destroy
 * to stderr (never stdout).
 *
 * With stacks=N each allocation also keeps its call site: libc's
 * backtrace() at the allocation, with mrctx's own frames cut off (those up
 * to the outermost call of mr_allocate or mr_allocate_sync, whose extents
 * the dynamic symbol table gives), the N innermost after them kept in a
 * block of their own in a second map. Addresses only: they are named
 * (dladdr) when reported, never on the allocation path. A language
 * runtime's frames (Python's: mr_track_set_frame_source, frame_source.c)
 * come first in the block, the native ones after them.
 */
#include <dlfcn.h> /* dladdr1: _GNU_SOURCE, which the build defines */
#include <execinfo.h>
#include <inttypes.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "adaptors/adaptors_internal.h"
#include "core/ptrmap.h"
#include "core/debug.h"

typedef struct track_state {
  mr_resource *upstream;
  char *description;
  pthread_mutex_t lock;
  mri_fork_lockable lock_fork; /* `lock` across fork() (core/fork.h) */
  mri_ptrmap *live;            /* ptr -> {bytes, alignment, stream} */
  mri_ptrmap *stacks;          /* with stacks: ptr -> {.bytes = frame count, .raw = frames} */
  size_t stack_depth;          /* N of stacks=N; 0: none kept */
  mr_resource *self;           /* for the owner label, which a context sets later */
} track_state;
MRI_ADAPTOR_STATE(track_state);

/* ---- call sites ------------------------------------------------------------------ */

/* The frames backtrace() is asked for beyond N: room for mrctx's own
 * allocation path (the tag's wrapper, the chain's adaptors down to this
 * one), which is cut off. */
#define TRACK_PATH_FRAMES 32

/* Where mr_allocate and mr_allocate_sync lie in memory, from the dynamic
 * symbol table (the shared library's, or a program's linked with
 * -rdynamic); empty where it does not list them, and then only this
 * adaptor's own frame is cut off. */
typedef struct extent {
  uintptr_t start, end;
} extent;
static extent entry_extents[2];
static pthread_once_t entry_once = PTHREAD_ONCE_INIT;

static extent extent_of(uintptr_t address) {
  const void *fn = (const void *)address;
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL ||
      info.dli_saddr != fn || sym->st_size == 0)
    return (extent){0, 0};
  return (extent){(uintptr_t)fn, (uintptr_t)fn + sym->st_size};
}

static void find_entries(void) {
  /* Through an integer: ISO C converts no function pointer to void *. */
  entry_extents[0] = extent_of((uintptr_t)mr_allocate);
  entry_extents[1] = extent_of((uintptr_t)mr_allocate_sync);
  /* backtrace() loads its unwinder (libgcc_s) on first use: here, at
   * creation, rather than inside an allocation. */
  void *warm[2];
  (void)backtrace(warm, 2);
}

static bool in_entry(const void *frame) {
  uintptr_t pc = (uintptr_t)frame - 1; /* the call, not the return address */
  for (size_t i = 0; i < MRI_ARRAY_SIZE(entry_extents); i++)
    if (pc >= entry_extents[i].start && pc < entry_extents[i].end) return true;
  return false;
}

/* The call site of the allocation being made: a block of up to `depth`
 * frames, its count first. The frame source's (a language runtime's, such
 * as the Python package's: frame_source.c) come first, then the native
 * frames in the room left. NULL without host memory or frames. */
static void **capture_stack(size_t depth, size_t *count) {
  const void *runtime[MR_TRACK_MAX_STACKS];
  size_t from_runtime = mri_track_runtime_frames(runtime, depth);
  void *frames[MR_TRACK_MAX_STACKS + TRACK_PATH_FRAMES];
  int n = from_runtime < depth ? backtrace(frames, (int)(depth + TRACK_PATH_FRAMES)) : 0;
  /* frames[0] is in track_allocate; mrctx's path ends at the outermost
   * public entry. */
  int first = 1;
  for (int i = n - 1; i >= 1; i--) {
    if (in_entry(frames[i])) {
      first = i + 1;
      break;
    }
  }
  size_t native = n > first ? (size_t)(n - first) : 0;
  if (native > depth - from_runtime) native = depth - from_runtime;
  size_t kept = from_runtime + native;
  *count = kept;
  if (kept == 0) return NULL;
  void **block = mri_host_malloc(kept * sizeof *block);
  if (block != NULL) {
    /* Through memcpy: the entries are const, a block's frames are not. */
    memcpy(block, runtime, from_runtime * sizeof *block);
    memcpy(block + from_runtime, frames + first, native * sizeof *block);
  }
  return block;
}

const char *mr_track_describe_frame(const void *frame, char *buf, size_t cap) {
  if (buf == NULL || cap == 0) return buf;
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (frame == NULL) {
    snprintf(buf, cap, "%p", frame);
    return buf;
  }
  if (mri_track_describe_runtime_frame(frame, buf, cap)) return buf;
  const char *pc = (const char *)frame - 1; /* inside the call instruction */
  if (dladdr1(pc, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || info.dli_fname == NULL) {
    snprintf(buf, cap, "%p", frame);
    return buf;
  }
  const char *object = info.dli_fname[0] != '\0' ? info.dli_fname : "(program)";
  /* dladdr names the nearest symbol below the address, which for a
   * function the table does not list (a static one) is another's: a name
   * is given only where the address lies within the symbol. */
  bool named = info.dli_sname != NULL && info.dli_saddr != NULL && sym != NULL &&
               sym->st_size > 0 && pc < (const char *)info.dli_saddr + sym->st_size;
  if (named)
    snprintf(buf, cap, "%s+0x%tx (%s)", info.dli_sname,
             (const char *)frame - (const char *)info.dli_saddr, object);
  else
    snprintf(buf, cap, "%s+0x%tx", object, (const char *)frame - (const char *)info.dli_fbase);
  /* Names and paths are a file's bytes: none may drive a terminal. */
  for (char *c = buf; *c != '\0'; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  return buf;
}

/* ---- allocating and freeing ------------------------------------------------------- */

static mr_status track_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  track_state *t = self;
  mr_status st = mri_allocate(t->upstream, bytes, alignment, stream, ptr);
  if (st != MR_OK) return st;
  uint64_t now = mri_monotonic_ns();
  size_t frame_count = 0;
  void **frames = t->stack_depth > 0 ? capture_stack(t->stack_depth, &frame_count) : NULL;
  bool lost = frame_count > 0 && frames == NULL;
  pthread_mutex_lock(&t->lock);
  st = lost ? MR_ERR_OUT_OF_MEMORY
            : mri_ptrmap_put(
                  t->live, *ptr,
                  (mri_ptrmap_value){
                      .bytes = bytes, .alignment = alignment, .stream = stream, .time_ns = now});
  if (st == MR_OK && frames != NULL) {
    st = mri_ptrmap_put(t->stacks, *ptr, (mri_ptrmap_value){.bytes = frame_count, .raw = frames});
    if (st != MR_OK) {
      mri_ptrmap_value unused;
      mri_ptrmap_take(t->live, *ptr, &unused);
    }
  }
  pthread_mutex_unlock(&t->lock);
  if (st != MR_OK) {
    free(frames);
    mri_deallocate(t->upstream, *ptr, bytes, alignment, stream);
    *ptr = NULL;
    return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory recording a %zu-byte allocation",
                     t->description, bytes);
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
    return mri_size_mismatch_error(t->description, ptr, v.bytes, v.alignment, bytes, alignment);
  }
  mri_ptrmap_value frames = {0};
  bool had_frames = t->stacks != NULL && mri_ptrmap_take(t->stacks, ptr, &frames);
  pthread_mutex_unlock(&t->lock);
  mr_status st = mri_deallocate(t->upstream, ptr, bytes, alignment, stream);
  if (st != MR_OK) {
    /* Still allocated: keep it on the books (the slots just freed are
     * reused, so the maps need not grow). */
    pthread_mutex_lock(&t->lock);
    mri_ptrmap_put(t->live, ptr, v);
    if (had_frames) mri_ptrmap_put(t->stacks, ptr, frames);
    pthread_mutex_unlock(&t->lock);
  } else if (had_frames) {
    free(frames.raw);
  }
  return st;
}

typedef struct foreach_ctx {
  void (*fn)(void *user, const mr_track_record *rec);
  void *user;
  const char *owner;
  uint64_t now; /* when the walk began: ages are measured to it */
  const mri_ptrmap *stacks;
} foreach_ctx;

static void visit(void *user, const void *key, const mri_ptrmap_value *value) {
  foreach_ctx *ctx = user;
  mri_ptrmap_value frames = {0};
  if (ctx->stacks != NULL && !mri_ptrmap_get(ctx->stacks, key, &frames)) frames.bytes = 0;
  mr_track_record rec = {
      .size = sizeof rec,
      .ptr = (void *)key,
      .bytes = value->bytes,
      .alignment = value->alignment,
      .stream = value->stream,
      .owner = ctx->owner,
      .age_ns = ctx->now > value->time_ns ? ctx->now - value->time_ns : 0,
      .frames = frames.bytes > 0 ? (const void *const *)frames.raw : NULL,
      .frame_count = frames.bytes,
  };
  ctx->fn(ctx->user, &rec);
}

static mr_status track_foreach(track_state *t, void (*fn)(void *user, const mr_track_record *rec),
                               void *user, size_t *count) {
  foreach_ctx ctx = {fn, user, mri_resource_owner(t->self), 0, t->stacks};
  pthread_mutex_lock(&t->lock);
  ctx.now = mri_monotonic_ns();
  if (count != NULL) *count = mri_ptrmap_count(t->live);
  if (fn != NULL) mri_ptrmap_foreach(t->live, visit, &ctx);
  pthread_mutex_unlock(&t->lock);
  return MR_OK;
}

/* A record with its frames copied: they outlive the walk. */
typedef struct report_item {
  mr_track_record rec;
  const void *frames[MR_TRACK_MAX_STACKS];
} report_item;

typedef struct record_list {
  report_item *items;
  size_t count, capacity;
} record_list;

static void collect(void *user, const mr_track_record *rec) {
  record_list *list = user;
  if (list->count == list->capacity) return;
  report_item *item = &list->items[list->count++];
  item->rec = *rec;
  size_t n = rec->frame_count < MR_TRACK_MAX_STACKS ? rec->frame_count : MR_TRACK_MAX_STACKS;
  if (n > 0) memcpy(item->frames, rec->frames, n * sizeof *item->frames);
  item->rec.frame_count = n;
  item->rec.frames = NULL; /* the copy's: item->frames */
}

static int by_address(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const report_item *)a)->rec.ptr;
  uintptr_t y = (uintptr_t)((const report_item *)b)->rec.ptr;
  return (x > y) - (x < y);
}

/* One line per allocation, by address (and its call site under it), then
 * the total. The frames are named here, with no lock held. */
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
    const mr_track_record *r = &list.items[i].rec;
    total += r->bytes;
    fprintf(out, "  %p %zu bytes (alignment %zu, stream %p) owner %s\n", r->ptr, r->bytes,
            r->alignment, (void *)r->stream, r->owner[0] != '\0' ? r->owner : "unknown");
    for (size_t f = 0; f < r->frame_count; f++) {
      char frame[512];
      fprintf(out, "      at %s\n",
              mr_track_describe_frame(list.items[i].frames[f], frame, sizeof frame));
    }
  }
  fprintf(out, "%s%s: %zu allocation%s outstanding, %zu bytes in all\n", heading, t->description,
          list.count, list.count == 1 ? "" : "s", total);
  free(list.items);
  if (fflush(out) != 0 || ferror(out))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: writing the report failed", t->description);
  return MR_OK;
}

static void free_frames(void *user, const void *key, const mri_ptrmap_value *value) {
  (void)user;
  (void)key;
  free(value->raw);
}

static void track_destroy(void *self) {
  track_state *t = self;
  if (t->live != NULL) {
    if (mri_ptrmap_count(t->live) != 0) track_report(t, stderr, "mrctx: leak: ");
    mri_ptrmap_destroy(t->live);
  }
  if (t->stacks != NULL) {
    mri_ptrmap_foreach(t->stacks, free_frames, NULL);
    mri_ptrmap_destroy(t->stacks);
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

mr_status mr_track_resource_create_stacks(mr_resource *upstream, size_t stacks, mr_resource **out) {
  mr_status st = mri_adaptor_check(&track_ops, upstream, out);
  if (st != MR_OK) return st;
  if (stacks > MR_TRACK_MAX_STACKS)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "track: stacks=%zu is more than %d, the most frames kept per allocation",
                     stacks, MR_TRACK_MAX_STACKS);
  /* The description parses back to the same object: stacks are said only
   * where kept. */
  track_state *t = stacks > 0 ? mri_adaptor_alloc(sizeof *t, upstream, "track(%s, stacks=%zu)",
                                                  mr_resource_describe(upstream), stacks)
                              : mri_adaptor_alloc(sizeof *t, upstream, "track(%s)",
                                                  mr_resource_describe(upstream));
  if (t == NULL) return MR_ERR_OUT_OF_MEMORY;
  pthread_mutex_init(&t->lock, NULL);
  mri_fork_register_mutex(&t->lock_fork, &t->lock, MRI_FORK_RANK_RESOURCE);
  t->live = mri_ptrmap_create();
  bool made = t->live != NULL;
  if (stacks > 0 && made) {
    t->stack_depth = stacks;
    t->stacks = mri_ptrmap_create();
    made = t->stacks != NULL;
    pthread_once(&entry_once, find_entries);
  }
  st = mri_adaptor_create(&track_ops, t, MRI_ADAPTOR_PASSES, made ? MR_OK : MR_ERR_OUT_OF_MEMORY,
                          out);
  if (st == MR_OK) t->self = *out;
  return st;
}

mr_status mr_track_resource_create(mr_resource *upstream, mr_resource **out) {
  return mr_track_resource_create_stacks(upstream, 0, out);
}

bool mri_is_track(const mr_resource *mr) { return mr_resource_state(mr, &track_ops) != NULL; }

size_t mri_track_stack_depth(const mr_resource *mr) {
  const track_state *t = mr_resource_state(mr, &track_ops);
  return t != NULL ? t->stack_depth : 0;
}

static track_state *track_of(const mr_resource *mr, const char *call) {
  track_state *t = mr_resource_state(mr, &track_ops);
  if (t == NULL)
    mri_error(MR_ERR_INVALID_ARGUMENT, "%s: %s is not a track resource", call,
              mr_resource_describe(mr));
  return t;
}

mr_status mr_track_resource_foreach(const mr_resource *mr,
                                    void (*fn)(void *user, const mr_track_record *rec), void *user,
                                    size_t *count) {
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
