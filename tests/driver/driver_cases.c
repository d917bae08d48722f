#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_cases.h"

static mr_status create_pool(int device, mr_pool_kind kind, mr_resource **out) {
  mr_pool_desc desc;
  mr_pool_desc_init(&desc, kind);
  return mr_pool_resource_create(device, &desc, out);
}

static mr_status create_device_pool(int device, mr_resource **out) {
  return create_pool(device, MR_POOL_DEVICE, out);
}

static mr_status create_pinned_pool(int device, mr_resource **out) {
  return create_pool(device, MR_POOL_PINNED, out);
}

static mr_status create_managed_pool(int device, mr_resource **out) {
  return create_pool(device, MR_POOL_MANAGED, out);
}

const driver_case driver_cases[] = {
    {"device", mr_device_resource_create, MR_MEMORY_DEVICE, true, true, false, MR_POOL_DEVICE},
    {"device_default", mr_device_default_resource_create, MR_MEMORY_DEVICE, true, true, false,
     MR_POOL_DEVICE},
    {"pinned", mr_pinned_resource_create, MR_MEMORY_PINNED, false, true, false, MR_POOL_PINNED},
    {"managed", mr_managed_resource_create, MR_MEMORY_MANAGED, false, true, false, MR_POOL_MANAGED},
    {"pool(kind=device)", create_device_pool, MR_MEMORY_DEVICE, true, true, true, MR_POOL_DEVICE},
    {"pool(kind=pinned)", create_pinned_pool, MR_MEMORY_PINNED, false, true, true, MR_POOL_PINNED},
    {"pool(kind=managed)", create_managed_pool, MR_MEMORY_MANAGED, false, true, true,
     MR_POOL_MANAGED},
    {"sync_device", mr_sync_device_resource_create, MR_MEMORY_DEVICE, true, false, false,
     MR_POOL_DEVICE},
    {"sync_pinned", mr_sync_pinned_resource_create, MR_MEMORY_PINNED, false, false, false,
     MR_POOL_PINNED},
    {"sync_managed", mr_sync_managed_resource_create, MR_MEMORY_MANAGED, false, false, false,
     MR_POOL_MANAGED},
};

const size_t driver_case_count = sizeof driver_cases / sizeof driver_cases[0];

const driver_case *driver_case_named(const char *spec) {
  for (size_t i = 0; i < driver_case_count; i++)
    if (strcmp(driver_cases[i].spec, spec) == 0) return &driver_cases[i];
  fprintf(stderr, "no driver test case \"%s\"\n", spec);
  abort();
}
