/*
 * fakecuda.c: a fake CUDA driver over host memory, for the fake test suite.
 * What it models and what it does not is in fakecuda.h.
 *
 * Every entry point runs under one lock: enter() takes it, counts the call,
 * applies injected failures and the initialization rules; FAKE_CALL then
 * runs the body and releases it. Bodies therefore never call each other's
 * public forms. The entry points are static: only cuGetProcAddress_v2 and
 * the control API leave the library.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_api.h" /* MRI_CUDA_ENTRY_POINTS: what to implement, and which ABI */
#include "fakecuda.h"

#define FAKE_ALIGNMENT 256
#define FAKE_DEFAULT_DEVICES 4
#define FAKE_DEFAULT_TOTAL_MEMORY ((size_t)16 << 30)
#define FAKE_DEFAULT_HOST_MEMORY ((size_t)64 << 30)
#define FAKE_CONTEXT_STACK 16
#define FAKE_NUMA_NODES 1

/* ---- objects -------------------------------------------------------------- */

/* Work given to a stream: pending until it finishes. Events point at the
 * work, not the stream, so a stream can be destroyed (and its handle given
 * to the next stream created) while its work still runs, as on a GPU. */
typedef struct fake_work {
  CUcontext ctx;
  bool blocking; /* on a blocking stream: synchronizing the legacy stream finishes it */
  bool done;
  /* cuStreamWaitValue32: pending until (int32_t)(*gate - gate_value) >= 0. */
  const volatile cuuint32_t *gate;
  cuuint32_t gate_value;
  struct fake_work *before; /* earlier work on the same stream */
  struct fake_work *next;   /* every work object, freed at reset */
} fake_work;

struct CUstream_st {
  CUcontext ctx;
  unsigned flags;
  unsigned long long id; /* cuStreamGetId: never reused */
  fake_work *work;       /* the latest work given to it, or NULL */
  bool capturing;
  bool capture_invalidated; /* a call the capture does not permit was made */
  struct CUstream_st *next; /* created streams only */
};

struct CUctx_st {
  int device;
  struct CUstream_st legacy;
  struct CUstream_st per_thread;
};

struct CUevent_st {
  CUcontext ctx;
  unsigned flags;
  /* The work the event waits for; NULL when it was complete at record. */
  fake_work *work;
  struct CUevent_st *next;
};

struct CUmemPoolHandle_st {
  CUmemLocation location;
  CUmemAllocationType type;
  bool is_default;
  bool destroyed; /* destroyed with allocations outstanding */
  size_t max_size;
  cuuint64_t release_threshold;
  cuuint64_t reserved, reserved_high, used, used_high;
  int reuse_follow_event, reuse_opportunistic, reuse_internal;
  CUmemAccess_flags access[FAKE_CUDA_MAX_DEVICES];
  long live_allocations;
  struct CUmemPoolHandle_st *next; /* created pools only */
};

enum alloc_kind { ALLOC_POOL, ALLOC_DEVICE, ALLOC_HOST, ALLOC_MANAGED };

typedef struct fake_alloc {
  void *ptr;
  size_t bytes;
  enum alloc_kind kind;
  int charged_to; /* device, or -1 for the host */
  CUmemoryPool pool;
  struct fake_alloc *next;
} fake_alloc;

typedef struct fake_device {
  char name[256];
  size_t total_memory;
  size_t used;
  int attributes[CU_DEVICE_ATTRIBUTE_MAX];
  bool peer[FAKE_CUDA_MAX_DEVICES];
  struct CUctx_st primary;
  long primary_retains;
} fake_device;

/* A memory location and allocation type with a default and a current pool:
 * (device d, pinned), (device d, managed), (host, pinned|managed),
 * (host NUMA node 0, pinned|managed), (none, managed). */
typedef struct fake_location {
  struct CUmemPoolHandle_st default_pool;
  CUmemoryPool current;
} fake_location;

enum {
  LOC_DEVICE_PINNED = 0,
  LOC_DEVICE_MANAGED = FAKE_CUDA_MAX_DEVICES,
  LOC_HOST_PINNED = 2 * FAKE_CUDA_MAX_DEVICES,
  LOC_HOST_MANAGED,
  LOC_NUMA_PINNED,
  LOC_NUMA_MANAGED,
  LOC_NONE_MANAGED,
  LOC_COUNT
};

/* ---- state ---------------------------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool configured; /* defaults applied */
static bool count_set;  /* the device count was chosen by the test */
static bool initialized;
static bool deinitialized;
static int device_count;
static int driver_version;
static size_t host_total, host_used;
static fake_device devices[FAKE_CUDA_MAX_DEVICES];
static fake_location locations[LOC_COUNT];

static struct CUmemPoolHandle_st *pools;
static struct CUstream_st *streams;
/* Destroyed streams, most recent first: cuStreamCreate hands their handles
 * out again, as the real driver does. */
static struct CUstream_st *destroyed_streams;
static fake_work *works;
static unsigned long long next_stream_id;
static struct CUevent_st *events;

#define ALLOC_BUCKETS 1024
static fake_alloc *alloc_table[ALLOC_BUCKETS];
static long live_allocations;

static _Thread_local CUcontext ctx_stack[FAKE_CONTEXT_STACK];
static _Thread_local int ctx_depth;

/* ---- entry points: names, counters, failures ------------------------------ */

#define FAKE_ENTRY_ENUM_(name, version) FAKE_EP_##name,
enum fake_entry { MRI_CUDA_ENTRY_POINTS(FAKE_ENTRY_ENUM_) FAKE_EP_cuGetProcAddress, FAKE_EP_COUNT };
#undef FAKE_ENTRY_ENUM_

#define FAKE_ENTRY_NAME_(name, version) #name,
static const char *const entry_names[FAKE_EP_COUNT] = {
    MRI_CUDA_ENTRY_POINTS(FAKE_ENTRY_NAME_) "cuGetProcAddress"};
#undef FAKE_ENTRY_NAME_

typedef struct fake_failure {
  long first, count; /* calls first .. first + count - 1 fail */
  CUresult error;
} fake_failure;

static long calls[FAKE_EP_COUNT];
static fake_failure failures[FAKE_EP_COUNT];

static int entry_index(const char *name) {
  for (int i = 0; i < FAKE_EP_COUNT; i++)
    if (name != NULL && strcmp(entry_names[i], name) == 0) return i;
  return -1;
}

static int entry_index_or_abort(const char *caller, const char *name) {
  int i = entry_index(name);
  if (i < 0) {
    fprintf(stderr, "%s: \"%s\" is not an entry point of the fake CUDA driver\n", caller,
            name != NULL ? name : "(null)");
    abort();
  }
  return i;
}

/* ---- defaults ------------------------------------------------------------- */

static void pool_init(struct CUmemPoolHandle_st *p, CUmemLocation location,
                      CUmemAllocationType type, bool is_default) {
  memset(p, 0, sizeof *p);
  p->location = location;
  p->type = type;
  p->is_default = is_default;
  p->reuse_follow_event = 1;
  p->reuse_opportunistic = 1;
  p->reuse_internal = 1;
  if (location.type == CU_MEM_LOCATION_TYPE_DEVICE)
    p->access[location.id] = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
}

