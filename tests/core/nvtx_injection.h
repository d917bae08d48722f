/*
 * nvtx_injection.h: what the test NVTX tool (nvtx_injection.c) saw.
 */
#ifndef MRCTX_TESTS_NVTX_INJECTION_H
#define MRCTX_TESTS_NVTX_INJECTION_H

#include <stddef.h>

typedef struct nvtx_injection_counts {
  long initialized; /* the core API was attached */
  char domain[64];  /* the domain created */
  long heap_registers, heap_unregisters;
  long region_registers, region_unregisters;
  size_t region_bytes; /* the sizes of all regions registered */
  long names;
  char last_name[128], last_heap[128];
  size_t live_heaps, live_regions;
  long problems; /* what a real tool would not accept */
  char last_problem[128];
} nvtx_injection_counts;

__attribute__((visibility("default"))) void nvtx_injection_get(nvtx_injection_counts *out);

#endif
