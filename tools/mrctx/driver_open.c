/* driver_open.c: see driver_open.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_open.h"

#include "core/variables.h"

bool mrctx_driver_open(mrctx_get_proc_fn *get_proc, char *why, size_t cap) {
  const char *path = mri_variable_get(MRI_VAR_CUDA_DRIVER);
  if (path == NULL || path[0] == '\0') path = "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    snprintf(why, cap, "cannot open the CUDA driver: %s", dlerror());
    return false;
  }
  void *sym = dlsym(lib, "cuGetProcAddress_v2");
  memcpy(get_proc, &sym, sizeof sym);
  if (*get_proc == NULL) {
    snprintf(why, cap, "%s has no cuGetProcAddress_v2", path);
    return false;
  }
  return true;
}

bool mrctx_driver_entry(mrctx_get_proc_fn get_proc, const char *name, int version, void *entry,
                        char *why, size_t cap) {
  void *fn = NULL;
  CUdriverProcAddressQueryResult found;
  if (get_proc(name, &fn, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found) != CUDA_SUCCESS ||
      fn == NULL) {
    snprintf(why, cap, "the driver lacks %s", name);
    return false;
  }
  memcpy(entry, &fn, sizeof fn);
  return true;
}
