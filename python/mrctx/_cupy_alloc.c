/*
 * _cupy_alloc.c: CuPy's device allocations through an mrctx tag, in C
 * (mrctx.cupy.use; docs/integrations.md, "CuPy").
 *
 * CuPy's cupy.cuda.memory.CFunctionAllocator(param, malloc, free, owner)
 * calls, with the GIL held (cupy/cuda/memory.pyx, CFunctionAllocatorMemory):
 *   void *malloc(void *param, size_t size, int device_id)   (never for 0)
 *   void free(void *param, void *ptr, int device_id)
 * so an allocation costs no Python of mrctx's. The free is given neither
 * the size nor the stream: a binding (the param) keeps both per live block
 * in a map, and frees the block on the stream it was allocated on,
 * stream-ordered; if that stream is gone by then, on the legacy default
 * stream, which orders after every blocking stream.
 *
 * CuPy hands malloc no stream either. Its current stream is Python state
 * per thread, read in C through the function CuPy exports for other
 * Cython modules, cupy.cuda.stream's get_current_stream_ptr (a capsule in
 * the module's __pyx_capi__, "intptr_t (void)"), whose address Python
 * gives mrctx_cupy_bind. It needs the GIL or an attached thread, which
 * CuPy's call of malloc has.
 *
 * Failures: CuPy up to 14 is built so that a C malloc cannot raise (its
 * Cython call site is noexcept): a NULL becomes a MemoryPointer at address
 * 0. So malloc returns NULL with mr_last_error() saying why and this
 * thread's status kept (mrctx_cupy_last_status), and mrctx.cupy's one
 * Python line over CuPy's malloc raises CuPy's OutOfMemoryError (or the
 * status's mrctx error) from them. A free that fails cannot be reported:
 * it is counted with its message (mrctx_cupy_failed_frees).
 *
 * Lifetime: CuPy keeps `owner` (Python's, which holds one reference to the
 * binding) only as long as the allocator, and a block's memory object only
 * the param and the free function. So every live block also holds a
 * reference: the binding, with its references to the tag's resources, goes
 * when the allocator is dropped (reset(), another use()) and the last block
 * it handed out is freed, whichever comes last.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mrctx/mrctx.h>

#define EXPORT __attribute__((visibility("default")))

typedef intptr_t (*current_stream_fn)(void);

/* One live block: what CuPy's free does not say. ptr NULL: an empty slot. */
typedef struct block {
  void *ptr;
  size_t size;
  void *stream;
  int device;
} block;

typedef struct mrctx_cupy_binding {
  atomic_long refs; /* the owner's, and one per live block */
  current_stream_fn current_stream;
  pthread_mutex_t lock; /* the map */
  block *map;           /* open addressing, linear probing, at most half full */
  size_t cap, count;    /* cap: a power of two, or 0 before the first block */
  char name[160];       /* "library 'x' tag 'y'", for messages */
  int device_count;
  mr_resource *mr[]; /* one reference each */
} mrctx_cupy_binding;

static _Thread_local mr_status last_status;
static atomic_ullong failed_frees;
static pthread_mutex_t free_error_lock = PTHREAD_MUTEX_INITIALIZER;
static char free_error[512];

EXPORT mr_status mrctx_cupy_bind(const char *name, mr_resource *const *resources, int device_count,
                                 void *current_stream, mrctx_cupy_binding **out);
EXPORT void mrctx_cupy_unbind(mrctx_cupy_binding *b);
EXPORT void *mrctx_cupy_malloc(void *param, size_t size, int device);
EXPORT void mrctx_cupy_free(void *param, void *ptr, int device);
EXPORT int mrctx_cupy_last_status(void);
EXPORT long mrctx_cupy_live_blocks(mrctx_cupy_binding *b);
EXPORT void *mrctx_cupy_block_stream(mrctx_cupy_binding *b, void *ptr);
EXPORT unsigned long long mrctx_cupy_failed_frees(void);
EXPORT void mrctx_cupy_last_free_error(char *buf, size_t cap);

/* OUT: *out, a binding of one tag's resources (one per device, each
 * retained) and CuPy's current-stream function; Python holds the one
 * reference it gets and drops it with mrctx_cupy_unbind. */
