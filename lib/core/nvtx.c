/*
 * nvtx.c: the calls behind core/nvtx.h's hooks, made only when a tool is
 * attached. NVTX v3 is header-only: its implementation is compiled in
 * here, private to the library (hidden, not exported), and opens the tool
 * named by NVTX_INJECTION64_PATH on its first call. Only the core and
 * memory APIs are used; neither includes cuda.h.
 */
#include <stdlib.h>

#define NVTX_AS_SYSTEM_HEADER
#include <nvtx3/nvToolsExtMem.h>

#include "core/nvtx.h"
#include "core/variables.h"

_Atomic bool mri_nvtx_attached;

static pthread_once_t decide_once = PTHREAD_ONCE_INIT, attach_once = PTHREAD_ONCE_INIT;
static nvtxDomainHandle_t domain;
static _Atomic(mri_nvtx_pool_query) pool_query;

void mri_nvtx_set_pool_query(mri_nvtx_pool_query query) {
  atomic_store_explicit(&pool_query, query, memory_order_release);
}

/* Whether the tool refuses a heap or region at `ptr` (core/nvtx.h: memory
 * from a stream-ordered pool); *starts_allocation, where asked, as the
 * query says. */
static bool in_pool_memory(const void *ptr, bool *starts_allocation) {
  mri_nvtx_pool_query query = atomic_load_explicit(&pool_query, memory_order_acquire);
  return query != NULL && query(ptr, starts_allocation);
}

/* Tools attach through NVTX_INJECTION64_PATH; without it there is nothing
 * to tell, and NVTX is never even initialised. */
static void decide(void) {
  const char *tool = mri_variable_get(MRI_VAR_NVTX_INJECTION);
  if (tool != NULL && tool[0] != '\0')
    atomic_store_explicit(&mri_nvtx_attached, true, memory_order_release);
}

void mri_nvtx_init(void) { pthread_once(&decide_once, decide); }

/* NVTX loads the tool at its first call, made here at the first hook that
 * fires: after memory was allocated, so after CUDA started (compute-
 * sanitizer ignores NVTX calls made before). If the tool failed to load,
 * NVTX's calls are its own no-ops from then on. */
static void attach(void) {
  nvtxInitialize(NULL);
  domain = nvtxDomainCreateA("mrctx");
}

void mri_nvtx_heap_register(const void *base, size_t bytes, const char *what) {
  if (in_pool_memory(base, NULL)) return;
  pthread_once(&attach_once, attach);
  nvtxMemVirtualRangeDesc_t range = {.size = bytes, .ptr = base};
  nvtxMemHeapDesc_t desc = {
      .extCompatID = NVTX_EXT_COMPATID_MEM,
      .structSize = sizeof desc,
      .usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR,
      .type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS,
      .typeSpecificDescSize = sizeof range,
      .typeSpecificDesc = &range,
      .messageType = NVTX_MESSAGE_TYPE_ASCII,
      .message = {.ascii = what},
  };
  nvtxMemHeapRegister(domain, &desc);
}

void mri_nvtx_heap_unregister(const void *base) {
  /* Asked before the block goes back upstream, so the answer is the one
   * its registration got. */
  if (in_pool_memory(base, NULL)) return;
  pthread_once(&attach_once, attach);
  /* A heap of process memory is known by its address. */
  nvtxMemHeapUnregister(domain, (nvtxMemHeapHandle_t)(uintptr_t)base);
}

void mri_nvtx_region_register(const void *heap, const void *ptr, size_t bytes) {
  if (in_pool_memory(heap, NULL)) return;
  pthread_once(&attach_once, attach);
  nvtxMemVirtualRangeDesc_t range = {.size = bytes, .ptr = ptr};
  nvtxMemRegionsRegisterBatch_t batch = {
      .extCompatID = NVTX_EXT_COMPATID_MEM,
      .structSize = sizeof batch,
      .regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS,
      .heap = (nvtxMemHeapHandle_t)(uintptr_t)heap,
      .regionCount = 1,
      .regionDescElementSize = sizeof range,
      .regionDescElements = &range,
  };
  nvtxMemRegionsRegister(domain, &batch);
}

void mri_nvtx_region_unregister(const void *ptr) {
  if (in_pool_memory(ptr, NULL)) return;
  pthread_once(&attach_once, attach);
  nvtxMemRegionRef_t ref = {.pointer = ptr};
  nvtxMemRegionsUnregisterBatch_t batch = {
      .extCompatID = NVTX_EXT_COMPATID_MEM,
      .structSize = sizeof batch,
      .refType = NVTX_MEM_REGION_REF_TYPE_POINTER,
      .refCount = 1,
      .refElementSize = sizeof ref,
      .refElements = &ref,
  };
  nvtxMemRegionsUnregister(domain, &batch);
}

void mri_nvtx_region_name(const void *ptr, mri_nvtx_label *label) {
  if (label->text == NULL) return; /* stats(UP): no context's label */
  bool starts_allocation = false;
  if (in_pool_memory(ptr, &starts_allocation) && !starts_allocation) return;
  pthread_once(&attach_once, attach);
  /* Registered with the tool at its first use; two threads racing here
   * register it twice, which costs the tool one string. */
  void *handle = atomic_load_explicit(&label->handle, memory_order_acquire);
  if (handle == NULL) {
    handle = nvtxDomainRegisterStringA(domain, label->text);
    atomic_store_explicit(&label->handle, handle, memory_order_release);
  }
  nvtxMemRegionNameDesc_t name = {
      .regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER,
      .region = {.pointer = ptr},
  };
  if (handle != NULL) {
    name.nameType = NVTX_MESSAGE_TYPE_REGISTERED;
    name.name.registered = handle;
  } else {
    name.nameType = NVTX_MESSAGE_TYPE_ASCII;
    name.name.ascii = label->text;
  }
  nvtxMemRegionsNameBatch_t batch = {
      .extCompatID = NVTX_EXT_COMPATID_MEM,
      .structSize = sizeof batch,
      .regionCount = 1,
      .regionElementSize = sizeof name,
      .regionElements = &name,
  };
  nvtxMemRegionsName(domain, &batch);
}
