/*
 * fakecuda_state.c: the fake CUDA driver's state, its defaults, the lock
 * every entry point runs under, and the helpers the entry points share
 * (fakecuda_internal.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakecuda_internal.h"

#define FAKE_ALIGNMENT 256
#define FAKE_DEFAULT_DEVICES 4
#define FAKE_DEFAULT_TOTAL_MEMORY ((size_t)16 << 30)
#define FAKE_DEFAULT_HOST_MEMORY ((size_t)64 << 30)
#define FAKE_NUMA_NODES 1

/* ---- state ---------------------------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool configured; /* defaults applied */
bool count_set;         /* the device count was chosen by the test */
bool initialized;
bool deinitialized;
int device_count;
int driver_version;
size_t host_total, host_used;
fake_device devices[FAKE_CUDA_MAX_DEVICES];
fake_location locations[LOC_COUNT];

struct CUmemPoolHandle_st *pools;
struct CUstream_st *streams;
struct CUstream_st *destroyed_streams;
fake_work *works;
unsigned long long next_stream_id;
struct CUevent_st *events;

#define ALLOC_BUCKETS 1024
static fake_alloc *alloc_table[ALLOC_BUCKETS];
long live_allocations;

_Thread_local CUcontext ctx_stack[FAKE_CONTEXT_STACK];
_Thread_local int ctx_depth;

/* ---- entry points: names, counters, failures ------------------------------ */

#define FAKE_ENTRY_NAME_(name, version) #name,
static const char *const entry_names[FAKE_EP_COUNT] = {
    MRI_CUDA_ENTRY_POINTS(FAKE_ENTRY_NAME_) "cuGetProcAddress"};
#undef FAKE_ENTRY_NAME_

long calls[FAKE_EP_COUNT];
fake_failure failures[FAKE_EP_COUNT];

static int entry_index(const char *name) {
  for (int i = 0; i < FAKE_EP_COUNT; i++)
    if (name != NULL && strcmp(entry_names[i], name) == 0) return i;
  return -1;
}

int entry_index_or_abort(const char *caller, const char *name) {
  int i = entry_index(name);
  if (i < 0) {
    fprintf(stderr, "%s: \"%s\" is not an entry point of the fake CUDA driver\n", caller,
            name != NULL ? name : "(null)");
    abort();
  }
  return i;
}

/* ---- defaults ------------------------------------------------------------- */

void pool_init(struct CUmemPoolHandle_st *p, CUmemLocation location, CUmemAllocationType type,
               bool is_default) {
  memset(p, 0, sizeof *p);
  p->location = location;
  p->type = type;
  p->is_default = is_default;
  p->reuse_follow_event = 1;
  p->reuse_opportunistic = 1;
  p->reuse_internal = 1;
  p->ipc_fd = -1;
  if (location.type == CU_MEM_LOCATION_TYPE_DEVICE)
    p->access[location.id] = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
}

static void location_reset(int index) {
  CUmemLocation location = {.type = CU_MEM_LOCATION_TYPE_NONE, .id = 0};
  CUmemAllocationType type = CU_MEM_ALLOCATION_TYPE_PINNED;
  if (index < LOC_DEVICE_MANAGED) {
    location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = index};
  } else if (index < LOC_HOST_PINNED) {
    location =
        (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = index - LOC_DEVICE_MANAGED};
    type = CU_MEM_ALLOCATION_TYPE_MANAGED;
  } else if (index == LOC_HOST_PINNED || index == LOC_HOST_MANAGED) {
    location.type = CU_MEM_LOCATION_TYPE_HOST;
    if (index == LOC_HOST_MANAGED) type = CU_MEM_ALLOCATION_TYPE_MANAGED;
  } else if (index == LOC_NUMA_PINNED || index == LOC_NUMA_MANAGED) {
    location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    if (index == LOC_NUMA_MANAGED) type = CU_MEM_ALLOCATION_TYPE_MANAGED;
  } else {
    type = CU_MEM_ALLOCATION_TYPE_MANAGED;
  }
  pool_init(&locations[index].default_pool, location, type, true);
  locations[index].current = &locations[index].default_pool;
}

