/*
 * nvtx_injection.c: a tiny NVTX tool for the tests. NVTX loads it from
 * NVTX_INJECTION64_PATH, as it loads Nsight Systems or compute-sanitizer;
 * it keeps the heaps and regions it is told about and checks what a real
 * tool relies on: a region lies inside a registered heap, nothing is
 * registered twice or unregistered unknown, heaps are sub-allocators of
 * process memory. The test links this library too (the same loaded
 * instance) and reads what it saw with nvtx_injection_get.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExtMem.h>

#include "nvtx_injection.h"

#define MAX_RANGES 4096
#define MAX_STRINGS 256

typedef struct range {
  uintptr_t base;
  size_t size;
} range;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static nvtx_injection_counts counts;
static range heaps[MAX_RANGES], regions[MAX_RANGES];
static size_t heap_count, region_count;
static char *strings[MAX_STRINGS];
static size_t string_count;
static int domain_token;

static void problem(const char *what) {
  counts.problems++;
  snprintf(counts.last_problem, sizeof counts.last_problem, "%s", what);
}

static long find(const range *list, size_t count, uintptr_t base) {
  for (size_t i = 0; i < count; i++)
    if (list[i].base == base) return (long)i;
  return -1;
}

static void drop(range *list, size_t *count, size_t i) { list[i] = list[--*count]; }

static nvtxDomainHandle_t domain_create(const char *name) {
  pthread_mutex_lock(&lock);
  snprintf(counts.domain, sizeof counts.domain, "%s", name);
  pthread_mutex_unlock(&lock);
  return (nvtxDomainHandle_t)&domain_token;
}

static nvtxStringHandle_t register_string(nvtxDomainHandle_t domain, const char *text) {
  pthread_mutex_lock(&lock);
  nvtxStringHandle_t handle = NULL;
  if (string_count < MAX_STRINGS) {
    strings[string_count] = strdup(text);
    handle = (nvtxStringHandle_t)(uintptr_t)(++string_count);
  }
  pthread_mutex_unlock(&lock);
  return handle;
}

static nvtxMemHeapHandle_t heap_register(nvtxDomainHandle_t domain, const nvtxMemHeapDesc_t *desc) {
  pthread_mutex_lock(&lock);
  counts.heap_registers++;
  const nvtxMemVirtualRangeDesc_t *r = desc->typeSpecificDesc;
  if (domain != (nvtxDomainHandle_t)&domain_token) problem("a heap outside the mrctx domain");
  if (desc->extCompatID != NVTX_EXT_COMPATID_MEM || desc->structSize != sizeof *desc ||
      desc->usage != NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR ||
      desc->type != NVTX_MEM_TYPE_VIRTUAL_ADDRESS || r == NULL ||
      desc->typeSpecificDescSize != sizeof *r)
    problem("a heap description that is not a sub-allocator of process memory");
  else if (find(heaps, heap_count, (uintptr_t)r->ptr) >= 0)
    problem("a heap registered twice");
  else if (heap_count < MAX_RANGES)
    heaps[heap_count++] = (range){(uintptr_t)r->ptr, r->size};
  if (desc->messageType == NVTX_MESSAGE_TYPE_ASCII && desc->message.ascii != NULL)
    snprintf(counts.last_heap, sizeof counts.last_heap, "%s", desc->message.ascii);
  pthread_mutex_unlock(&lock);
  /* As documented for heaps of process memory: the address is the handle. */
  return r != NULL ? (nvtxMemHeapHandle_t)(uintptr_t)r->ptr : NULL;
}

static void heap_unregister(nvtxDomainHandle_t domain, nvtxMemHeapHandle_t heap) {
  pthread_mutex_lock(&lock);
  counts.heap_unregisters++;
  long i = find(heaps, heap_count, (uintptr_t)heap);
  if (i < 0) {
    problem("an unknown heap unregistered");
  } else {
    /* Its regions end with it. */
    range h = heaps[i];
    for (size_t j = region_count; j-- > 0;)
      if (regions[j].base >= h.base && regions[j].base < h.base + h.size)
        drop(regions, &region_count, j);
    drop(heaps, &heap_count, (size_t)i);
  }
  pthread_mutex_unlock(&lock);
}

