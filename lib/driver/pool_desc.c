/*
 * pool_desc.c: pool kinds' names. They need no driver, so this file is
 * built with and without the toolkit's headers (the no-CUDA build's pool()
 * fails, but an application may still print a kind). A description's
 * defaults are mr_pool_desc_init, inline in driver.h (docs/abi.md).
 */
#include "driver/driver_internal.h"

const char *mr_pool_kind_name(mr_pool_kind kind) {
  switch (kind) {
  case MR_POOL_DEVICE:
    return "device";
  case MR_POOL_PINNED:
    return "pinned";
  case MR_POOL_MANAGED:
    return "managed";
  }
  return "unknown";
}