static void device_reset(int d) {
  fake_device *dev = &devices[d];
  snprintf(dev->name, sizeof dev->name, "Fake CUDA Device %d", d);
  dev->total_memory = FAKE_DEFAULT_TOTAL_MEMORY;
  dev->used = 0;
  memset(dev->attributes, 0, sizeof dev->attributes);
  dev->attributes[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR] = 9;
  dev->attributes[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR] = 0;
  dev->attributes[CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED] = 1;
  dev->attributes[CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED] = 1;
  dev->attributes[CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES] =
      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  dev->attributes[CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY] = 1;
  dev->attributes[CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED] = 1;
  dev->attributes[CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED] = 1;
  dev->attributes[CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS] = 1;
  dev->attributes[CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING] = 1;
  dev->attributes[CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY] = 1;
  dev->attributes[CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT] = 132;
  dev->attributes[CU_DEVICE_ATTRIBUTE_PCI_BUS_ID] = d + 1;
  for (int p = 0; p < FAKE_CUDA_MAX_DEVICES; p++) dev->peer[p] = p != d;
  dev->primary.device = d;
  memset(&dev->primary.legacy, 0, sizeof dev->primary.legacy);
  dev->primary.legacy.ctx = &dev->primary;
  memset(&dev->primary.per_thread, 0, sizeof dev->primary.per_thread);
  dev->primary.per_thread.ctx = &dev->primary;
  dev->primary.per_thread.flags = CU_STREAM_NON_BLOCKING;
}

static int default_device_count(void) {
  const char *text = getenv("FAKECUDA_DEVICES");
  if (text == NULL || text[0] == '\0') return FAKE_DEFAULT_DEVICES;
  char *end;
  long n = strtol(text, &end, 10);
  if (*end != '\0' || n < 0 || n > FAKE_CUDA_MAX_DEVICES) {
    fprintf(stderr, "fakecuda: FAKECUDA_DEVICES=%s is not a count from 0 to %d\n", text,
            FAKE_CUDA_MAX_DEVICES);
    abort();
  }
  return (int)n;
}

/* Free what tests and the library made; keep handles the library caches
 * (contexts, default pools). Called with the lock held. */
static void free_everything(void) {
  vmm_reset();
  for (int b = 0; b < ALLOC_BUCKETS; b++) {
    while (alloc_table[b] != NULL) {
      fake_alloc *a = alloc_table[b];
      alloc_table[b] = a->next;
      if (!a->mapped) free(a->ptr);
      free(a);
    }
  }
  live_allocations = 0;
  while (pools != NULL) {
    struct CUmemPoolHandle_st *p = pools;
    pools = p->next;
    ipc_pool_release(p);
    free(p);
  }
  for (struct CUstream_st **list = &streams; list != NULL;
       list = list == &streams ? &destroyed_streams : NULL) {
    while (*list != NULL) {
      struct CUstream_st *s = *list;
      *list = s->next;
      free(s);
    }
  }
  while (works != NULL) {
    fake_work *w = works;
    works = w->next;
    free(w);
  }
  for (int d = 0; d < FAKE_CUDA_MAX_DEVICES; d++) {
    devices[d].primary.legacy.work = NULL;
    devices[d].primary.per_thread.work = NULL;
  }
  while (events != NULL) {
    struct CUevent_st *e = events;
    events = e->next;
    free(e);
  }
}

void apply_defaults(void) {
  free_everything();
  random_failure_reset();
  if (!initialized && !count_set) device_count = default_device_count();
  driver_version = 13000;
  deinitialized = false;
  host_total = FAKE_DEFAULT_HOST_MEMORY;
  host_used = 0;
  for (int d = 0; d < FAKE_CUDA_MAX_DEVICES; d++) device_reset(d);
  for (int i = 0; i < LOC_COUNT; i++) location_reset(i);
  memset(calls, 0, sizeof calls);
  memset(failures, 0, sizeof failures);
  configured = true;
}