static void regions_register(nvtxDomainHandle_t domain,
                             const nvtxMemRegionsRegisterBatch_t *batch) {
  pthread_mutex_lock(&lock);
  const nvtxMemVirtualRangeDesc_t *r = batch->regionDescElements;
  for (size_t k = 0; k < batch->regionCount; k++) {
    counts.region_registers++;
    counts.region_bytes += r[k].size;
    uintptr_t p = (uintptr_t)r[k].ptr;
    long h = find(heaps, heap_count, (uintptr_t)batch->heap);
    if (h < 0)
      problem("a region in an unknown heap");
    else if (p < heaps[h].base || p + r[k].size > heaps[h].base + heaps[h].size)
      problem("a region outside its heap");
    else if (find(regions, region_count, p) >= 0)
      problem("a region registered twice");
    else if (region_count < MAX_RANGES)
      regions[region_count++] = (range){p, r[k].size};
  }
  pthread_mutex_unlock(&lock);
}

static void regions_unregister(nvtxDomainHandle_t domain,
                               const nvtxMemRegionsUnregisterBatch_t *batch) {
  pthread_mutex_lock(&lock);
  for (size_t k = 0; k < batch->refCount; k++) {
    counts.region_unregisters++;
    long i = find(regions, region_count, (uintptr_t)batch->refElements[k].pointer);
    if (batch->refType != NVTX_MEM_REGION_REF_TYPE_POINTER || i < 0)
      problem("an unknown region unregistered");
    else
      drop(regions, &region_count, (size_t)i);
  }
  pthread_mutex_unlock(&lock);
}

static void regions_name(nvtxDomainHandle_t domain, const nvtxMemRegionsNameBatch_t *batch) {
  pthread_mutex_lock(&lock);
  for (size_t k = 0; k < batch->regionCount; k++) {
    const nvtxMemRegionNameDesc_t *d = &batch->regionElements[k];
    counts.names++;
    const char *name = NULL;
    if (d->nameType == NVTX_MESSAGE_TYPE_REGISTERED) {
      uintptr_t index = (uintptr_t)d->name.registered;
      if (index >= 1 && index <= string_count) name = strings[index - 1];
    } else if (d->nameType == NVTX_MESSAGE_TYPE_ASCII) {
      name = d->name.ascii;
    }
    if (name == NULL)
      problem("a name that is no string");
    else
      snprintf(counts.last_name, sizeof counts.last_name, "%s", name);
  }
  pthread_mutex_unlock(&lock);
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table);
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  const NvtxExportTableCallbacks *callbacks = get_export_table(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  if (callbacks == NULL ||
      !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) ||
      size <= NVTX_CBID_CORE2_DomainCreateA)
    return 0;
  *table[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)domain_create;
  *table[NVTX_CBID_CORE2_DomainRegisterStringA] = (NvtxFunctionPointer)register_string;
  pthread_mutex_lock(&lock);
  counts.initialized++;
  pthread_mutex_unlock(&lock);
  return 1;
}

int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *info);
int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *info) {
  if (info->moduleId != NVTX_EXT_MODULEID_MEM) return 1;
  intptr_t *slots = info->segments[0].functionSlots;
  slots[NVTX3EXT_CBID_nvtxMemHeapRegister] = (intptr_t)heap_register;
  slots[NVTX3EXT_CBID_nvtxMemHeapUnregister] = (intptr_t)heap_unregister;
  slots[NVTX3EXT_CBID_nvtxMemRegionsRegister] = (intptr_t)regions_register;
  slots[NVTX3EXT_CBID_nvtxMemRegionsUnregister] = (intptr_t)regions_unregister;
  slots[NVTX3EXT_CBID_nvtxMemRegionsName] = (intptr_t)regions_name;
  return 1;
}

void nvtx_injection_get(nvtx_injection_counts *out) {
  pthread_mutex_lock(&lock);
  *out = counts;
  out->live_heaps = heap_count;
  out->live_regions = region_count;
  pthread_mutex_unlock(&lock);
}
