/*
 * frame_source.c: frames a language runtime adds to track(UP, stacks=N)'s
 * call sites (mr_track_set_frame_source).
 *
 * libc's backtrace() sees only native frames: an allocation made from
 * Python shows the interpreter, ctypes and libffi, never the line of the
 * user's script that asked. So a runtime may register one process-wide
 * source; track(...) with stacks calls it at each allocation it records,
 * on the allocating thread, before it walks the native stack. The source
 * fills up to N {file, line, function} frames, innermost first; they come
 * first in the block's call site, and the native frames fill the room
 * left (docs/observability.md, "Python call sites").
 *
 * A runtime frame is kept as a pointer, as a native one is: each distinct
 * {file, line, function} is interned once into an entry that holds its
 * text ("function (file:line)") and lives for the rest of the process, and
 * the call site stores the entry's address. Entries are heap memory, never
 * code, so no return address equals one; mr_track_describe_frame asks the
 * set of entries first. Their number is the number of distinct call sites
 * (as PyTorch's recorded frames), not of allocations.
 *
 * Cost: with no source set, an allocation under stacks pays one atomic
 * load; without stacks, nothing (track never calls here). With a source,
 * one read lock, the source, and one mutex and a hash lookup per frame.
 *
 * Threads and lifetime: the source runs under a read lock, so
 * mr_track_set_frame_source (the write lock) returns only once no call of
 * the old source is running: a runtime that unsets its source before it
 * shuts down (Python's atexit) is never called afterwards.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptors/adaptors_internal.h"
#include "core/fork.h"
#include "core/ptrmap.h"

/* ---- the source ------------------------------------------------------------------- */

static pthread_rwlock_t source_lock = PTHREAD_RWLOCK_INITIALIZER;
/* Read without the lock first, so that no source costs no lock; `user` is
 * read under it. */
static _Atomic(mr_track_frame_source_fn) source_fn;
static void *source_user;

static void source_fork_lock(void *obj) {
  (void)obj;
  if (pthread_rwlock_trywrlock(&source_lock) != 0) {
    mri_fork_waiting();
    pthread_rwlock_wrlock(&source_lock);
  }
}

static void source_fork_unlock(void *obj) {
  (void)obj;
  pthread_rwlock_unlock(&source_lock);
}

/* The child has only the forking thread: no reader is left. */
static void source_fork_child(void *obj) {
  (void)obj;
  pthread_rwlock_init(&source_lock, NULL);
}

/* ---- interned frames -------------------------------------------------------------- */

typedef struct interned {
  struct interned *next; /* the next entry of the same hash */
  uint64_t hash;
  uint32_t line;
  const char *file, *function; /* into text */
  char text[];                 /* "function (file:line)\0function\0file" */
} interned;

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static mri_ptrmap *by_hash;  /* hash (never 0) -> first entry of that hash (value.raw) */
static mri_ptrmap *by_entry; /* entry -> nothing: which pointers are entries */
static mri_fork_lockable source_fork, intern_fork;

__attribute__((constructor)) static void frame_source_fork_register(void) {
  source_fork = (mri_fork_lockable){.rank = MRI_FORK_RANK_FRAME_SOURCE,
                                    .lock = source_fork_lock,
                                    .unlock = source_fork_unlock,
                                    .child = source_fork_child};
  mri_fork_register(&source_fork);
  mri_fork_register_mutex(&intern_fork, &intern_lock, MRI_FORK_RANK_LEAF);
}

