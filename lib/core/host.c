/*
 * host.c: pageable host memory ("host").
 */
#include <errno.h>
#include <stdlib.h>

#include "core/core.h"

static mr_status host_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                               void **ptr) {
  /* posix_memalign wants at least sizeof(void *); the core guarantees a
   * power of two of at least 1, and the default is 256. */
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  void *p = NULL;
  int rc = posix_memalign(&p, alignment, bytes);
  if (rc != 0)
    return mri_error(rc == ENOMEM ? MR_ERR_OUT_OF_MEMORY : MR_ERR_INVALID_ARGUMENT,
                     "host: cannot allocate %zu bytes aligned to %zu: %s", bytes, alignment,
                     rc == ENOMEM ? "out of memory" : "invalid request");
  *ptr = p;
  return MR_OK;
}

static mr_status host_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                 mr_stream stream) {
  free(ptr);
  return MR_OK;
}

static const mr_resource_ops host_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "host",
    .allocate = host_allocate,
    .deallocate = host_deallocate,
};

mr_status mr_host_resource_create(mr_resource **out) {
  if (out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_host_resource_create: out is NULL");
  mr_resource_props props = mri_memory_kind_props(MR_MEMORY_HOST, -1, false, 0);
  return mri_resource_create(&host_ops, NULL, &props, NULL, "host", out);
}