/* A child made by fork() gets the lock unheld. Another thread of the
 * parent may have been inside an entry point at the fork (mrctx's idle-
 * memory thread, between two of its ticks' driver calls), and the child,
 * which has only the forking thread, would wait on it for ever. Only the
 * child's side: a prepare handler taking the lock before the fork would
 * run before mrctx's own (registered earlier, run later) and deadlock
 * with a thread that holds one of mrctx's locks and waits for this one.
 * The state that thread was changing may be half done; the entry points
 * change it in a few stores, and the tests that fork look at their own. */
static void child_after_fork(void) { pthread_mutex_init(&lock, NULL); }

__attribute__((constructor)) static void register_fork_child(void) {
  pthread_atfork(NULL, NULL, child_after_fork);
}

void fake_cuda_hold_lock(bool hold) {
  if (hold)
    pthread_mutex_lock(&lock);
  else
    pthread_mutex_unlock(&lock);
}

void lock_state(void) {
  pthread_mutex_lock(&lock);
  if (!configured) apply_defaults();
}

void unlock_state(void) { pthread_mutex_unlock(&lock); }

CUresult enter(enum fake_entry entry, enum entry_rule rule) {
  lock_state();
  long n = ++calls[entry];
  const fake_failure *f = &failures[entry];
  if (f->count > 0 && n >= f->first && n - f->first < f->count) return f->error;
  CUresult random_error;
  if (random_failure(entry, &random_error)) return random_error;
  if (rule == ANY_TIME) return CUDA_SUCCESS;
  if (deinitialized) return CUDA_ERROR_DEINITIALIZED;
  if (rule == NEEDS_INIT && !initialized) return CUDA_ERROR_NOT_INITIALIZED;
  return CUDA_SUCCESS;
}

/* ---- helpers (lock held) --------------------------------------------------- */

CUcontext current_ctx(void) { return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL; }

bool valid_device(CUdevice d) { return d >= 0 && d < device_count; }

bool valid_ctx(CUcontext ctx) {
  for (int d = 0; d < device_count; d++)
    if (ctx == &devices[d].primary) return true;
  return false;
}

static struct CUstream_st *find_stream(CUstream handle) {
  for (struct CUstream_st *s = streams; s != NULL; s = s->next)
    if (s == handle) return s;
  return NULL;
}

/* The stream a handle names: NULL and CU_STREAM_LEGACY the current
 * context's legacy stream, CU_STREAM_PER_THREAD its per-thread stream. */
