/*
 * fakecuda_internal.h: what the files of the fake CUDA driver share (tests
 * only). fakecuda.h is its control API and says what it models.
 *
 * Every entry point runs under one lock: enter() takes it, counts the call,
 * applies injected failures and the initialization rules; FAKE_CALL then
 * runs the body and releases it. Bodies therefore never call each other's
 * public forms. The library is built with hidden visibility: the entry
 * points and everything declared here stay inside it, and only
 * cuGetProcAddress_v2 and the control API (FAKE_CUDA_API) leave it.
 *
 *   fakecuda_state.c    the state, defaults, the lock, and the helpers the
 *                       entry points share
 *   fakecuda.c          initialization and errors, devices, contexts,
 *                       cuGetProcAddress
 *   fakecuda_memory.c   pools and synchronous memory
 *   fakecuda_streams.c  streams, events, and what is not modelled (graphs,
 *                       modules, kernels)
 *   fakecuda_control.c  the control API and random failures
 *   fakecuda_ipc.c      pools shared between processes, device UUIDs
 *   fakecuda_vmm.c      virtual memory management: reserved ranges,
 *                       physical handles, mappings, their export
 *
 * The state and the helpers are used with the lock held.
 */
#ifndef MRCTX_TESTS_FAKECUDA_INTERNAL_H
#define MRCTX_TESTS_FAKECUDA_INTERNAL_H

#include <stdint.h>

#include "driver/cuda_api.h" /* MRI_CUDA_ENTRY_POINTS: what to implement, and which ABI */
#include "fakecuda.h"

#define FAKE_CONTEXT_STACK 16 /* contexts a thread can push */

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
  /* cuStreamWaitEvent: pending while this work (another stream's) is. */
  struct fake_work *waits;
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
  /* Begun by cuStreamBeginCapture (not fake_cuda_set_stream_capturing),
   * in this mode: such a capture enforces the driver's rules on other
   * threads (capture_conflict). */
  bool capture_begun;
  CUstreamCaptureMode capture_mode;
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
  /* Freed by cuMemFreeAsync and not yet seen complete by the host: a trim
   * keeps it until a synchronize (cuMemPoolTrimTo's documentation: frees
   * whose completion the host has not observed can count as outstanding;
   * the H100 and H200 keep them). */
  cuuint64_t unobserved;
  int reuse_follow_event, reuse_opportunistic, reuse_internal;
  CUmemAccess_flags access[FAKE_CUDA_MAX_DEVICES];
  long live_allocations;
  /* Pools shared between processes (fakecuda_ipc.c): the memory of an
   * exporting pool (handleTypes POSIX_FD) is carved from a memfd, mapped
   * whole at ipc_base; an imported pool maps the same memfd. The memfd's
   * first page holds a header naming the pool (fake_ipc_header). */
  int ipc_fd; /* -1: not shared */
  bool imported;
  /* Its handle was exported once: only then are its pointers (as the real
   * driver 580 refuses a pointer of a pool never exported) */
  bool handle_exported;
  unsigned char *ipc_base;
  size_t ipc_span;
  size_t ipc_next; /* exporter: the next free offset (never reused) */
  unsigned long long ipc_id;
  struct CUmemPoolHandle_st *next; /* created pools only */
};

enum alloc_kind { ALLOC_POOL, ALLOC_DEVICE, ALLOC_HOST, ALLOC_MANAGED };

