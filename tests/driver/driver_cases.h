/*
 * driver_cases.h: the driver resources every driver test goes through, as
 * one table, so the fake and gpu suites cover the same list.
 */
#ifndef MRCTX_TESTS_DRIVER_CASES_H
#define MRCTX_TESTS_DRIVER_CASES_H

#include <mrctx/mrctx.h>

typedef struct driver_case {
  const char *spec; /* what mr_resource_describe() says */
  mr_status (*create)(int device, mr_resource **out);
  mr_memory_kind kind;
  bool per_device;  /* props.device is the device the memory lives on */
  bool pool_backed; /* allocates from a driver pool: mr_pool_resource_get_info works */
  bool owned_pool;  /* a pool the resource created */
  mr_pool_kind pool_kind;
} driver_case;

extern const driver_case driver_cases[];
extern const size_t driver_case_count;

/* The case whose spec is `spec` (the test aborts if there is none). */
const driver_case *driver_case_named(const char *spec);

#endif
