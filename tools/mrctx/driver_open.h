/*
 * driver_open.h: the CUDA driver, opened for the mrctx command's own calls
 * (the bench's baselines, replay's streams) the way the library opens it:
 * dlopen of $MRCTX_CUDA_DRIVER or libcuda.so.1, then cuGetProcAddress. So
 * the command links nothing from CUDA either.
 */
#ifndef MRCTX_TOOLS_DRIVER_OPEN_H
#define MRCTX_TOOLS_DRIVER_OPEN_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>

typedef CUresult (*mrctx_get_proc_fn)(const char *, void **, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult *);

/* Open the driver. OUT: *get_proc. On failure, false and a reason in `why`. */
bool mrctx_driver_open(mrctx_get_proc_fn *get_proc, char *why, size_t cap);

/* Look up entry point `name` of at least `version` into *entry (a function
 * pointer's address). On failure, false and a reason in `why`. */
bool mrctx_driver_entry(mrctx_get_proc_fn get_proc, const char *name, int version, void *entry,
                        char *why, size_t cap);

/* table->field = the entry point named `text`, or return false from the
 * calling function. The caller's own macro stringifies the name (#name), so
 * that cuda.h's versioned #defines (cuStreamDestroy -> cuStreamDestroy_v2)
 * do not rename it first. */
#define MRCTX_DRIVER_LOAD(get_proc, table, field, text, version, why, cap)                     \
  do {                                                                                         \
    if (!mrctx_driver_entry(get_proc, text, version, &(table)->field, why, cap)) return false; \
  } while (0)

#endif
