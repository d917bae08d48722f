/*
 * _dlpack.c: the DLPack exports of mrctx.Buffer (buffer.py), in C.
 *
 * A DLPack capsule's destructor, and the managed tensor's deleter, run
 * wherever the consumer lets go: on any thread, with or without the GIL
 * (PyTorch frees a tensor's storage with the GIL released), during
 * interpreter shutdown, and with an exception pending. numpy.from_dlpack of
 * a device tensor drops the capsule with its "Unsupported device" error
 * set: a destructor written in Python (a ctypes callback) then failed on
 * that pending error, the deleter never ran, the block leaked, and numpy
 * returned NULL without its exception (SystemError). Here nothing that
 * runs from a consumer can fail: the destructor reads the capsule, the
 * deleter counts the export done and drops its reference to the Buffer,
 * the pending exception saved and put back around it.
 *
 * An export is one malloc'd record: the managed tensor (legacy or
 * versioned) with its shape and strides, one reference to the Buffer
 * (which frees the memory only once nothing refers to it), and the
 * Buffer's counter of live exports. The package loads this module with
 * ctypes.PyDLL (its calls hold the GIL) and links no libpython: the few
 * CPython calls made here, all of the stable ABI, are handed to
 * mrctx_dlpack_init as function pointers from ctypes.pythonapi, so the
 * module loads into any CPython 3.9+ and the wheel stays py3-none.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

/* ---- DLPack's structs (dlpack.h, v1.0 ABI) --------------------------------- */

typedef struct {
  int32_t device_type;
  int32_t device_id;
} dl_device;

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} dl_data_type;

typedef struct {
  void *data;
  dl_device device;
  int32_t ndim;
  dl_data_type dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} dl_tensor;

typedef struct dl_managed_tensor {
  dl_tensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct dl_managed_tensor *self);
} dl_managed_tensor;

typedef struct dl_managed_tensor_versioned {
  struct {
    uint32_t major;
    uint32_t minor;
  } version;
  void *manager_ctx;
  void (*deleter)(struct dl_managed_tensor_versioned *self);
  uint64_t flags;
  dl_tensor dl_tensor;
} dl_managed_tensor_versioned;

enum { DL_UINT = 1 };

/* ---- The CPython calls, from the package (buffer.py, _DLPackPython) ------- */

typedef struct py_object py_object; /* PyObject */

/* The first field is the table's size, as the package's ctypes struct
 * says it; fields are only ever appended. */
typedef struct mrctx_dlpack_python {
  size_t size;
  int (*capsule_is_valid)(py_object *capsule, const char *name);
  void *(*capsule_get_pointer)(py_object *capsule, const char *name);
  int (*gil_ensure)(void);
  void (*gil_release)(int state);
  void (*err_fetch)(py_object **type, py_object **value, py_object **traceback);
  void (*err_restore)(py_object *type, py_object *value, py_object *traceback);
  void (*incref)(py_object *object);
  void (*decref)(py_object *object);
  int (*is_initialized)(void);
} mrctx_dlpack_python;

static mrctx_dlpack_python py;

/* Exports not yet let go of, in the whole process (tests). */
static long live_all;

/* ---- One export ------------------------------------------------------------ */

typedef struct export_record {
  union {
    dl_managed_tensor legacy;
    dl_managed_tensor_versioned versioned;
  } managed;
  int64_t shape[1];
  int64_t strides[1];
  py_object *owner; /* the Buffer: one reference */
  long *live;       /* the Buffer's count of live exports */
} export_record;

/* The consumer is done (or never took the tensor). Any thread, GIL held or
 * not; the Buffer's reference goes under the GIL, and its __del__ (which
 * frees the memory where nothing else holds the Buffer) catches what it
 * raises. After the interpreter has finalized, the reference is left: the
 * process is ending, and there is no Python to run. */
