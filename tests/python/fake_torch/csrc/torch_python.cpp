/*
 * The stand-in's libtorch_python part: PyTorch calls a pluggable
 * allocator's allocation function inside C++ that turns what it throws
 * into a Python exception (torch/csrc/Exceptions.h, CATCH_CORE_ERRORS):
 * c10::OutOfMemoryError becomes torch.OutOfMemoryError, another c10::Error
 * RuntimeError, any other std::exception RuntimeError. ctypes cannot catch
 * a C++ exception, so torch/cuda/memory.py calls the function through this
 * and raises from the code it returns. Linked to the stand-in's libc10.so,
 * not to the allocator or its helper: the exception's type is matched
 * across libraries, as in PyTorch.
 */
#include <c10/util/Exception.h>

#include "catch.h"

#include <cstdio>
#include <sys/types.h>

typedef void *(*alloc_fn)(ssize_t size, int device, void *stream);

/* 0: *out is the allocation; 1: RuntimeError; 2: torch.OutOfMemoryError;
 * the message in message[0..cap). */
extern "C" __attribute__((visibility("default"))) int
fake_torch_call_alloc(void *fn, ssize_t size, int device, void *stream, void **out, char *message,
                      size_t cap) {
  return fake_torch_catch(message, cap,
                          [&] { *out = reinterpret_cast<alloc_fn>(fn)(size, device, stream); });
}
