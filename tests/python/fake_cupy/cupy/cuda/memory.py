"""cupy.cuda.memory of the stand-in (see cupy/__init__.py)."""

import ctypes
import itertools

from . import runtime

_MALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
RECORD: list = []  # ("malloc", size, device, ptr) and ("free", ptr, device)
_addresses = itertools.count(0x7000_0000_0000, 1 << 20)


class OutOfMemoryError(MemoryError):
    def __init__(self, size, total, limit=0):
        self._size, self._total, self._limit = size, total, limit
        super().__init__(f"Out of memory allocating {size:,} bytes")


class BaseMemory:
    ptr = 0
    size = 0
    device_id = 0


class Memory(BaseMemory):
    """CuPy's own allocation (no real memory: an address)."""

    def __init__(self, size: int):
        self.size, self.device_id = size, runtime.getDevice()
        self.ptr = next(_addresses) if size else 0


class UnownedMemory(BaseMemory):
    def __init__(self, ptr: int, size: int, owner, device_id: int = -1):
        self.ptr, self.size, self._owner = ptr, size, owner
        self.device_id = runtime.getDevice() if device_id < 0 else device_id


class CFunctionAllocatorMemory(BaseMemory):
    """As memory.pyx's: malloc only for a size above 0; a NULL is kept as
    address 0 (no error); free when the object goes."""

    def __init__(self, size: int, param: int, malloc_func: int, free_func: int,
                 device_id: int):
        self._param, self._free_func = param, free_func
        self.device_id, self.size, self.ptr = device_id, size, 0
        if size > 0:
            self.ptr = _MALLOC(malloc_func)(param, size, device_id) or 0
            RECORD.append(("malloc", size, device_id, self.ptr))

    def __del__(self):
        if self.ptr:
            RECORD.append(("free", self.ptr, self.device_id))
            _FREE(self._free_func)(self._param, self.ptr, self.device_id)
            self.ptr = 0


class CFunctionAllocator:
    def __init__(self, param: int, malloc_func: int, free_func: int, owner):
        for name, value in (("param", param), ("malloc_func", malloc_func),
                            ("free_func", free_func)):
            if not isinstance(value, int):
                raise TypeError(f"an integer is required for {name}, not {type(value).__name__}")
        self._param, self._malloc_func, self._free_func = param, malloc_func, free_func
        self._owner = owner

    def malloc(self, size: int) -> "MemoryPointer":
        memory = CFunctionAllocatorMemory(size, self._param, self._malloc_func, self._free_func,
                                          runtime.getDevice())
        return MemoryPointer(memory, 0)


class MemoryPointer:
    def __init__(self, mem: BaseMemory, offset: int):
        self.mem, self.device_id = mem, mem.device_id
        self.ptr = mem.ptr + offset if mem.ptr else 0


class PinnedMemoryPointer:
    def __init__(self, mem, offset: int):
        self.mem, self.ptr = mem, getattr(mem, "ptr", 0) + offset


def _malloc(size: int) -> MemoryPointer:
    return MemoryPointer(Memory(size), 0)


class _Pool:
    def malloc(self, size: int) -> MemoryPointer:
        return _malloc(size)

    def free_all_blocks(self) -> None:
        pass

    def total_bytes(self) -> int:
        return 0


_default_pool, _default_pinned_pool = _Pool(), _Pool()
_current_allocator = _default_pool.malloc
_current_pinned_allocator = _default_pinned_pool.malloc


def set_allocator(allocator=None) -> None:
    global _current_allocator
    _current_allocator = allocator if allocator is not None else _malloc


def get_allocator():
    return _current_allocator


def set_pinned_memory_allocator(allocator=None) -> None:
    global _current_pinned_allocator
    _current_pinned_allocator = allocator


def alloc(size: int) -> MemoryPointer:
    """As cupy.cuda.alloc: the current allocator."""
    return get_allocator()(size)