static void export_done(export_record *record) {
  __atomic_fetch_sub(record->live, 1, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&live_all, 1, __ATOMIC_RELAXED);
  if (py.is_initialized()) {
    int state = py.gil_ensure();
    py_object *type, *value, *traceback;
    py.err_fetch(&type, &value, &traceback);
    py.decref(record->owner);
    py.err_restore(type, value, traceback);
    py.gil_release(state);
  }
  free(record);
}

static void delete_legacy(dl_managed_tensor *self) {
  if (self != NULL) export_done(self->manager_ctx);
}

static void delete_versioned(dl_managed_tensor_versioned *self) {
  if (self != NULL) export_done(self->manager_ctx);
}

/* ---- What the package calls (GIL held: ctypes.PyDLL) ----------------------- */

EXPORT int mrctx_dlpack_init(const mrctx_dlpack_python *api);
EXPORT void *mrctx_dlpack_export(void *data, int device_type, int device_id, int64_t size,
                                 int versioned, py_object *owner, long *live);
EXPORT void mrctx_dlpack_discard(void *managed, int versioned);
EXPORT void mrctx_dlpack_capsule_destructor(py_object *capsule);
EXPORT long mrctx_dlpack_live(const long *live);

/* 0, or -1 where the package's table is older than this module's. */
int mrctx_dlpack_init(const mrctx_dlpack_python *api) {
  if (api == NULL || api->size < sizeof py) return -1;
  py = *api;
  py.size = sizeof py;
  return 0;
}

/* A managed tensor of `size` bytes (uint8, one dimension) at `data` on
 * the DLPack device (device_type, device_id), holding a reference to
 * `owner` and counted in *live, for a capsule named "dltensor_versioned"
 * (versioned) or "dltensor". NULL where memory ran out (nothing taken). */
void *mrctx_dlpack_export(void *data, int device_type, int device_id, int64_t size, int versioned,
                          py_object *owner, long *live) {
  export_record *record = calloc(1, sizeof *record);
  if (record == NULL) return NULL;
  record->shape[0] = size;
  record->strides[0] = 1;
  dl_tensor tensor = {.data = data,
                      .device = {device_type, device_id},
                      .ndim = 1,
                      .dtype = {DL_UINT, 8, 1},
                      .shape = record->shape,
                      .strides = record->strides,
                      .byte_offset = 0};
  if (versioned) {
    record->managed.versioned.version.major = 1;
    record->managed.versioned.version.minor = 0;
    record->managed.versioned.manager_ctx = record;
    record->managed.versioned.deleter = delete_versioned;
    record->managed.versioned.flags = 0;
    record->managed.versioned.dl_tensor = tensor;
  } else {
    record->managed.legacy.dl_tensor = tensor;
    record->managed.legacy.manager_ctx = record;
    record->managed.legacy.deleter = delete_legacy;
  }
  py.incref(owner);
  record->owner = owner;
  record->live = live;
  __atomic_fetch_add(live, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&live_all, 1, __ATOMIC_RELAXED);
  return record; /* the managed tensor is its first member */
}

/* An export no capsule was made for: let it go. */
void mrctx_dlpack_discard(void *managed, int versioned) {
  if (managed == NULL) return;
  if (versioned) {
    delete_versioned(managed);
  } else {
    delete_legacy(managed);
  }
}

/* PyCapsule_Destructor of both names. A consumer that took the tensor
 * renamed the capsule ("used_dltensor...") and calls the deleter itself;
 * one never taken is let go here. PyCapsule_IsValid and GetPointer with
 * the capsule's own name neither raise nor touch a pending exception. */
void mrctx_dlpack_capsule_destructor(py_object *capsule) {
  if (py.capsule_is_valid(capsule, "dltensor_versioned")) {
    delete_versioned(py.capsule_get_pointer(capsule, "dltensor_versioned"));
  } else if (py.capsule_is_valid(capsule, "dltensor")) {
    delete_legacy(py.capsule_get_pointer(capsule, "dltensor"));
  }
}

/* How many exports of one Buffer (its counter), or of the whole process
 * (NULL), are still held. */
long mrctx_dlpack_live(const long *live) {
  return __atomic_load_n(live != NULL ? live : &live_all, __ATOMIC_RELAXED);
}
