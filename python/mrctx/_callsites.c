/*
 * _callsites.c: Python call sites for track(UP, stacks=N) (mrctx/_frames.py).
 *
 * The package registers mrctx_frames_source with mr_track_set_frame_source:
 * each block a track with stacks records then names the Python lines that
 * asked for it (file, line, function; innermost first), before the native
 * frames, as PyTorch's memory history does with stacks="python".
 *
 * The source runs inside the allocation, on the allocating thread, possibly
 * under an outer adaptor's lock. It must never take the GIL there: a thread
 * waiting for that lock while holding the GIL would deadlock with it. So it
 * reads Python frames only in two cases, and otherwise gives none (a
 * PyTorch allocation on an autograd thread, or any call made with the GIL
 * released by someone else):
 *
 * - The thread holds the GIL (CuPy's C allocator, the PyTorch shim called
 *   from Python with the GIL held, any C extension that allocates so): the
 *   live frames are walked. The code objects of frames still running stay
 *   alive until the allocation returns, and so do their co_filename and
 *   co_name, whose UTF-8 the frames point into. The garbage collector is
 *   held off meanwhile: a frame object made for the walk could otherwise
 *   start a collection, whose finalizers would run inside the allocation.
 *
 * - The package's own calls (Resource.allocate and everything over it:
 *   Buffer, the CuPy, Numba and cuda.core hooks) go through ctypes.CDLL,
 *   which releases the GIL around the call, so the walk above would find
 *   nothing. For a resource whose chain keeps stacks, the package calls
 *   mrctx_frames_allocate instead (through ctypes.PyDLL: the GIL held). It
 *   captures the caller's frames first, holding a reference to each code
 *   object, releases the GIL itself around mr_allocate (as ctypes would:
 *   the allocation may wait for the driver, a reclaim or another thread),
 *   and lets go of the frames after. While it runs the source hands out the
 *   captured frames, read from this thread's own record without the GIL:
 *   the objects are kept alive by those references, and a str's UTF-8
 *   never changes once made.
 *
 * The package's own frames (files under its folder) are skipped, so the
 * innermost frame is the user's line. Nothing here fails an allocation:
 * what cannot be read is left out.
 *
 * Like _dlpack.c, the module links no libpython: the CPython calls it makes
 * come from ctypes.pythonapi as function pointers (mrctx_frames_init), and
 * it links no libmrctx either (the package hands it mr_allocate's address),
 * so it loads into any CPython 3.9+.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <mrctx/adaptors.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct py_object py_object; /* PyObject */

/* The CPython calls, from the package (_frames.py, _FramesPython). The
 * first field is the table's size; fields are only ever appended. */
typedef struct mrctx_frames_python {
  size_t size;
  void *(*this_thread_state)(void);    /* PyGILState_GetThisThreadState */
  void *(*current_thread_state)(void); /* the GIL holder's; NULL: use gil_check */
  int (*gil_check)(void);              /* PyGILState_Check */
  py_object *(*get_frame)(void);       /* PyEval_GetFrame: borrowed */
  py_object *(*frame_back)(py_object *frame);
  py_object *(*frame_code)(py_object *frame);
  int (*frame_line)(py_object *frame);
  py_object *(*get_attr)(py_object *object, py_object *name);
  const char *(*utf8)(py_object *text, ssize_t *size);
  void (*incref)(py_object *object);
  void (*decref)(py_object *object);
  void (*err_fetch)(py_object **type, py_object **value, py_object **traceback);
  void (*err_restore)(py_object *type, py_object *value, py_object *traceback);
  int (*gc_disable)(void); /* NULL before Python 3.10 */
  int (*gc_enable)(void);
  void *(*save_thread)(void);
  void (*restore_thread)(void *state);
  py_object *co_filename; /* interned attribute names, kept by the package */
  py_object *co_name;
  const char *package_dir; /* the package's folder, with its final '/' */
} mrctx_frames_python;

typedef mr_status (*allocate_fn)(mr_resource *mr, size_t bytes, size_t alignment, mr_stream stream,
                                 void **ptr);
typedef mr_status (*allocate_sync_fn)(mr_resource *mr, size_t bytes, size_t alignment, void **ptr);

/* What the package calls (and registers: mrctx_frames_source). */
EXPORT size_t mrctx_frames_source(void *user, mr_track_frame *frames, size_t cap);
EXPORT int mrctx_frames_init(const mrctx_frames_python *api);
EXPORT mr_status mrctx_frames_allocate(allocate_fn allocate, allocate_sync_fn allocate_sync,
                                       int sync, mr_resource *mr, size_t bytes, size_t alignment,
                                       mr_stream stream, void **ptr, size_t depth);

static mrctx_frames_python py;
static char *package_dir;
static size_t package_dir_length;

/* ---- walking frames (the GIL held) ------------------------------------------------ */

typedef struct captured {
  mr_track_frame frames[MR_TRACK_MAX_STACKS];
  py_object *codes[MR_TRACK_MAX_STACKS]; /* with `keep`: one reference each */
  size_t count;
} captured;