mr_status mrctx_cupy_bind(const char *name, mr_resource *const *resources, int device_count,
                          void *current_stream, mrctx_cupy_binding **out) {
  if (out != NULL) *out = NULL;
  if (out == NULL || name == NULL || resources == NULL || device_count <= 0 ||
      current_stream == NULL)
    return mr_error(MR_ERR_INVALID_ARGUMENT,
                    "mrctx_cupy_bind: %d devices, current stream %p: invalid", device_count,
                    current_stream);
  for (int d = 0; d < device_count; d++) {
    if (resources[d] == NULL)
      return mr_error(MR_ERR_INVALID_ARGUMENT, "mrctx_cupy_bind(%s): no resource on device %d",
                      name, d);
  }
  mrctx_cupy_binding *b = calloc(1, sizeof *b + (size_t)device_count * sizeof b->mr[0]);
  if (b == NULL)
    return mr_error(MR_ERR_OUT_OF_MEMORY, "mrctx_cupy_bind(%s): out of host memory", name);
  atomic_init(&b->refs, 1);
  b->current_stream = (current_stream_fn)(uintptr_t)current_stream;
  pthread_mutex_init(&b->lock, NULL);
  snprintf(b->name, sizeof b->name, "%s", name);
  b->device_count = device_count;
  for (int d = 0; d < device_count; d++) b->mr[d] = mr_resource_retain(resources[d]);
  *out = b;
  return MR_OK;
}

static void binding_release(mrctx_cupy_binding *b) {
  if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1) return;
  for (int d = 0; d < b->device_count; d++) mr_resource_release(b->mr[d]);
  pthread_mutex_destroy(&b->lock);
  free(b->map);
  free(b);
}

void mrctx_cupy_unbind(mrctx_cupy_binding *b) {
  if (b != NULL) binding_release(b);
}

/* ---- The map of live blocks (under b->lock) -------------------------------- */

static size_t slot_of(const void *ptr, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)ptr * 0x9e3779b97f4a7c15ULL;
  return (size_t)(h ^ h >> 29) & (cap - 1);
}

/* Where ptr is, or the empty slot where it would go. */
static block *map_find(block *map, size_t cap, const void *ptr) {
  for (size_t i = slot_of(ptr, cap);; i = (i + 1) & (cap - 1)) {
    if (map[i].ptr == NULL || map[i].ptr == ptr) return &map[i];
  }
}

/* false when out of host memory. */
static bool map_insert(mrctx_cupy_binding *b, block entry) {
  if ((b->count + 1) * 2 > b->cap) {
    size_t cap = b->cap != 0 ? b->cap * 2 : 64;
    block *map = calloc(cap, sizeof *map);
    if (map == NULL) return false;
    for (size_t i = 0; i < b->cap; i++) {
      if (b->map[i].ptr != NULL) *map_find(map, cap, b->map[i].ptr) = b->map[i];
    }
    free(b->map);
    b->map = map;
    b->cap = cap;
  }
  *map_find(b->map, b->cap, entry.ptr) = entry;
  b->count++;
  return true;
}

/* Take ptr's entry out into *out; false if it is not a live block. The
 * entries after it in its run move back (no tombstones). */
static bool map_remove(mrctx_cupy_binding *b, const void *ptr, block *out) {
  if (b->cap == 0) return false;
  block *slot = map_find(b->map, b->cap, ptr);
  if (slot->ptr == NULL) return false;
  *out = *slot;
  size_t hole = (size_t)(slot - b->map);
  for (size_t i = (hole + 1) & (b->cap - 1); b->map[i].ptr != NULL; i = (i + 1) & (b->cap - 1)) {
    size_t home = slot_of(b->map[i].ptr, b->cap);
    /* The entry at i may fill the hole unless its home lies in (hole, i]. */
    bool stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
    if (stays) continue;
    b->map[hole] = b->map[i];
    hole = i;
  }
  b->map[hole].ptr = NULL;
  b->count--;
  return true;
}

/* ---- CuPy's pair ------------------------------------------------------------ */

/* A free that failed: CuPy cannot be told, so it is counted and its message
 * (this thread's mr_last_error()) kept for Python. */
static void note_failed_free(void) {
  atomic_fetch_add_explicit(&failed_frees, 1, memory_order_relaxed);
  pthread_mutex_lock(&free_error_lock);
  snprintf(free_error, sizeof free_error, "%s", mr_last_error());
  pthread_mutex_unlock(&free_error_lock);
}


