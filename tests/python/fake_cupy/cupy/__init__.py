"""A stand-in for CuPy in mrctx's tests, where there is neither CuPy nor a
GPU (tests/python/test_fake_cupy.py puts this directory first on sys.path,
over the fake CUDA driver).

It has the parts of CuPy that mrctx.cupy touches, and calls a
CFunctionAllocator's C functions through ctypes with the types CuPy's
Cython uses (cupy/cuda/memory.pyx: malloc ``void *(void *param, size_t
size, int device_id)``, never for size 0, its NULL taken as address 0
without an error, as CuPy up to 14 does; free ``void (void *param, void
*ptr, int device_id)`` when the last reference to the memory goes). Its
current stream is per thread, and cupy.cuda.stream exports
get_current_stream_ptr to C as CuPy's Cython module does: a capsule named
"intptr_t (void)" in ``__pyx_capi__``.

Switches for the tests: cupy.cuda.memory.CFunctionAllocator and
cupy.cuda.stream.__pyx_capi__ may be deleted or replaced to play a CuPy
without them.
"""

__version__ = "0.0+mrctx.fake"

from . import cuda  # noqa: E402


def get_default_memory_pool():
    return cuda.memory._default_pool


def get_default_pinned_memory_pool():
    return cuda.memory._default_pinned_pool