static void location_reset(int index) {
  CUmemLocation location = {.type = CU_MEM_LOCATION_TYPE_NONE, .id = 0};
  CUmemAllocationType type = CU_MEM_ALLOCATION_TYPE_PINNED;
  if (index < LOC_DEVICE_MANAGED) {
    location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = index};
  } else if (index < LOC_HOST_PINNED) {
    location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE,
                               .id = index - LOC_DEVICE_MANAGED};
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
  dev->attributes[CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY] = 1;
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
  for (int b = 0; b < ALLOC_BUCKETS; b++) {
    while (alloc_table[b] != NULL) {
      fake_alloc *a = alloc_table[b];
      alloc_table[b] = a->next;
      free(a->ptr);
      free(a);
    }
  }
  live_allocations = 0;
  while (pools != NULL) {
    struct CUmemPoolHandle_st *p = pools;
    pools = p->next;
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

/* Random failures (the last section): cleared with every other default;
 * decides, under the lock, whether this call of `entry` fails. */
static void random_failure_reset(void);
static bool random_failure(enum fake_entry entry, CUresult *error);

static void apply_defaults(void) {
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

static void lock_state(void) {
  pthread_mutex_lock(&lock);
  if (!configured) apply_defaults();
}

static void unlock_state(void) { pthread_mutex_unlock(&lock); }

/* When an entry point works: after cuInit, before it too, or at any time
 * (error names work even after the driver shut down). */
enum entry_rule { NEEDS_INIT, NO_INIT, ANY_TIME };

/* Take the lock, count the call, and say whether it fails before doing
 * anything: an injected failure first (a chosen call, then a random one),
 * then shutdown, then cuInit. The caller releases the lock. */
static CUresult enter(enum fake_entry entry, enum entry_rule rule) {
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

#define FAKE_CALL(name, rule, body)              \
  do {                                           \
    CUresult r_ = enter(FAKE_EP_##name, (rule)); \
    if (r_ == CUDA_SUCCESS) r_ = (body);         \
    unlock_state();                              \
    return r_;                                   \
  } while (0)

/* ---- helpers (lock held) --------------------------------------------------- */

static CUcontext current_ctx(void) { return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL; }

static bool valid_device(CUdevice d) { return d >= 0 && d < device_count; }

static bool valid_ctx(CUcontext ctx) {
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
static CUresult resolve_stream(CUstream handle, struct CUstream_st **out) {
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

static struct CUevent_st *find_event(CUevent handle) {
  for (struct CUevent_st *e = events; e != NULL; e = e->next)
    if (e == handle) return e;
  return NULL;
}

static bool work_pending(const fake_work *w) {
  for (; w != NULL; w = w->before) {
    if (w->done) return false; /* work finishes in order: what came before too */
    if (w->gate == NULL || (int32_t)(*w->gate - w->gate_value) < 0) return true;
  }
  return false;
}

static bool stream_busy(const struct CUstream_st *s) { return work_pending(s->work); }

/* Give `s` new work (pending until finished, or until `gate` opens). */
static CUresult add_work(struct CUstream_st *s, const volatile cuuint32_t *gate,
                         cuuint32_t gate_value) {
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

static bool event_pending(const struct CUevent_st *e) { return work_pending(e->work); }

/* The IDs of the default streams: the legacy stream's per context, the
 * per-thread stream's per context and thread. */
static unsigned long long legacy_stream_id(CUcontext ctx) {
  return 1 + (unsigned long long)ctx->device;
}

static _Thread_local unsigned long long tls_per_thread_ids[FAKE_CUDA_MAX_DEVICES];

static unsigned long long per_thread_stream_id(CUcontext ctx) {
  unsigned long long *id = &tls_per_thread_ids[ctx->device];
  if (*id == 0) *id = ++next_stream_id;
  return *id;
}

static void release_pool_memory(struct CUmemPoolHandle_st *p, cuuint64_t keep);

/* Synchronizing lets pools hand memory above their threshold back. */
static void release_all_pools(void) {
  for (int i = 0; i < LOC_COUNT; i++)
    release_pool_memory(&locations[i].default_pool, locations[i].default_pool.release_threshold);
  for (struct CUmemPoolHandle_st *p = pools; p != NULL; p = p->next)
    release_pool_memory(p, p->release_threshold);
}

/* Waiting on a stream finishes its work. The legacy stream also waits for
 * every blocking stream of its context. */
static void finish_stream(struct CUstream_st *s) {
  if (s->work != NULL) s->work->done = true;
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
static CUresult find_location(const CUmemLocation *location, CUmemAllocationType type,
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
static struct CUmemPoolHandle_st *find_pool(CUmemoryPool handle) {
  if (handle == NULL) return NULL;
  if (is_default_pool(handle)) return handle;
  for (struct CUmemPoolHandle_st *p = pools; p != NULL; p = p->next)
    if (p == handle && !p->destroyed) return p;
  return NULL;
}

/* Device a pool's memory is charged to; -1: the host. */
static int pool_device(const struct CUmemPoolHandle_st *p) {
  return p->location.type == CU_MEM_LOCATION_TYPE_DEVICE ? p->location.id : -1;
}

static CUresult charge(int device, size_t bytes) {
  size_t *used = device < 0 ? &host_used : &devices[device].used;
  size_t total = device < 0 ? host_total : devices[device].total_memory;
  if (*used > total || bytes > total - *used) return CUDA_ERROR_OUT_OF_MEMORY;
  *used += bytes;
  return CUDA_SUCCESS;
}

static void uncharge(int device, size_t bytes) {
  size_t *used = device < 0 ? &host_used : &devices[device].used;
  *used -= bytes;
}

static void release_pool_memory(struct CUmemPoolHandle_st *p, cuuint64_t keep) {
  cuuint64_t target = keep < p->reserved ? keep : p->reserved;
  if (target < p->used) target = p->used;
  if (target < p->reserved) {
    uncharge(pool_device(p), (size_t)(p->reserved - target));
    p->reserved = target;
  }
}

static void unlink_pool(struct CUmemPoolHandle_st *gone) {
  for (struct CUmemPoolHandle_st **link = &pools; *link != NULL; link = &(*link)->next) {
    if (*link == gone) {
      *link = gone->next;
      break;
    }
  }
  uncharge(pool_device(gone), (size_t)gone->reserved);
  free(gone);
}

/* --- allocations --- */

static size_t bucket_of(const void *ptr) {
  return ((uintptr_t)ptr / FAKE_ALIGNMENT) % ALLOC_BUCKETS;
}

static fake_alloc *find_alloc(const void *ptr) {
  for (fake_alloc *a = alloc_table[bucket_of(ptr)]; a != NULL; a = a->next)
    if (a->ptr == ptr) return a;
  return NULL;
}

/* Host memory for an allocation and its record. The caller has charged the
 * bytes; on failure it undoes that. */
static CUresult new_alloc(size_t bytes, enum alloc_kind kind, int charged_to, CUmemoryPool pool,
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

/* Remove the live allocation starting at `ptr` if its kind is allowed. */
static CUresult free_alloc(const void *ptr, unsigned kinds) {
  for (fake_alloc **link = &alloc_table[bucket_of(ptr)]; *link != NULL; link = &(*link)->next) {
    fake_alloc *a = *link;
    if (a->ptr != ptr) continue;
    if (!(kinds & (1u << a->kind))) return CUDA_ERROR_INVALID_VALUE;
    *link = a->next;
    live_allocations--;
    if (a->kind == ALLOC_POOL) {
      struct CUmemPoolHandle_st *p = a->pool;
      p->used -= a->bytes;
      p->live_allocations--;
      if (p->destroyed && p->live_allocations == 0) unlink_pool(p);
    } else {
      uncharge(a->charged_to, a->bytes);
    }
    free(a->ptr);
    free(a);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

#define KIND_BIT(k) (1u << (k))

/* Whether [ptr, ptr + bytes) lies inside one live allocation. */
static bool inside_alloc(uintptr_t ptr, size_t bytes) {
  for (int b = 0; b < ALLOC_BUCKETS; b++)
    for (const fake_alloc *a = alloc_table[b]; a != NULL; a = a->next) {
      uintptr_t start = (uintptr_t)a->ptr;
      if (ptr >= start && ptr - start <= a->bytes && bytes <= a->bytes - (ptr - start))
        return true;
    }
  return false;
}

/* ---- initialization, version, errors -------------------------------------- */

static CUresult do_init(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (device_count == 0) return CUDA_ERROR_NO_DEVICE;
  initialized = true;
  return CUDA_SUCCESS;
}

static CUresult fake_cuInit(unsigned int flags) { FAKE_CALL(cuInit, NO_INIT, do_init(flags)); }

static CUresult do_driver_get_version(int *version) {
  if (version == NULL) return CUDA_ERROR_INVALID_VALUE;
  *version = driver_version;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDriverGetVersion(int *version) {
  FAKE_CALL(cuDriverGetVersion, NO_INIT, do_driver_get_version(version));
}

#define FAKE_ERRORS(X)                                                                     \
  X(CUDA_SUCCESS, "no error")                                                              \
  X(CUDA_ERROR_INVALID_VALUE, "invalid argument")                                          \
  X(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")                                             \
  X(CUDA_ERROR_NOT_INITIALIZED, "initialization error")                                    \
  X(CUDA_ERROR_DEINITIALIZED, "driver shutting down")                                      \
  X(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library")                              \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "the call requires a newer driver")             \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA-capable device(s) is/are busy or unavailable")    \
  X(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected")                            \
  X(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                                   \
  X(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid")                            \
  X(CUDA_ERROR_INVALID_CONTEXT, "invalid device context")                                  \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error encountered")                   \
  X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access is not supported between these two devices") \
  X(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed")                                \
  X(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                                  \
  X(CUDA_ERROR_ILLEGAL_STATE, "the operation is not permitted in the current state")       \
  X(CUDA_ERROR_NOT_FOUND, "named symbol not found")                                        \
  X(CUDA_ERROR_NOT_READY, "device not ready")                                              \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")                \
  X(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure")                                \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled")                \
  X(CUDA_ERROR_NOT_PERMITTED, "operation not permitted")                                   \
  X(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")                                   \
  X(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized")                             \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "system has unsupported display driver / cuda driver combination") \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing") \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "operation failed due to a previous error during capture") \
  X(CUDA_ERROR_CAPTURED_EVENT, "operation not permitted on an event last recorded in a capturing stream") \
  X(CUDA_ERROR_TIMEOUT, "wait operation timed out")                                        \
  X(CUDA_ERROR_UNKNOWN, "unknown error")

static const struct {
  CUresult code;
  const char *name, *description;
} error_table[] = {
#define FAKE_ERROR_ROW_(code, description) {code, #code, description},
    FAKE_ERRORS(FAKE_ERROR_ROW_)
#undef FAKE_ERROR_ROW_
};

static CUresult describe_error(CUresult error, const char **out, bool name) {
  if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
  *out = NULL;
  for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++) {
    if (error_table[i].code == error) {
      *out = name ? error_table[i].name : error_table[i].description;
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_INVALID_VALUE;
}

/* Error names work before cuInit and after shutdown, as in the driver. */
static CUresult fake_cuGetErrorName(CUresult error, const char **name) {
  FAKE_CALL(cuGetErrorName, ANY_TIME, describe_error(error, name, true));
}

static CUresult fake_cuGetErrorString(CUresult error, const char **text) {
  FAKE_CALL(cuGetErrorString, ANY_TIME, describe_error(error, text, false));
}

/* ---- devices -------------------------------------------------------------- */

static CUresult do_device_get_count(int *count) {
  if (count == NULL) return CUDA_ERROR_INVALID_VALUE;
  *count = device_count;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetCount(int *count) {
  FAKE_CALL(cuDeviceGetCount, NEEDS_INIT, do_device_get_count(count));
}

static CUresult do_device_get(CUdevice *device, int ordinal) {
  if (device == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGet(CUdevice *device, int ordinal) {
  FAKE_CALL(cuDeviceGet, NEEDS_INIT, do_device_get(device, ordinal));
}

static CUresult do_device_get_name(char *name, int len, CUdevice dev) {
  if (name == NULL || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  snprintf(name, (size_t)len, "%s", devices[dev].name);
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetName(char *name, int len, CUdevice dev) {
  FAKE_CALL(cuDeviceGetName, NEEDS_INIT, do_device_get_name(name, len, dev));
}

static CUresult do_device_total_mem(size_t *bytes, CUdevice dev) {
  if (bytes == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = devices[dev].total_memory;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  FAKE_CALL(cuDeviceTotalMem, NEEDS_INIT, do_device_total_mem(bytes, dev));
}

static CUresult do_device_get_attribute(int *value, CUdevice_attribute attribute, CUdevice dev) {
  if (value == NULL || (int)attribute <= 0 || attribute >= CU_DEVICE_ATTRIBUTE_MAX)
    return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *value = devices[dev].attributes[attribute];
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                                          CUdevice dev) {
  FAKE_CALL(cuDeviceGetAttribute, NEEDS_INIT, do_device_get_attribute(value, attribute, dev));
}

static CUresult do_device_can_access_peer(int *can, CUdevice dev, CUdevice peer) {
  if (can == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev) || !valid_device(peer)) return CUDA_ERROR_INVALID_DEVICE;
  *can = dev != peer && devices[dev].peer[peer];
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
  FAKE_CALL(cuDeviceCanAccessPeer, NEEDS_INIT, do_device_can_access_peer(can, dev, peer));
}

/* ---- contexts ------------------------------------------------------------- */

static CUresult do_primary_retain(CUcontext *ctx, CUdevice dev) {
  if (ctx == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  devices[dev].primary_retains++;
  *ctx = &devices[dev].primary;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  FAKE_CALL(cuDevicePrimaryCtxRetain, NEEDS_INIT, do_primary_retain(ctx, dev));
}

static CUresult do_primary_release(CUdevice dev) {
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  if (devices[dev].primary_retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
  devices[dev].primary_retains--;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRelease(CUdevice dev) {
  FAKE_CALL(cuDevicePrimaryCtxRelease, NEEDS_INIT, do_primary_release(dev));
}

static CUresult do_ctx_get_current(CUcontext *ctx) {
  if (ctx == NULL) return CUDA_ERROR_INVALID_VALUE;
  *ctx = current_ctx();
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetCurrent(CUcontext *ctx) {
  FAKE_CALL(cuCtxGetCurrent, NEEDS_INIT, do_ctx_get_current(ctx));
}

/* As the driver documents: replace the top of the stack; NULL pops it. */
static CUresult do_ctx_set_current(CUcontext ctx) {
  if (ctx == NULL) {
    if (ctx_depth > 0) ctx_depth--;
    return CUDA_SUCCESS;
  }
  if (!valid_ctx(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx_depth == 0) ctx_depth = 1;
  ctx_stack[ctx_depth - 1] = ctx;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxSetCurrent(CUcontext ctx) {
  FAKE_CALL(cuCtxSetCurrent, NEEDS_INIT, do_ctx_set_current(ctx));
}

static CUresult do_ctx_push(CUcontext ctx) {
  if (ctx == NULL || !valid_ctx(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx_depth == FAKE_CONTEXT_STACK) return CUDA_ERROR_OUT_OF_MEMORY;
  ctx_stack[ctx_depth++] = ctx;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxPushCurrent(CUcontext ctx) {
  FAKE_CALL(cuCtxPushCurrent, NEEDS_INIT, do_ctx_push(ctx));
}

static CUresult do_ctx_pop(CUcontext *ctx) {
  if (ctx_depth == 0) return CUDA_ERROR_INVALID_CONTEXT;
  CUcontext top = ctx_stack[--ctx_depth];
  if (ctx != NULL) *ctx = top;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxPopCurrent(CUcontext *ctx) {
  FAKE_CALL(cuCtxPopCurrent, NEEDS_INIT, do_ctx_pop(ctx));
}

/* The context a CUDA 13.0 call names: NULL means the current one. */
static CUresult resolve_ctx(CUcontext ctx, CUcontext *out) {
  *out = ctx != NULL ? ctx : current_ctx();
  if (*out == NULL || !valid_ctx(*out)) return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

static CUresult do_ctx_get_device(CUdevice *device, CUcontext ctx) {
  if (device == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = resolve_ctx(ctx, &ctx);
  if (r != CUDA_SUCCESS) return r;
  *device = ctx->device;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetDevice(CUdevice *device, CUcontext ctx) {
  FAKE_CALL(cuCtxGetDevice, NEEDS_INIT, do_ctx_get_device(device, ctx));
}

static CUresult do_ctx_synchronize(CUcontext ctx) {
  CUresult r = resolve_ctx(ctx, &ctx);
  if (r != CUDA_SUCCESS) return r;
  for (fake_work *w = works; w != NULL; w = w->next)
    if (w->ctx == ctx) w->done = true;
  release_all_pools();
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxSynchronize(CUcontext ctx) {
  FAKE_CALL(cuCtxSynchronize, NEEDS_INIT, do_ctx_synchronize(ctx));
}

/* ---- memory: pools ---------------------------------------------------------- */

static CUresult do_mem_get_info(size_t *free_bytes, size_t *total) {
  if (free_bytes == NULL || total == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  const fake_device *dev = &devices[ctx->device];
  *total = dev->total_memory;
  *free_bytes = dev->used < dev->total_memory ? dev->total_memory - dev->used : 0;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemGetInfo(size_t *free_bytes, size_t *total) {
  FAKE_CALL(cuMemGetInfo, NEEDS_INIT, do_mem_get_info(free_bytes, total));
}

static CUresult do_get_default_pool(CUmemoryPool *pool, CUmemLocation *location,
                                    CUmemAllocationType type) {
  if (pool == NULL) return CUDA_ERROR_INVALID_VALUE;
  fake_location *loc;
  CUresult r = find_location(location, type, &loc);
  if (r != CUDA_SUCCESS) return r;
  *pool = &loc->default_pool;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *location,
                                            CUmemAllocationType type) {
  FAKE_CALL(cuMemGetDefaultMemPool, NEEDS_INIT, do_get_default_pool(pool, location, type));
}

static CUresult do_get_mem_pool(CUmemoryPool *pool, CUmemLocation *location,
                                CUmemAllocationType type) {
  if (pool == NULL) return CUDA_ERROR_INVALID_VALUE;
  fake_location *loc;
  CUresult r = find_location(location, type, &loc);
  if (r != CUDA_SUCCESS) return r;
  *pool = loc->current;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location,
                                     CUmemAllocationType type) {
  FAKE_CALL(cuMemGetMemPool, NEEDS_INIT, do_get_mem_pool(pool, location, type));
}

static bool same_location(const CUmemLocation *a, const CUmemLocation *b) {
  if (a->type != b->type) return false;
  return a->type == CU_MEM_LOCATION_TYPE_HOST || a->type == CU_MEM_LOCATION_TYPE_NONE ||
         a->id == b->id;
}

static CUresult do_set_mem_pool(CUmemLocation *location, CUmemAllocationType type,
                                CUmemoryPool pool) {
  fake_location *loc;
  CUresult r = find_location(location, type, &loc);
  if (r != CUDA_SUCCESS) return r;
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || p->type != type || !same_location(&p->location, location))
    return CUDA_ERROR_INVALID_VALUE;
  loc->current = p;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type,
                                     CUmemoryPool pool) {
  FAKE_CALL(cuMemSetMemPool, NEEDS_INIT, do_set_mem_pool(location, type, pool));
}

static CUresult do_pool_create(CUmemoryPool *pool, const CUmemPoolProps *props) {
  if (pool == NULL || props == NULL) return CUDA_ERROR_INVALID_VALUE;
  fake_location *loc;
  CUresult r = find_location(&props->location, props->allocType, &loc);
  if (r != CUDA_SUCCESS) return r;
  if (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE &&
      props->handleTypes != CU_MEM_HANDLE_TYPE_NONE)
    return CUDA_ERROR_INVALID_VALUE;
  struct CUmemPoolHandle_st *p = malloc(sizeof *p);
  if (p == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  pool_init(p, props->location, props->allocType, false);
  p->max_size = props->maxSize;
  p->next = pools;
  pools = p;
  *pool = p;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
  FAKE_CALL(cuMemPoolCreate, NEEDS_INIT, do_pool_create(pool, props));
}

static CUresult do_pool_destroy(CUmemoryPool pool) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || p->is_default) return CUDA_ERROR_INVALID_VALUE;
  /* Destroying a current pool makes the default current again. */
  for (int i = 0; i < LOC_COUNT; i++)
    if (locations[i].current == p) locations[i].current = &locations[i].default_pool;
  if (p->live_allocations > 0)
    p->destroyed = true; /* goes when its last allocation is freed */
  else
    unlink_pool(p);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemPoolDestroy(CUmemoryPool pool) {
  FAKE_CALL(cuMemPoolDestroy, NEEDS_INIT, do_pool_destroy(pool));
}

static CUresult do_pool_set_attribute(CUmemoryPool pool, CUmemPool_attribute attribute,
                                      void *value) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || value == NULL) return CUDA_ERROR_INVALID_VALUE;
  cuuint64_t v64;
  switch (attribute) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    p->reuse_follow_event = *(int *)value;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    p->reuse_opportunistic = *(int *)value;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
    p->reuse_internal = *(int *)value;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
    memcpy(&p->release_threshold, value, sizeof p->release_threshold);
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: /* may only be reset, with 0 */
    memcpy(&v64, value, sizeof v64);
    if (v64 != 0) return CUDA_ERROR_INVALID_VALUE;
    p->reserved_high = p->reserved;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
    memcpy(&v64, value, sizeof v64);
    if (v64 != 0) return CUDA_ERROR_INVALID_VALUE;
    p->used_high = p->used;
    return CUDA_SUCCESS;
  default: /* the current values are read-only */
    return CUDA_ERROR_INVALID_VALUE;
  }
}

static CUresult fake_cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attribute,
                                           void *value) {
  FAKE_CALL(cuMemPoolSetAttribute, NEEDS_INIT, do_pool_set_attribute(pool, attribute, value));
}

static CUresult do_pool_get_attribute(CUmemoryPool pool, CUmemPool_attribute attribute,
                                      void *value) {
  const struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || value == NULL) return CUDA_ERROR_INVALID_VALUE;
  const cuuint64_t *v64 = NULL;
  switch (attribute) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    *(int *)value = p->reuse_follow_event;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    *(int *)value = p->reuse_opportunistic;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
    *(int *)value = p->reuse_internal;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
    v64 = &p->release_threshold;
    break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
    v64 = &p->reserved;
    break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    v64 = &p->reserved_high;
    break;
  case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
    v64 = &p->used;
    break;
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
    v64 = &p->used_high;
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  memcpy(value, v64, sizeof *v64);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attribute,
                                           void *value) {
  FAKE_CALL(cuMemPoolGetAttribute, NEEDS_INIT, do_pool_get_attribute(pool, attribute, value));
}

/* All descriptors are checked before any is applied: a failure changes
 * nothing. The owner of a device pool always keeps read-write access; a
 * peer needs cuDeviceCanAccessPeer. */
static CUresult do_pool_set_access(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || (map == NULL && count > 0)) return CUDA_ERROR_INVALID_VALUE;
  int owner = pool_device(p);
  for (size_t i = 0; i < count; i++) {
    const CUmemAccessDesc *d = &map[i];
    if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(d->location.id)) return CUDA_ERROR_INVALID_DEVICE;
    if (d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && d->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return CUDA_ERROR_INVALID_VALUE;
    if (owner >= 0 && d->location.id == owner) {
      if (d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) return CUDA_ERROR_INVALID_VALUE;
    } else if (owner >= 0 && d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
               !devices[d->location.id].peer[owner]) {
      return CUDA_ERROR_INVALID_DEVICE;
    }
  }
  for (size_t i = 0; i < count; i++) p->access[map[i].location.id] = map[i].flags;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map,
                                        size_t count) {
  FAKE_CALL(cuMemPoolSetAccess, NEEDS_INIT, do_pool_set_access(pool, map, count));
}

static CUresult do_pool_trim_to(CUmemoryPool pool, size_t keep) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL) return CUDA_ERROR_INVALID_VALUE;
  release_pool_memory(p, keep);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemPoolTrimTo(CUmemoryPool pool, size_t keep) {
  FAKE_CALL(cuMemPoolTrimTo, NEEDS_INIT, do_pool_trim_to(pool, keep));
}

/* Memory comes from the pool's idle reservation first; the rest is newly
 * reserved, within the pool's maxSize and its location's capacity. */
static CUresult do_alloc_from_pool(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                   CUstream stream) {
  if (dptr == NULL || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL) return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  cuuint64_t idle = p->reserved - p->used;
  cuuint64_t grow = bytes > idle ? bytes - idle : 0;
  if (grow > 0) {
    if (p->max_size != 0 && (grow > p->max_size || p->reserved > p->max_size - grow))
      return CUDA_ERROR_OUT_OF_MEMORY;
    r = charge(pool_device(p), (size_t)grow);
    if (r != CUDA_SUCCESS) return r;
  }
  void *ptr;
  r = new_alloc(bytes, ALLOC_POOL, pool_device(p), p, &ptr);
  if (r != CUDA_SUCCESS) {
    uncharge(pool_device(p), (size_t)grow);
    return r;
  }
  p->reserved += grow;
  if (p->reserved > p->reserved_high) p->reserved_high = p->reserved;
  p->used += bytes;
  if (p->used > p->used_high) p->used_high = p->used;
  p->live_allocations++;
  *dptr = (CUdeviceptr)(uintptr_t)ptr;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                             CUstream stream) {
  FAKE_CALL(cuMemAllocFromPoolAsync, NEEDS_INIT, do_alloc_from_pool(dptr, bytes, pool, stream));
}

static CUresult do_free_async(CUdeviceptr dptr, CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (dptr == 0) return CUDA_SUCCESS;
  return free_alloc((void *)(uintptr_t)dptr, KIND_BIT(ALLOC_POOL));
}

static CUresult fake_cuMemFreeAsync(CUdeviceptr dptr, CUstream stream) {
  FAKE_CALL(cuMemFreeAsync, NEEDS_INIT, do_free_async(dptr, stream));
}

/* ---- memory: synchronous ------------------------------------------------------ */

static CUresult alloc_charged(size_t bytes, enum alloc_kind kind, int charged_to, void **out) {
  CUresult r = charge(charged_to, bytes);
  if (r != CUDA_SUCCESS) return r;
  r = new_alloc(bytes, kind, charged_to, NULL, out);
  if (r != CUDA_SUCCESS) uncharge(charged_to, bytes);
  return r;
}

static CUresult do_mem_alloc(CUdeviceptr *dptr, size_t bytes) {
  if (dptr == NULL || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  void *p;
  CUresult r = alloc_charged(bytes, ALLOC_DEVICE, ctx->device, &p);
  if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)(uintptr_t)p;
  return r;
}

static CUresult fake_cuMemAlloc(CUdeviceptr *dptr, size_t bytes) {
  FAKE_CALL(cuMemAlloc, NEEDS_INIT, do_mem_alloc(dptr, bytes));
}

/* cuMemFree also takes pool and managed memory, as the driver does. */
static CUresult do_mem_free(CUdeviceptr dptr) {
  if (current_ctx() == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  if (dptr == 0) return CUDA_SUCCESS;
  return free_alloc((void *)(uintptr_t)dptr,
                    KIND_BIT(ALLOC_DEVICE) | KIND_BIT(ALLOC_MANAGED) | KIND_BIT(ALLOC_POOL));
}

static CUresult fake_cuMemFree(CUdeviceptr dptr) { FAKE_CALL(cuMemFree, NEEDS_INIT, do_mem_free(dptr)); }

static CUresult do_host_alloc(void **pp, size_t bytes, unsigned int flags) {
  const unsigned known =
      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
  if (pp == NULL || bytes == 0 || (flags & ~known) != 0) return CUDA_ERROR_INVALID_VALUE;
  if (current_ctx() == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  return alloc_charged(bytes, ALLOC_HOST, -1, pp);
}

static CUresult fake_cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags) {
  FAKE_CALL(cuMemHostAlloc, NEEDS_INIT, do_host_alloc(pp, bytes, flags));
}

static CUresult do_free_host(void *p) {
  if (current_ctx() == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  return free_alloc(p, KIND_BIT(ALLOC_HOST));
}

static CUresult fake_cuMemFreeHost(void *p) { FAKE_CALL(cuMemFreeHost, NEEDS_INIT, do_free_host(p)); }

static CUresult do_alloc_managed(CUdeviceptr *dptr, size_t bytes, unsigned int flags) {
  if (dptr == NULL || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  if (!devices[ctx->device].attributes[CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY])
    return CUDA_ERROR_NOT_SUPPORTED;
  void *p;
  CUresult r = alloc_charged(bytes, ALLOC_MANAGED, -1, &p);
  if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)(uintptr_t)p;
  return r;
}

static CUresult fake_cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags) {
  FAKE_CALL(cuMemAllocManaged, NEEDS_INIT, do_alloc_managed(dptr, bytes, flags));
}

static CUresult do_memset_d8(CUdeviceptr dst, unsigned char value, size_t n, CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (n == 0) return CUDA_SUCCESS;
  if (!inside_alloc((uintptr_t)dst, n)) return CUDA_ERROR_INVALID_VALUE;
  memset((void *)(uintptr_t)dst, value, n);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n,
                                     CUstream stream) {
  FAKE_CALL(cuMemsetD8Async, NEEDS_INIT, do_memset_d8(dst, value, n, stream));
}

/* Either side may be ordinary host memory (unified addressing). */
static CUresult do_memcpy(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (n == 0) return CUDA_SUCCESS;
  if (dst == 0 || src == 0) return CUDA_ERROR_INVALID_VALUE;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream) {
  FAKE_CALL(cuMemcpyAsync, NEEDS_INIT, do_memcpy(dst, src, n, stream));
}

/* ---- streams ------------------------------------------------------------------ */

static CUresult do_stream_create(CUstream *stream, unsigned int flags) {
  if (stream == NULL || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  struct CUstream_st *s = destroyed_streams;
  if (s != NULL)
    destroyed_streams = s->next;
  else if ((s = malloc(sizeof *s)) == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  s->flags = flags;
  s->id = ++next_stream_id;
  s->next = streams;
  streams = s;
  *stream = s;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamCreate(CUstream *stream, unsigned int flags) {
  FAKE_CALL(cuStreamCreate, NEEDS_INIT, do_stream_create(stream, flags));
}

static CUresult do_stream_destroy(CUstream stream) {
  for (struct CUstream_st **link = &streams; *link != NULL; link = &(*link)->next) {
    struct CUstream_st *s = *link;
    if (s != stream) continue;
    *link = s->next;
    /* Its work runs on (events keep waiting for it); its handle is the next
     * stream's. */
    s->next = destroyed_streams;
    destroyed_streams = s;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_HANDLE;
}

static CUresult fake_cuStreamDestroy(CUstream stream) {
  FAKE_CALL(cuStreamDestroy, NEEDS_INIT, do_stream_destroy(stream));
}

static CUresult do_stream_synchronize(CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (s->capturing) {
    /* As the real driver: refused, and the capture is invalidated. */
    s->capture_invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  finish_stream(s);
  release_all_pools();
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamSynchronize(CUstream stream) {
  FAKE_CALL(cuStreamSynchronize, NEEDS_INIT, do_stream_synchronize(stream));
}

static CUresult do_stream_query(CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  return stream_busy(s) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

static CUresult fake_cuStreamQuery(CUstream stream) {
  FAKE_CALL(cuStreamQuery, NEEDS_INIT, do_stream_query(stream));
}

static CUresult do_stream_is_capturing(CUstream stream, CUstreamCaptureStatus *status) {
  if (status == NULL) return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  *status = s->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status) {
  FAKE_CALL(cuStreamIsCapturing, NEEDS_INIT, do_stream_is_capturing(stream, status));
}

static CUresult do_stream_get_id(CUstream stream, unsigned long long *id) {
  if (id == NULL) return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (s->capturing) {
    /* As the real driver: refused, and the capture is invalidated. */
    s->capture_invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  *id = s == &s->ctx->legacy       ? legacy_stream_id(s->ctx)
        : s == &s->ctx->per_thread ? per_thread_stream_id(s->ctx)
                                   : s->id;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamGetId(CUstream stream, unsigned long long *id) {
  FAKE_CALL(cuStreamGetId, NEEDS_INIT, do_stream_get_id(stream, id));
}

/* Only CU_STREAM_WAIT_VALUE_GEQ is modelled: the stream's later work waits
 * until the 32-bit word at `addr` (host memory here) reaches `value`. */
static CUresult do_stream_wait_value32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                       unsigned int flags) {
  if (addr == 0 || addr % 4 != 0) return CUDA_ERROR_INVALID_VALUE;
  if (flags != CU_STREAM_WAIT_VALUE_GEQ) return CUDA_ERROR_NOT_SUPPORTED;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  return add_work(s, (const volatile cuuint32_t *)(uintptr_t)addr, value);
}

static CUresult fake_cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                         unsigned int flags) {
  FAKE_CALL(cuStreamWaitValue32, NEEDS_INIT, do_stream_wait_value32(stream, addr, value, flags));
}

static CUresult do_stream_wait_event(CUstream stream, CUevent event, unsigned int flags) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (find_event(event) == NULL) return CUDA_ERROR_INVALID_HANDLE;
  if (flags != CU_EVENT_WAIT_DEFAULT && flags != CU_EVENT_WAIT_EXTERNAL)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  FAKE_CALL(cuStreamWaitEvent, NEEDS_INIT, do_stream_wait_event(stream, event, flags));
}

static CUresult do_begin_capture(CUstream stream, CUstreamCaptureMode mode) {
  if (stream == NULL || stream == CU_STREAM_LEGACY) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
      mode != CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  s->capturing = true;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode) {
  FAKE_CALL(cuStreamBeginCapture, NEEDS_INIT, do_begin_capture(stream, mode));
}

/* Graphs are not modelled: a capture ends with a NULL graph. */
static CUresult do_end_capture(CUstream stream, CUgraph *graph) {
  if (graph == NULL) return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (!s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  s->capturing = false;
  *graph = NULL;
  if (s->capture_invalidated) {
    s->capture_invalidated = false;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  FAKE_CALL(cuStreamEndCapture, NEEDS_INIT, do_end_capture(stream, graph));
}

/* ---- not modelled: graphs, modules, kernels ----------------------------------- */

static CUresult fake_cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                                 unsigned long long flags) {
  FAKE_CALL(cuGraphInstantiateWithFlags, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult fake_cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  FAKE_CALL(cuGraphLaunch, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult fake_cuGraphExecDestroy(CUgraphExec exec) {
  FAKE_CALL(cuGraphExecDestroy, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult fake_cuGraphDestroy(CUgraph graph) {
  FAKE_CALL(cuGraphDestroy, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult fake_cuModuleLoadData(CUmodule *module, const void *image) {
  FAKE_CALL(cuModuleLoadData, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult fake_cuModuleUnload(CUmodule module) {
  FAKE_CALL(cuModuleUnload, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult fake_cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  FAKE_CALL(cuModuleGetFunction, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult fake_cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y,
                                    unsigned int grid_z, unsigned int block_x,
                                    unsigned int block_y, unsigned int block_z,
                                    unsigned int shared_bytes, CUstream stream, void **params,
                                    void **extra) {
  FAKE_CALL(cuLaunchKernel, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

/* ---- events --------------------------------------------------------------------- */

static CUresult do_event_create(CUevent *event, unsigned int flags) {
  const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
  if (event == NULL || (flags & ~known) != 0) return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  struct CUevent_st *e = calloc(1, sizeof *e);
  if (e == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  e->ctx = ctx;
  e->flags = flags;
  e->next = events;
  events = e;
  *event = e;
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventCreate(CUevent *event, unsigned int flags) {
  FAKE_CALL(cuEventCreate, NEEDS_INIT, do_event_create(event, flags));
}

static CUresult do_event_record(CUevent event, CUstream stream) {
  struct CUevent_st *e = find_event(event);
  if (e == NULL) return CUDA_ERROR_INVALID_HANDLE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  e->work = stream_busy(s) ? s->work : NULL;
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventRecord(CUevent event, CUstream stream) {
  FAKE_CALL(cuEventRecord, NEEDS_INIT, do_event_record(event, stream));
}

static CUresult do_event_query(CUevent event) {
  struct CUevent_st *e = find_event(event);
  if (e == NULL) return CUDA_ERROR_INVALID_HANDLE;
  return event_pending(e) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

static CUresult fake_cuEventQuery(CUevent event) {
  FAKE_CALL(cuEventQuery, NEEDS_INIT, do_event_query(event));
}

static CUresult do_event_synchronize(CUevent event) {
  struct CUevent_st *e = find_event(event);
  if (e == NULL) return CUDA_ERROR_INVALID_HANDLE;
  if (event_pending(e)) e->work->done = true; /* the wait lets the work finish */
  e->work = NULL;
  release_all_pools();
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventSynchronize(CUevent event) {
  FAKE_CALL(cuEventSynchronize, NEEDS_INIT, do_event_synchronize(event));
}

static CUresult do_event_destroy(CUevent event) {
  for (struct CUevent_st **link = &events; *link != NULL; link = &(*link)->next) {
    if (*link != event) continue;
    struct CUevent_st *e = *link;
    *link = e->next;
    free(e);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_HANDLE;
}

static CUresult fake_cuEventDestroy(CUevent event) {
  FAKE_CALL(cuEventDestroy, NEEDS_INIT, do_event_destroy(event));
}

/* ---- cuGetProcAddress ------------------------------------------------------------ */

/* Each fake has exactly the ABI the loader asks for: the type cudaTypedefs.h
 * gives that entry point at that version (PFN_<name>_v<version>). */
#define FAKE_CHECK_SIGNATURE_(name, version)                                           \
  _Static_assert(                                                                      \
      __builtin_types_compatible_p(PFN_##name##_v##version, __typeof__(&fake_##name)), \
      "fake_" #name " does not have the type PFN_" #name "_v" #version);
MRI_CUDA_ENTRY_POINTS(FAKE_CHECK_SIGNATURE_)
#undef FAKE_CHECK_SIGNATURE_

typedef void (*fake_fn)(void);

/* Each entry point in the one ABI the fake implements, and the CUDA version
 * that ABI appeared in. */
static const struct {
  const char *name;
  int version;
  fake_fn fn;
} proc_table[] = {
#define FAKE_PROC_ROW_(name, version) {#name, version, (fake_fn)fake_##name},
    MRI_CUDA_ENTRY_POINTS(FAKE_PROC_ROW_)
#undef FAKE_PROC_ROW_
};

static CUresult do_get_proc_address(const char *symbol, void **pfn, int cuda_version,
                                    cuuint64_t flags, CUdriverProcAddressQueryResult *status) {
  if (symbol == NULL || pfn == NULL) return CUDA_ERROR_INVALID_VALUE;
  const cuuint64_t known = CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  if ((flags & ~known) != 0) return CUDA_ERROR_INVALID_VALUE;
  *pfn = NULL;
  for (size_t i = 0; i < sizeof proc_table / sizeof proc_table[0]; i++) {
    if (strcmp(proc_table[i].name, symbol) != 0) continue;
    /* The driver hands out the newest ABI at or below cuda_version; the fake
     * has only one, so an older request finds nothing. */
    if (cuda_version < proc_table[i].version) {
      if (status != NULL) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
      return CUDA_ERROR_NOT_FOUND;
    }
    /* dlsym-style: a function pointer handed out as an object pointer. */
    memcpy(pfn, &proc_table[i].fn, sizeof proc_table[i].fn);
    if (status != NULL) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  if (status != NULL) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

FAKE_CUDA_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version,
                                           cuuint64_t flags,
                                           CUdriverProcAddressQueryResult *status) {
  FAKE_CALL(cuGetProcAddress, NO_INIT,
            do_get_proc_address(symbol, pfn, cuda_version, flags, status));
}

/* ---- control API ------------------------------------------------------------------ */

CUresult fake_cuda_set_device_count(int count) {
  lock_state();
  CUresult r = CUDA_SUCCESS;
  if (initialized)
    r = CUDA_ERROR_ILLEGAL_STATE;
  else if (count < 0 || count > FAKE_CUDA_MAX_DEVICES)
    r = CUDA_ERROR_INVALID_VALUE;
  else {
    device_count = count;
    count_set = true;
  }
  unlock_state();
  return r;
}

int fake_cuda_device_count(void) {
  lock_state();
  int n = device_count;
  unlock_state();
  return n;
}

CUresult fake_cuda_set_device_name(int device, const char *name) {
  lock_state();
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (valid_device(device) && name != NULL) {
    snprintf(devices[device].name, sizeof devices[device].name, "%s", name);
    r = CUDA_SUCCESS;
  }
  unlock_state();
  return r;
}

CUresult fake_cuda_set_total_memory(int device, size_t bytes) {
  lock_state();
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (valid_device(device)) {
    devices[device].total_memory = bytes;
    r = CUDA_SUCCESS;
  }
  unlock_state();
  return r;
}

CUresult fake_cuda_set_attribute(int device, CUdevice_attribute attribute, int value) {
  lock_state();
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (valid_device(device) && (int)attribute > 0 && attribute < CU_DEVICE_ATTRIBUTE_MAX) {
    devices[device].attributes[attribute] = value;
    r = CUDA_SUCCESS;
  }
  unlock_state();
  return r;
}

CUresult fake_cuda_set_peer_access(int device, int peer, bool can) {
  lock_state();
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (valid_device(device) && valid_device(peer) && device != peer) {
    devices[device].peer[peer] = can;
    r = CUDA_SUCCESS;
  }
  unlock_state();
  return r;
}

void fake_cuda_set_host_memory(size_t bytes) {
  lock_state();
  host_total = bytes;
  unlock_state();
}

void fake_cuda_set_driver_version(int version) {
  lock_state();
  driver_version = version;
  unlock_state();
}

void fake_cuda_set_deinitialized(bool value) {
  lock_state();
  deinitialized = value;
  unlock_state();
}

void fake_cuda_fail(const char *entry_point, long nth_call, long count, CUresult error) {
  int i = entry_index_or_abort("fake_cuda_fail", entry_point);
  if (count > 0 && nth_call < 1) {
    fprintf(stderr, "fake_cuda_fail(%s): nth_call %ld is not 1 or more\n", entry_point, nth_call);
    abort();
  }
  lock_state();
  failures[i] = count > 0 ? (fake_failure){.first = calls[i] + nth_call, .count = count,
                                           .error = error}
                          : (fake_failure){0};
  unlock_state();
}

long fake_cuda_calls(const char *entry_point) {
  int i = entry_index_or_abort("fake_cuda_calls", entry_point);
  lock_state();
  long n = calls[i];
  unlock_state();
  return n;
}

void fake_cuda_reset(void) {
  lock_state();
  apply_defaults();
  ctx_depth = 0;
  unlock_state();
}

long fake_cuda_live_allocations(void) {
  lock_state();
  long n = live_allocations;
  unlock_state();
  return n;
}

long fake_cuda_live_pools(void) {
  lock_state();
  long n = 0;
  for (const struct CUmemPoolHandle_st *p = pools; p != NULL; p = p->next) n++;
  unlock_state();
  return n;
}

long fake_cuda_live_streams(void) {
  lock_state();
  long n = 0;
  for (const struct CUstream_st *s = streams; s != NULL; s = s->next) n++;
  unlock_state();
  return n;
}

long fake_cuda_live_events(void) {
  lock_state();
  long n = 0;
  for (const struct CUevent_st *e = events; e != NULL; e = e->next) n++;
  unlock_state();
  return n;
}

size_t fake_cuda_used_memory(int device) {
  lock_state();
  size_t n = device < 0 ? host_used : valid_device(device) ? devices[device].used : 0;
  unlock_state();
  return n;
}

int fake_cuda_allocation_device(const void *ptr) {
  lock_state();
  const fake_alloc *a = find_alloc(ptr);
  int d = a != NULL ? a->charged_to : -2;
  unlock_state();
  return d;
}

CUmemoryPool fake_cuda_allocation_pool(const void *ptr) {
  lock_state();
  const fake_alloc *a = find_alloc(ptr);
  CUmemoryPool p = a != NULL ? a->pool : NULL;
  unlock_state();
  return p;
}

CUmemAccess_flags fake_cuda_pool_access(CUmemoryPool pool, int device) {
  lock_state();
  const struct CUmemPoolHandle_st *p = find_pool(pool);
  CUmemAccess_flags f =
      p != NULL && valid_device(device) ? p->access[device] : CU_MEM_ACCESS_FLAGS_PROT_NONE;
  unlock_state();
  return f;
}

CUcontext fake_cuda_current_context(void) { return current_ctx(); }

/* The stream a control call names; the per-thread stream cannot be driven. */
static CUresult control_stream(CUstream stream, struct CUstream_st **out) {
  if (stream == CU_STREAM_PER_THREAD) return CUDA_ERROR_NOT_SUPPORTED;
  return resolve_stream(stream, out);
}

CUresult fake_cuda_set_stream_busy(CUstream stream, bool busy) {
  lock_state();
  struct CUstream_st *s;
  CUresult r = control_stream(stream, &s);
  if (r == CUDA_SUCCESS) {
    if (busy && !stream_busy(s))
      r = add_work(s, NULL, 0);
    else if (!busy && s->work != NULL)
      s->work->done = true;
  }
  unlock_state();
  return r;
}

CUresult fake_cuda_set_stream_capturing(CUstream stream, bool capturing) {
  lock_state();
  struct CUstream_st *s;
  CUresult r = control_stream(stream, &s);
  if (r == CUDA_SUCCESS) s->capturing = capturing;
  unlock_state();
  return r;
}

/* ---- random failures ---------------------------------------------------------------- */

/* One generator for the whole process, drawn under the lock once per call
 * that may fail: for a seed, the n-th such call since arming always gets the
 * same draw. Which call is n-th depends on how threads interleave; a
 * single-threaded run repeats exactly. */
static double random_probability; /* 0: off */
static uint64_t random_state;
static CUresult random_error_code;
static long random_failures;
static bool random_exempt[FAKE_EP_COUNT];

/* What never fails at random: loading and initializing the driver, and
 * error names (the library's messages need them, as in the driver). */
static void random_failure_reset(void) {
  random_probability = 0;
  random_state = 0;
  random_error_code = CUDA_SUCCESS;
  random_failures = 0;
  memset(random_exempt, 0, sizeof random_exempt);
  random_exempt[FAKE_EP_cuInit] = true;
  random_exempt[FAKE_EP_cuDriverGetVersion] = true;
  random_exempt[FAKE_EP_cuGetErrorName] = true;
  random_exempt[FAKE_EP_cuGetErrorString] = true;
  random_exempt[FAKE_EP_cuGetProcAddress] = true;
}

/* splitmix64: any seed, 0 included, gives a full-period sequence. */
static uint64_t random_next(void) {
  uint64_t z = (random_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static bool random_failure(enum fake_entry entry, CUresult *error) {
  if (random_probability <= 0 || random_exempt[entry]) return false;
  /* The top 53 bits as a double in [0, 1). */
  double draw = (double)(random_next() >> 11) * (1.0 / 9007199254740992.0);
  if (draw >= random_probability) return false;
  random_failures++;
  *error = random_error_code;
  return true;
}

void fake_cuda_fail_randomly(double probability, unsigned seed, CUresult error) {
  lock_state();
  if (probability > 0 && error != CUDA_SUCCESS) {
    random_probability = probability;
    random_state = seed;
    random_error_code = error;
  } else {
    random_probability = 0;
  }
  unlock_state();
}

void fake_cuda_fail_randomly_exempt(const char *entry_point, bool exempt) {
  int i = entry_index_or_abort("fake_cuda_fail_randomly_exempt", entry_point);
  lock_state();
  random_exempt[i] = exempt;
  unlock_state();
}

long fake_cuda_random_failures(void) {
  lock_state();
  long n = random_failures;
  unlock_state();
  return n;
}
