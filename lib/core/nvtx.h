/*
 * core/nvtx.h (internal): telling NVTX tools (Nsight Systems,
 * compute-sanitizer) about the memory mrctx hands out.
 *
 * The adaptors that carve sub-allocations out of larger upstream blocks
 * (arena chunks, fixed and bin slabs, cache blocks handed out for smaller
 * requests) register each block as an NVTX memory heap of the
 * sub-allocator kind and each allocation in it as a region, so a tool
 * treats the parts not handed out as not allocated: compute-sanitizer then
 * reports a kernel that runs past its allocation inside an arena chunk. A
 * context names every allocation of a tag "library:tag".
 *
 * Cost. Whether a tool is attached is decided once, at the first adaptor
 * created (mri_nvtx_init): NVTX_INJECTION64_PATH is how tools attach, and
 * NVTX's own initialisation, at the first hook that fires, loads the tool
 * it names. Every hook below is one predictable branch on a global that
 * never changes after the decision; with no tool the branch is not taken
 * and nothing else is touched. A build without NVTX (-Dnvtx=disabled, or no
 * toolkit headers) compiles the hooks to nothing.
 *
 * Each hook is one line at an adaptor's hand-out or take-back point. Heaps
 * are identified by their base address (NVTX documents the address of a
 * heap of process memory as its handle, and compute-sanitizer returns it),
 * so no handle is stored.
 *
 * Memory from a stream-ordered pool. compute-sanitizer (CUDA 13.0) refuses
 * a heap inside an allocation from a driver pool, and then every region
 * and name in it, each refusal a warning counted in its error summary. So
 * the driver layer, once loaded, gives the hooks a question to ask of an
 * address (mri_nvtx_set_pool_query): heaps and regions in pool memory are
 * not announced, and a name is given to pool memory only where it starts
 * an allocation of the pool's (the tool knows those). The question is a
 * pointer-attribute call, asked only with a tool attached.
 */
#ifndef MRCTX_LIB_CORE_NVTX_H
#define MRCTX_LIB_CORE_NVTX_H

#include "core/core.h"

/* A name for allocations, registered with the tool at its first use
 * (nvtxDomainRegisterStringA). Zero-initialised with `text` set. */
typedef struct mri_nvtx_label {
  const char *text;       /* borrowed: must live as long as the label; NULL:
                             name nothing */
  _Atomic(void *) handle; /* the tool's string handle, once registered */
} mri_nvtx_label;

#if MRCTX_HAVE_NVTX

/* True once a tool is attached; never changes after mri_nvtx_init. */
extern _Atomic bool mri_nvtx_attached;

static inline bool mri_nvtx_on(void) {
  return MRI_UNLIKELY(atomic_load_explicit(&mri_nvtx_attached, memory_order_relaxed));
}

/* Decide, once per process, whether a tool is attached (every adaptor's
 * constructor calls it, before the adaptor can fire a hook). Thread-safe. */
void mri_nvtx_init(void);

/* Whether `ptr` lies in memory from a stream-ordered pool; if so and
 * `starts_allocation` is not NULL, *starts_allocation says whether it is
 * where that allocation starts. */
typedef bool (*mri_nvtx_pool_query)(const void *ptr, bool *starts_allocation);

/* Set by the driver layer when the driver is loaded; until then (and for
 * memory the driver did not give) addresses count as no pool's. */
void mri_nvtx_set_pool_query(mri_nvtx_pool_query query);

/* The out-of-line calls behind the hooks (nvtx.c). */
void mri_nvtx_heap_register(const void *base, size_t bytes, const char *what);
void mri_nvtx_heap_unregister(const void *base);
void mri_nvtx_region_register(const void *heap, const void *ptr, size_t bytes);
void mri_nvtx_region_unregister(const void *ptr);
void mri_nvtx_region_name(const void *ptr, mri_nvtx_label *label);

#else

typedef bool (*mri_nvtx_pool_query)(const void *ptr, bool *starts_allocation);

static inline bool mri_nvtx_on(void) { return false; }
static inline void mri_nvtx_init(void) {}
static inline void mri_nvtx_set_pool_query(mri_nvtx_pool_query query) {}
static inline void mri_nvtx_heap_register(const void *base, size_t bytes, const char *what) {}
static inline void mri_nvtx_heap_unregister(const void *base) {}
static inline void mri_nvtx_region_register(const void *heap, const void *ptr, size_t bytes) {}
static inline void mri_nvtx_region_unregister(const void *ptr) {}
static inline void mri_nvtx_region_name(const void *ptr, mri_nvtx_label *label) {}

#endif

/* ---- the hooks -------------------------------------------------------------- */

/* A block taken from upstream that sub-allocations will come from (an
 * arena chunk, a fixed slab): nothing in it is allocated yet. `what` names
 * it for the tool (the adaptor's description). */
static inline void mri_nvtx_heap_add(const void *base, size_t bytes, const char *what) {
  if (mri_nvtx_on()) mri_nvtx_heap_register(base, bytes, what);
}

/* The block goes back upstream: the heap and every region in it end. */
static inline void mri_nvtx_heap_remove(const void *base) {
  if (mri_nvtx_on()) mri_nvtx_heap_unregister(base);
}

/* `bytes` at `ptr`, inside the heap at `heap`, handed out. */
static inline void mri_nvtx_region_add(const void *heap, const void *ptr, size_t bytes) {
  if (mri_nvtx_on()) mri_nvtx_region_register(heap, ptr, bytes);
}

/* The region at `ptr` freed. */
static inline void mri_nvtx_region_remove(const void *ptr) {
  if (mri_nvtx_on()) mri_nvtx_region_unregister(ptr);
}

/* A whole upstream block (`block` bytes at *ptr) handed out for a request
 * of `bytes`, if `st` is MR_OK: a heap of its own with one region, so the
 * rest of the block counts as not allocated. Returns `st`, so a return
 * statement can pass through it. */
static inline mr_status mri_nvtx_block_out(mr_status st, void *const *ptr, size_t block,
                                           size_t bytes, const char *what) {
  if (mri_nvtx_on() && st == MR_OK) {
    mri_nvtx_heap_register(*ptr, block, what);
    mri_nvtx_region_register(*ptr, *ptr, bytes);
  }
  return st;
}

/* A block handed out by mri_nvtx_block_out comes back. */
static inline void mri_nvtx_block_in(const void *ptr) {
  if (mri_nvtx_on()) mri_nvtx_heap_unregister(ptr);
}

/* Name the allocation at `ptr` (a context's "library:tag"). */
static inline void mri_nvtx_name(const void *ptr, mri_nvtx_label *label) {
  if (mri_nvtx_on()) mri_nvtx_region_name(ptr, label);
}

#endif