void *mrctx_cupy_malloc(void *param, size_t size, int device) {
  mrctx_cupy_binding *b = param;
  void *ptr = NULL;
  mr_status st = MR_OK;
  if (b == NULL) {
    st = mr_error(MR_ERR_INVALID_ARGUMENT, "mrctx.cupy: no binding (param NULL)");
  } else if (device < 0 || device >= b->device_count) {
    st = mr_error(MR_ERR_NO_DEVICE, "mrctx.cupy: %s has no device %d (it has %d)", b->name, device,
                  b->device_count);
  } else {
    intptr_t stream = b->current_stream();
    if (stream == -1) {
      /* CuPy's function failed; its Python exception is pending. */
      st = mr_error(MR_ERR_STATE, "mrctx.cupy: %s: CuPy could not say its current stream", b->name);
    } else {
      st = mr_allocate(b->mr[device], size, 0, (mr_stream)stream, &ptr);
      if (st == MR_OK && ptr != NULL) {
        /* The block's reference first: once in the map, another thread may
         * free it. */
        atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
        pthread_mutex_lock(&b->lock);
        bool kept = map_insert(b, (block){ptr, size, (void *)stream, device});
        pthread_mutex_unlock(&b->lock);
        if (!kept) {
          if (mr_deallocate(b->mr[device], ptr, size, 0, (mr_stream)stream) != MR_OK)
            note_failed_free();
          binding_release(b);
          ptr = NULL;
          st = mr_error(MR_ERR_OUT_OF_MEMORY,
                        "mrctx.cupy: out of host memory keeping a block of %zu bytes "
                        "on device %d (%s)",
                        size, device, b->name);
        }
      } else if (st != MR_OK) {
        char why[384];
        snprintf(why, sizeof why, "%s", mr_last_error());
        st = st == MR_ERR_OUT_OF_MEMORY
                 ? mr_error(st,
                            "mrctx.cupy: out of memory allocating %zu bytes on device %d (%s): %s",
                            size, device, b->name, why)
                 : mr_error(st, "mrctx.cupy: %s, %zu bytes on device %d: %s", b->name, size, device,
                            why);
      }
    }
  }
  last_status = st;
  return ptr;
}

void mrctx_cupy_free(void *param, void *ptr, int device) {
  mrctx_cupy_binding *b = param;
  if (ptr == NULL) return;
  if (b == NULL) {
    mr_error(MR_ERR_INVALID_ARGUMENT, "mrctx.cupy: freeing %p: no binding (param NULL)", ptr);
    note_failed_free();
    return;
  }
  block entry;
  pthread_mutex_lock(&b->lock);
  bool found = map_remove(b, ptr, &entry);
  pthread_mutex_unlock(&b->lock);
  if (!found) {
    mr_error(MR_ERR_INVALID_ARGUMENT,
             "mrctx.cupy: freeing %p on device %d: not a live block of %s (freed twice, or "
             "never its own)",
             ptr, device, b->name);
    note_failed_free();
    return;
  }
  mr_resource *mr = b->mr[entry.device];
  if (mr_deallocate(mr, ptr, entry.size, 0, (mr_stream)entry.stream) != MR_OK &&
      (entry.stream == NULL || mr_deallocate(mr, ptr, entry.size, 0, NULL) != MR_OK))
    note_failed_free();
  binding_release(b);
}

/* ---- For Python and the tests ----------------------------------------------- */

/* This thread's last mrctx_cupy_malloc: MR_OK, or why it returned NULL. */
int mrctx_cupy_last_status(void) { return (int)last_status; }

long mrctx_cupy_live_blocks(mrctx_cupy_binding *b) {
  if (b == NULL) return -1;
  pthread_mutex_lock(&b->lock);
  long count = (long)b->count;
  pthread_mutex_unlock(&b->lock);
  return count;
}

/* The stream a live block was allocated on (and will be freed on). */
void *mrctx_cupy_block_stream(mrctx_cupy_binding *b, void *ptr) {
  if (b == NULL || ptr == NULL) return NULL;
  void *stream = NULL;
  pthread_mutex_lock(&b->lock);
  if (b->cap != 0) {
    block *slot = map_find(b->map, b->cap, ptr);
    if (slot->ptr != NULL) stream = slot->stream;
  }
  pthread_mutex_unlock(&b->lock);
  return stream;
}

unsigned long long mrctx_cupy_failed_frees(void) {
  return atomic_load_explicit(&failed_frees, memory_order_relaxed);
}

void mrctx_cupy_last_free_error(char *buf, size_t cap) {
  if (buf == NULL || cap == 0) return;
  pthread_mutex_lock(&free_error_lock);
  snprintf(buf, cap, "%s", free_error);
  pthread_mutex_unlock(&free_error_lock);
}