CUresult resolve_stream(CUstream handle, struct CUstream_st **out) {
  *out = NULL;
  if (handle == NULL || handle == CU_STREAM_LEGACY || handle == CU_STREAM_PER_THREAD) {
    CUcontext ctx = current_ctx();
    if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
    *out = handle == CU_STREAM_PER_THREAD ? &ctx->per_thread : &ctx->legacy;
    return CUDA_SUCCESS;
  }
  *out = find_stream(handle);
  return *out != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* The calling thread's stream capture mode (cuThreadExchangeStreamCaptureMode). */
_Thread_local CUstreamCaptureMode fake_thread_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

CUresult capture_conflict(bool sync, const struct CUstream_st *s) {
  bool legacy = s != NULL && s == &s->ctx->legacy;
  CUresult r = CUDA_SUCCESS;
  for (struct CUstream_st *c = streams; c != NULL; c = c->next) {
    if (!c->capturing || !c->capture_begun) continue;
    if (sync && fake_thread_capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
        c->capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL) {
      c->capture_invalidated = true;
      r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    if (legacy && c->ctx == s->ctx && !(c->flags & CU_STREAM_NON_BLOCKING)) {
      c->capture_invalidated = true;
      r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    }
  }
  return r;
}

struct CUevent_st *find_event(CUevent handle) {
  for (struct CUevent_st *e = events; e != NULL; e = e->next)
    if (e == handle) return e;
  return NULL;
}

static bool work_pending(const fake_work *w) {
  for (; w != NULL; w = w->before) {
    if (w->done) return false; /* work finishes in order: what came before too */
    if (w->waits != NULL) {
      /* A wait for another stream's work: pending while that work is. */
      if (work_pending(w->waits)) return true;
      continue;
    }
    if (w->gate == NULL || (int32_t)(*w->gate - w->gate_value) < 0) return true;
  }
  return false;
}

/* Finishing work finishes what it waits for, on its stream and others. */
void finish_work(fake_work *w) {
  for (; w != NULL && !w->done; w = w->before) {
    w->done = true;
    if (w->waits != NULL) finish_work(w->waits);
  }
}

bool stream_busy(const struct CUstream_st *s) { return work_pending(s->work); }

/* Give `s` new work (pending until finished, or until `gate` opens). */
CUresult add_work(struct CUstream_st *s, const volatile cuuint32_t *gate, cuuint32_t gate_value) {
  fake_work *w = calloc(1, sizeof *w);
  if (w == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  w->ctx = s->ctx;
  w->blocking = !(s->flags & CU_STREAM_NON_BLOCKING);
  w->gate = gate;
  w->gate_value = gate_value;
  w->before = stream_busy(s) ? s->work : NULL;
  w->next = works;
  works = w;
  s->work = w;
  return CUDA_SUCCESS;
}

bool event_pending(const struct CUevent_st *e) { return work_pending(e->work); }

CUresult add_wait(struct CUstream_st *s, fake_work *waits) {
  CUresult r = add_work(s, NULL, 0);
  if (r == CUDA_SUCCESS) s->work->waits = waits;
  return r;
}

/* The IDs of the default streams: the legacy stream's per context, the
 * per-thread stream's per context and thread. */
unsigned long long legacy_stream_id(CUcontext ctx) { return 1 + (unsigned long long)ctx->device; }

static _Thread_local unsigned long long tls_per_thread_ids[FAKE_CUDA_MAX_DEVICES];

unsigned long long per_thread_stream_id(CUcontext ctx) {
  unsigned long long *id = &tls_per_thread_ids[ctx->device];
  if (*id == 0) *id = ++next_stream_id;
  return *id;
}

/* Synchronizing lets pools hand memory above their threshold back. */
void release_all_pools(void) {
  /* A synchronize: the host has seen every earlier free complete. */
  for (int i = 0; i < LOC_COUNT; i++) locations[i].default_pool.unobserved = 0;
  for (struct CUmemPoolHandle_st *p = pools; p != NULL; p = p->next) p->unobserved = 0;
  for (int i = 0; i < LOC_COUNT; i++)
    release_pool_memory(&locations[i].default_pool, locations[i].default_pool.release_threshold);
  for (struct CUmemPoolHandle_st *p = pools; p != NULL; p = p->next)
    release_pool_memory(p, p->release_threshold);
}

/* Waiting on a stream finishes its work. The legacy stream also waits for
 * every blocking stream of its context. */
void finish_stream(struct CUstream_st *s) {
  finish_work(s->work);
  if (s == &s->ctx->legacy) {
    /* Destroyed streams' work too: it is still the context's. */
    for (fake_work *w = works; w != NULL; w = w->next)
      if (w->ctx == s->ctx && w->blocking) w->done = true;
  }
}

/* --- locations and pools --- */

static bool any_device_has(CUdevice_attribute a, CUdevice_attribute b) {
  for (int d = 0; d < device_count; d++)
    if (devices[d].attributes[a] && devices[d].attributes[b]) return true;
  return false;
}

/* Which location slot a (location, type) pair names, and whether the
 * devices support pools there. */
CUresult find_location(const CUmemLocation *location, CUmemAllocationType type,
                       fake_location **out) {
  *out = NULL;
  if (location == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (type != CU_MEM_ALLOCATION_TYPE_PINNED && type != CU_MEM_ALLOCATION_TYPE_MANAGED)
    return CUDA_ERROR_INVALID_VALUE;
  bool managed = type == CU_MEM_ALLOCATION_TYPE_MANAGED;
  int index;
  bool supported;
  switch (location->type) {
  case CU_MEM_LOCATION_TYPE_DEVICE:
    if (!valid_device(location->id)) return CUDA_ERROR_INVALID_DEVICE;
    index = (managed ? LOC_DEVICE_MANAGED : LOC_DEVICE_PINNED) + location->id;
    supported = devices[location->id].attributes[CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED] &&
                (!managed || devices[location->id].attributes[CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY]);
    break;
  case CU_MEM_LOCATION_TYPE_HOST:
  case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    if (location->type == CU_MEM_LOCATION_TYPE_HOST_NUMA &&
        (location->id < 0 || location->id >= FAKE_NUMA_NODES))
      return CUDA_ERROR_INVALID_VALUE;
    if (location->type == CU_MEM_LOCATION_TYPE_HOST)
      index = managed ? LOC_HOST_MANAGED : LOC_HOST_PINNED;
    else
      index = managed ? LOC_NUMA_MANAGED : LOC_NUMA_PINNED;
    supported = managed ? any_device_has(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                                         CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY)
                        : any_device_has(CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED,
                                         CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED);
    break;
  case CU_MEM_LOCATION_TYPE_NONE:
    if (!managed) return CUDA_ERROR_INVALID_VALUE;
    index = LOC_NONE_MANAGED;
    supported = any_device_has(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                               CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!supported) return CUDA_ERROR_NOT_SUPPORTED;
  *out = &locations[index];
  return CUDA_SUCCESS;
}

static bool is_default_pool(CUmemoryPool p) {
  for (int i = 0; i < LOC_COUNT; i++)
    if (p == &locations[i].default_pool) return true;
  return false;
}

/* A pool handle that may be used: a default pool, or a created pool not
 * destroyed. */
struct CUmemPoolHandle_st *find_pool(CUmemoryPool handle) {
  if (handle == NULL) return NULL;
  if (is_default_pool(handle)) return handle;
  for (struct CUmemPoolHandle_st *p = pools; p != NULL; p = p->next)
    if (p == handle && !p->destroyed) return p;
  return NULL;
}

/* Device a pool's memory is charged to; -1: the host. */
int pool_device(const struct CUmemPoolHandle_st *p) {
  return p->location.type == CU_MEM_LOCATION_TYPE_DEVICE ? p->location.id : -1;
}

CUresult charge(int device, size_t bytes) {
  size_t *used = device < 0 ? &host_used : &devices[device].used;
  size_t total = device < 0 ? host_total : devices[device].total_memory;
  if (*used > total || bytes > total - *used) return CUDA_ERROR_OUT_OF_MEMORY;
  *used += bytes;
  return CUDA_SUCCESS;
}

void uncharge(int device, size_t bytes) {
  size_t *used = device < 0 ? &host_used : &devices[device].used;
  *used -= bytes;
}

void release_pool_memory(struct CUmemPoolHandle_st *p, cuuint64_t keep) {
  cuuint64_t target = keep < p->reserved ? keep : p->reserved;
  cuuint64_t held =
      p->used + (p->unobserved < p->reserved - p->used ? p->unobserved : p->reserved - p->used);
  if (target < held) target = held;
  if (target < p->reserved) {
    uncharge(pool_device(p), (size_t)(p->reserved - target));
    p->reserved = target;
  }
}

void unlink_pool(struct CUmemPoolHandle_st *gone) {
  for (struct CUmemPoolHandle_st **link = &pools; *link != NULL; link = &(*link)->next) {
    if (*link == gone) {
      *link = gone->next;
      break;
    }
  }
  /* An imported pool's memory is the exporter's: nothing was charged. */
  if (!gone->imported) uncharge(pool_device(gone), (size_t)gone->reserved);
  ipc_pool_release(gone);
  free(gone);
}

/* --- allocations --- */

static size_t bucket_of(const void *ptr) {
  return ((uintptr_t)ptr / FAKE_ALIGNMENT) % ALLOC_BUCKETS;
}

fake_alloc *find_alloc(const void *ptr) {
  for (fake_alloc *a = alloc_table[bucket_of(ptr)]; a != NULL; a = a->next)
    if (a->ptr == ptr) return a;
  return NULL;
}

/* Host memory for an allocation and its record. The caller has charged the
 * bytes; on failure it undoes that. */
CUresult new_alloc(size_t bytes, enum alloc_kind kind, int charged_to, CUmemoryPool pool,
                   void **out) {
  *out = NULL;
  size_t rounded;
  if (__builtin_add_overflow(bytes, (size_t)FAKE_ALIGNMENT - 1, &rounded))
    return CUDA_ERROR_OUT_OF_MEMORY;
  rounded &= ~(size_t)(FAKE_ALIGNMENT - 1);
  fake_alloc *a = malloc(sizeof *a);
  void *p = a != NULL ? aligned_alloc(FAKE_ALIGNMENT, rounded) : NULL;
  if (p == NULL) {
    free(a);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *a = (fake_alloc){.ptr = p, .bytes = bytes, .kind = kind, .charged_to = charged_to, .pool = pool};
  size_t b = bucket_of(p);
  a->next = alloc_table[b];
  alloc_table[b] = a;
  live_allocations++;
  *out = p;
  return CUDA_SUCCESS;
}

CUresult new_alloc_at(void *ptr, size_t bytes, int charged_to, CUmemoryPool pool) {
  if (find_alloc(ptr) != NULL) return CUDA_ERROR_INVALID_VALUE;
  fake_alloc *a = malloc(sizeof *a);
  if (a == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  *a = (fake_alloc){.ptr = ptr,
                    .bytes = bytes,
                    .kind = ALLOC_POOL,
                    .charged_to = charged_to,
                    .pool = pool,
                    .mapped = true};
  size_t b = bucket_of(ptr);
  a->next = alloc_table[b];
  alloc_table[b] = a;
  live_allocations++;
  return CUDA_SUCCESS;
}

/* Remove the live allocation starting at `ptr` if its kind is allowed. */
CUresult free_alloc(const void *ptr, unsigned kinds) {
  for (fake_alloc **link = &alloc_table[bucket_of(ptr)]; *link != NULL; link = &(*link)->next) {
    fake_alloc *a = *link;
    if (a->ptr != ptr) continue;
    if (!(kinds & (1u << a->kind))) return CUDA_ERROR_INVALID_VALUE;
    *link = a->next;
    live_allocations--;
    if (a->kind == ALLOC_POOL) {
      struct CUmemPoolHandle_st *p = a->pool;
      p->used -= a->bytes;
      if (kinds & FREE_UNOBSERVED) p->unobserved += a->bytes;
      p->live_allocations--;
      if (p->destroyed && p->live_allocations == 0) unlink_pool(p);
    } else {
      uncharge(a->charged_to, a->bytes);
    }
    if (!a->mapped) free(a->ptr);
    free(a);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

/* Whether [ptr, ptr + bytes) lies inside one live allocation. */
bool inside_alloc(uintptr_t ptr, size_t bytes) {
  for (int b = 0; b < ALLOC_BUCKETS; b++)
    for (const fake_alloc *a = alloc_table[b]; a != NULL; a = a->next) {
      uintptr_t start = (uintptr_t)a->ptr;
      if (ptr >= start && ptr - start <= a->bytes && bytes <= a->bytes - (ptr - start)) return true;
    }
  return false;
}

fake_alloc *find_alloc_containing(uintptr_t ptr) {
  for (int b = 0; b < ALLOC_BUCKETS; b++)
    for (fake_alloc *a = alloc_table[b]; a != NULL; a = a->next) {
      uintptr_t start = (uintptr_t)a->ptr;
      if (ptr >= start && ptr - start < a->bytes) return a;
    }
  return NULL;
}
