#include <stdatomic.h>

#include "test_util.h"

/* ---- vspace: addresses without memory ------------------------------------- */

static _Atomic uintptr_t vspace_next = (uintptr_t)1 << 44;

static mr_status vspace_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                 void **ptr) {
  /* Each block its own range, as a real upstream's (bin tells its classes'
   * blocks from upstream allocations by address). Wraps around after 2^64
   * bytes in all: the addresses are never used. */
  uintptr_t at = atomic_fetch_add(&vspace_next, (uintptr_t)bytes + alignment);
  *ptr = (void *)((at + (alignment - 1)) & ~(uintptr_t)(alignment - 1));
  if (*ptr == NULL) *ptr = (void *)(uintptr_t)alignment;
  return MR_OK;
}

static mr_status vspace_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                   mr_stream stream) {
  return MR_OK;
}

static const mr_resource_ops vspace_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "vspace",
    .allocate = vspace_allocate,
    .deallocate = vspace_deallocate,
};

mr_status vspace_resource_create(mr_resource **out) {
  return mr_resource_create(&vspace_ops, NULL, NULL, out);
}

uint64_t test_rand(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}
