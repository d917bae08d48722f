/*
 * pool_desc.c: pool kinds' names and a pool description's defaults. They
 * need no driver, so this file is built with and without the toolkit's
 * headers (the no-CUDA build's pool() fails, but an application may still
 * fill a description or print a kind).
 */
#include <string.h>

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

void mr_pool_desc_init(mr_pool_desc *desc, mr_pool_kind kind) {
  if (desc == NULL) return;
  memset(desc, 0, sizeof *desc);
  desc->kind = kind;
  desc->release_threshold = MR_POOL_RELEASE_MAX;
  desc->access = MR_POOL_ACCESS_ALL;
}