static uint64_t fnv(uint64_t h, const char *s) {
  for (; *s != '\0'; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return (h ^ 0xff) * 0x100000001b3ULL; /* a separator: ("ab","c") is not ("a","bc") */
}

/* A runtime's strings are a file's bytes: none may drive a terminal. */
static void clean(char *s) {
  for (; *s != '\0'; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = '?';
}

/* The entry of one frame, made on first sight; NULL without host memory
 * (the frame is then left out). Under intern_lock. */
static const interned *intern(const char *file, uint32_t line, const char *function) {
  uint64_t hash = fnv(fnv(0xcbf29ce484222325ULL ^ line, file), function) | 1;
  mri_ptrmap_value head = {0};
  if (by_hash == NULL) by_hash = mri_ptrmap_create();
  if (by_entry == NULL) by_entry = mri_ptrmap_create();
  if (by_hash == NULL || by_entry == NULL) return NULL;
  if (mri_ptrmap_get(by_hash, (const void *)(uintptr_t)hash, &head))
    for (const interned *e = head.raw; e != NULL; e = e->next)
      if (e->hash == hash && e->line == line && strcmp(e->file, file) == 0 &&
          strcmp(e->function, function) == 0)
        return e;
  size_t nf = strlen(file), nfn = strlen(function);
  size_t text = nfn + nf + 16; /* " (" ":" 10 digits ")" NUL */
  interned *e = mri_host_malloc(sizeof *e + text + nfn + 1 + nf + 1);
  if (e == NULL) return NULL;
  *e = (interned){.next = head.raw, .hash = hash, .line = line};
  snprintf(e->text, text, "%s (%s:%" PRIu32 ")", function, file, line);
  clean(e->text);
  char *fn_copy = e->text + text, *file_copy = fn_copy + nfn + 1;
  memcpy(fn_copy, function, nfn + 1);
  memcpy(file_copy, file, nf + 1);
  e->function = fn_copy;
  e->file = file_copy;
  if (mri_ptrmap_put(by_entry, e, (mri_ptrmap_value){0}) != MR_OK) {
    free(e);
    return NULL;
  }
  if (mri_ptrmap_put(by_hash, (const void *)(uintptr_t)hash, (mri_ptrmap_value){.raw = e}) !=
      MR_OK) {
    mri_ptrmap_take(by_entry, e, NULL);
    free(e);
    return NULL;
  }
  return e;
}

/* ---- what track(...) and the public calls use ------------------------------------- */

size_t mri_track_runtime_frames(const void **frames, size_t cap) {
  if (cap == 0 || atomic_load_explicit(&source_fn, memory_order_acquire) == NULL) return 0;
  if (cap > MR_TRACK_MAX_STACKS) cap = MR_TRACK_MAX_STACKS;
  mr_track_frame given[MR_TRACK_MAX_STACKS];
  size_t kept = 0;
  pthread_rwlock_rdlock(&source_lock);
  /* Again under the lock: it may have been unset meanwhile. */
  mr_track_frame_source_fn fn = atomic_load_explicit(&source_fn, memory_order_relaxed);
  if (fn != NULL) {
    memset(given, 0, cap * sizeof *given);
    size_t n = fn(source_user, given, cap);
    if (n > cap) n = cap; /* a source that overstates is believed no further */
    pthread_mutex_lock(&intern_lock);
    for (size_t i = 0; i < n; i++) {
      const interned *e = intern(given[i].file != NULL ? given[i].file : "?", given[i].line,
                                 given[i].function != NULL ? given[i].function : "?");
      if (e != NULL) frames[kept++] = e;
    }
    pthread_mutex_unlock(&intern_lock);
  }
  pthread_rwlock_unlock(&source_lock);
  return kept;
}

bool mri_track_describe_runtime_frame(const void *frame, char *buf, size_t cap) {
  pthread_mutex_lock(&intern_lock);
  bool known = by_entry != NULL && mri_ptrmap_get(by_entry, frame, NULL);
  pthread_mutex_unlock(&intern_lock);
  /* Entries are never freed: the text may be read without the lock. */
  if (known) snprintf(buf, cap, "%s", ((const interned *)frame)->text);
  return known;
}

mr_status mr_track_set_frame_source(mr_track_frame_source_fn fn, void *user) {
  pthread_rwlock_wrlock(&source_lock);
  atomic_store_explicit(&source_fn, fn, memory_order_release);
  source_user = fn != NULL ? user : NULL;
  pthread_rwlock_unlock(&source_lock);
  return MR_OK;
}