/* Up to `cap` frames of this thread, innermost first, the package's own
 * skipped. With `keep` each code object's reference is kept in `out` (the
 * caller lets go of it, under the GIL); without, it is dropped at once and
 * the strings stay valid only while the frames run. */
static void walk(captured *out, size_t cap, int keep) {
  out->count = 0;
  py_object *type, *value, *traceback;
  py.err_fetch(&type, &value, &traceback);
  int collecting = py.gc_disable != NULL ? py.gc_disable() : 0;
  py_object *frame = py.get_frame();
  if (frame != NULL) py.incref(frame);
  while (frame != NULL && out->count < cap) {
    py_object *code = py.frame_code(frame);
    py_object *file = code != NULL ? py.get_attr(code, py.co_filename) : NULL;
    py_object *name = code != NULL ? py.get_attr(code, py.co_name) : NULL;
    const char *file_text = file != NULL ? py.utf8(file, NULL) : NULL;
    const char *name_text = name != NULL ? py.utf8(name, NULL) : NULL;
    int ours = file_text != NULL && package_dir_length > 0 &&
               strncmp(file_text, package_dir, package_dir_length) == 0;
    if (file_text != NULL && !ours) {
      int line = py.frame_line(frame);
      out->frames[out->count] = (mr_track_frame){
          .file = file_text, .function = name_text, .line = line > 0 ? (uint32_t)line : 0};
      out->codes[out->count] = code; /* keeps file and name alive */
      out->count++;
      if (keep) code = NULL;
    }
    /* Attributes of a code object: it keeps them; so does a running frame
     * its code. */
    if (file != NULL) py.decref(file);
    if (name != NULL) py.decref(name);
    if (code != NULL) py.decref(code);
    py_object *back = py.frame_back(frame);
    py.decref(frame);
    frame = back;
  }
  if (frame != NULL) py.decref(frame);
  if (collecting) py.gc_enable();
  py.err_restore(type, value, traceback); /* and drops any error of the walk's */
}

/* Whether this thread holds the GIL. PyGILState_Check alone says yes on
 * every thread once a subinterpreter exists, and after finalization. */
static int holds_gil(void) {
  void *mine = py.this_thread_state();
  if (mine == NULL) return 0;
  if (py.current_thread_state != NULL) return py.current_thread_state() == mine;
  return py.gil_check();
}

/* ---- the source ------------------------------------------------------------------- */

/* The frames mrctx_frames_allocate captured, while it runs on this thread
 * (NULL otherwise); a nested one (an allocation made from a callback inside
 * the allocation) stacks its own over it. */
static _Thread_local const captured *pending;

EXPORT size_t mrctx_frames_source(void *user, mr_track_frame *frames, size_t cap) {
  (void)user;
  if (pending != NULL) {
    size_t n = pending->count < cap ? pending->count : cap;
    memcpy(frames, pending->frames, n * sizeof *frames);
    return n;
  }
  if (py.size == 0 || !holds_gil()) return 0;
  captured live;
  walk(&live, cap < MR_TRACK_MAX_STACKS ? cap : MR_TRACK_MAX_STACKS, 0);
  memcpy(frames, live.frames, live.count * sizeof *frames);
  return live.count;
}

/* ---- what the package calls (ctypes.PyDLL: the GIL held) -------------------------- */

/* 0, or -1 where the table is older than this module's (a package of
 * another version). Once only: the package registers the source again
 * after removing it (tests) with the same table, while other threads may
 * be in mrctx_frames_allocate reading it. */
EXPORT int mrctx_frames_init(const mrctx_frames_python *api) {
  if (py.size != 0) return 0;
  if (api == NULL || api->size < sizeof py || api->package_dir == NULL) return -1;
  size_t n = strlen(api->package_dir);
  char *dir = malloc(n + 1);
  if (dir == NULL) return -1;
  memcpy(dir, api->package_dir, n + 1);
  py = *api;
  package_dir = dir;
  package_dir_length = n;
  py.package_dir = dir;
  return 0;
}

/* mr_allocate (`allocate`, `sync` 0) or mr_allocate_sync (`allocate_sync`,
 * `sync` 1: `stream` unused) with the caller's `depth` innermost frames
 * captured for the tracks of the chain, the GIL released around the call.
 * The package passes both functions' addresses: this module links no
 * libmrctx. */
EXPORT mr_status mrctx_frames_allocate(allocate_fn allocate, allocate_sync_fn allocate_sync,
                                       int sync, mr_resource *mr, size_t bytes, size_t alignment,
                                       mr_stream stream, void **ptr, size_t depth) {
  captured mine;
  walk(&mine, depth < MR_TRACK_MAX_STACKS ? depth : MR_TRACK_MAX_STACKS, 1);
  const captured *outer = pending;
  pending = &mine;
  void *state = py.save_thread();
  mr_status st =
      sync ? allocate_sync(mr, bytes, alignment, ptr) : allocate(mr, bytes, alignment, stream, ptr);
  py.restore_thread(state);
  pending = outer;
  for (size_t i = 0; i < mine.count; i++) py.decref(mine.codes[i]);
  return st;
}