typedef struct fake_alloc {
  void *ptr;
  size_t bytes;
  enum alloc_kind kind;
  int charged_to; /* device, or -1 for the host */
  CUmemoryPool pool;
  bool mapped; /* inside a shared pool's mapping: not malloc's to free */
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

/* ---- entry points: names, counters, failures ------------------------------ */

#define FAKE_ENTRY_ENUM_(name, version) FAKE_EP_##name,
enum fake_entry { MRI_CUDA_ENTRY_POINTS(FAKE_ENTRY_ENUM_) FAKE_EP_cuGetProcAddress, FAKE_EP_COUNT };
#undef FAKE_ENTRY_ENUM_

typedef struct fake_failure {
  long first, count; /* calls first .. first + count - 1 fail */
  CUresult error;
} fake_failure;

/* Each entry point, fake_<name>, declared with exactly the ABI the loader
 * asks for: the type cudaTypedefs.h gives that entry point at that version
 * (PFN_<name>_v<version>). A definition of any other type does not compile. */
#define FAKE_DECLARE_ENTRY_(name, version) __typeof__(*(PFN_##name##_v##version)0) fake_##name;
MRI_CUDA_ENTRY_POINTS(FAKE_DECLARE_ENTRY_)
#undef FAKE_DECLARE_ENTRY_

/* Calls so far and the injected failure, per entry point. */
extern long calls[FAKE_EP_COUNT];
extern fake_failure failures[FAKE_EP_COUNT];

/* The index of an entry point's name; aborts, naming `caller`, if there is
 * no such entry point (a test's typo). */
int entry_index_or_abort(const char *caller, const char *name);

/* ---- state (fakecuda_state.c) ---------------------------------------------- */

extern bool count_set; /* the device count was chosen by the test */
extern bool initialized;
extern bool deinitialized;
extern int device_count;
extern int driver_version;
extern size_t host_total, host_used;
extern fake_device devices[FAKE_CUDA_MAX_DEVICES];
extern fake_location locations[LOC_COUNT];

extern struct CUmemPoolHandle_st *pools;
extern struct CUstream_st *streams;
/* Destroyed streams, most recent first: cuStreamCreate hands their handles
 * out again, as the real driver does. */
extern struct CUstream_st *destroyed_streams;
extern fake_work *works;
extern unsigned long long next_stream_id;
extern struct CUevent_st *events;

extern long live_allocations;

extern _Thread_local CUcontext ctx_stack[FAKE_CONTEXT_STACK];
extern _Thread_local int ctx_depth;

/* ---- the lock and the defaults ---------------------------------------------- */

/* Take the lock (applying the defaults the first time) and release it. */
void lock_state(void);
void unlock_state(void);

/* Free what tests and the library made and go back to every default
 * (fake_cuda_reset). Lock held. */
void apply_defaults(void);

/* A pool with the driver's defaults for its attributes. */
void pool_init(struct CUmemPoolHandle_st *p, CUmemLocation location, CUmemAllocationType type,
               bool is_default);

/* Random failures (fakecuda_control.c): cleared with every other default;
 * decides, under the lock, whether this call of `entry` fails. */
void random_failure_reset(void);
bool random_failure(enum fake_entry entry, CUresult *error);

/* When an entry point works: after cuInit, before it too, or at any time
 * (error names work even after the driver shut down). */
enum entry_rule { NEEDS_INIT, NO_INIT, ANY_TIME };

/* Take the lock, count the call, and say whether it fails before doing
 * anything: an injected failure first (a chosen call, then a random one),
 * then shutdown, then cuInit. The caller releases the lock. */
CUresult enter(enum fake_entry entry, enum entry_rule rule);

#define FAKE_CALL(name, rule, body)              \
  do {                                           \
    CUresult r_ = enter(FAKE_EP_##name, (rule)); \
    if (r_ == CUDA_SUCCESS) r_ = (body);         \
    unlock_state();                              \
    return r_;                                   \
  } while (0)

/* ---- helpers (lock held; fakecuda_state.c) ---------------------------------- */

CUcontext current_ctx(void);
bool valid_device(CUdevice d);
bool valid_ctx(CUcontext ctx);

/* Streams, events and their work. */
CUresult resolve_stream(CUstream handle, struct CUstream_st **out);
/* What the driver refuses while another stream captures (a capture begun
 * with cuStreamBeginCapture): with `sync`, a device-wide synchronization
 * from a thread not in relaxed capture mode while a global-mode capture
 * runs (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED); with `s`, work on a legacy
 * stream while a blocking stream of its context captures, whatever the
 * thread's mode (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT). Either invalidates
 * the captures it conflicts with, as the driver does. */
CUresult capture_conflict(bool sync, const struct CUstream_st *s);
struct CUevent_st *find_event(CUevent handle);
bool stream_busy(const struct CUstream_st *s);
CUresult add_work(struct CUstream_st *s, const volatile cuuint32_t *gate, cuuint32_t gate_value);
/* Mark `w` and what it waits for done (a host wait let it finish). */
void finish_work(fake_work *w);
/* Make `s`'s later work wait for `waits` (another stream's). */
CUresult add_wait(struct CUstream_st *s, fake_work *waits);
bool event_pending(const struct CUevent_st *e);
unsigned long long legacy_stream_id(CUcontext ctx);
unsigned long long per_thread_stream_id(CUcontext ctx);
void release_all_pools(void);
void finish_stream(struct CUstream_st *s);

/* Locations, pools and what is charged to a device or the host. */
CUresult find_location(const CUmemLocation *location, CUmemAllocationType type,
                       fake_location **out);
struct CUmemPoolHandle_st *find_pool(CUmemoryPool handle);
int pool_device(const struct CUmemPoolHandle_st *p);
CUresult charge(int device, size_t bytes);
void uncharge(int device, size_t bytes);
void release_pool_memory(struct CUmemPoolHandle_st *p, cuuint64_t keep);
void unlink_pool(struct CUmemPoolHandle_st *gone);

/* Allocations. */
#define KIND_BIT(k) (1u << (k))
fake_alloc *find_alloc(const void *ptr);
CUresult new_alloc(size_t bytes, enum alloc_kind kind, int charged_to, CUmemoryPool pool,
                   void **out);
CUresult free_alloc(const void *ptr, unsigned kinds);
/* In free_alloc's kinds: a stream-ordered free, unobserved until a sync. */
#define FREE_UNOBSERVED (1u << 31)
/* Record an allocation at `ptr`, memory the caller provides (a shared
 * pool's mapping), which free_alloc then does not free. */
CUresult new_alloc_at(void *ptr, size_t bytes, int charged_to, CUmemoryPool pool);

/* Shared pools (fakecuda_ipc.c). Set up the memfd of a pool created with
 * handle types, or say why the fake cannot; release a pool's mapping and
 * descriptor; carve `bytes` for an allocation from an exporting pool. */
CUresult ipc_pool_init(struct CUmemPoolHandle_st *p, CUmemAllocationHandleType handle_types);
void ipc_pool_release(struct CUmemPoolHandle_st *p);
CUresult ipc_pool_carve(struct CUmemPoolHandle_st *p, size_t bytes, void **out);
bool inside_alloc(uintptr_t ptr, size_t bytes);
/* The live allocation whose bytes include `ptr`, or NULL. */
fake_alloc *find_alloc_containing(uintptr_t ptr);

/* Virtual memory management (fakecuda_vmm.c). Its granularity; whether
 * [ptr, ptr + size) is mapped with access (memset and copies accept it);
 * free every range, mapping and handle (fake_cuda_reset); the books. */
#define FAKE_VMM_GRANULARITY ((size_t)2 << 20)
bool vmm_accessible(uintptr_t ptr, size_t size);
void vmm_reset(void);
fake_vmm_books vmm_books(void);

#endif
