/*
 * fakecuda_streams.c: the fake CUDA driver's streams (work, capture,
 * IDs, waits) and events, and the entry points it does not model (graphs,
 * modules, kernels).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fakecuda_internal.h"

/* ---- streams ------------------------------------------------------------------ */

static CUresult do_stream_create(CUstream *stream, unsigned int flags) {
  if (stream == NULL || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  struct CUstream_st *s = destroyed_streams;
  if (s != NULL)
    destroyed_streams = s->next;
  else if ((s = malloc(sizeof *s)) == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  s->flags = flags;
  s->id = ++next_stream_id;
  s->next = streams;
  streams = s;
  *stream = s;
  return CUDA_SUCCESS;
}

CUresult fake_cuStreamCreate(CUstream *stream, unsigned int flags) {
  FAKE_CALL(cuStreamCreate, NEEDS_INIT, do_stream_create(stream, flags));
}

static CUresult do_stream_destroy(CUstream stream) {
  for (struct CUstream_st **link = &streams; *link != NULL; link = &(*link)->next) {
    struct CUstream_st *s = *link;
    if (s != stream) continue;
    *link = s->next;
    /* Its work runs on (events keep waiting for it); its handle is the next
     * stream's. */
    s->next = destroyed_streams;
    destroyed_streams = s;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_HANDLE;
}

CUresult fake_cuStreamDestroy(CUstream stream) {
  FAKE_CALL(cuStreamDestroy, NEEDS_INIT, do_stream_destroy(stream));
}

static CUresult do_stream_synchronize(CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (s->capturing) {
    /* As the real driver: refused, and the capture is invalidated. */
    s->capture_invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  finish_stream(s);
  release_all_pools();
  return CUDA_SUCCESS;
}

CUresult fake_cuStreamSynchronize(CUstream stream) {
  FAKE_CALL(cuStreamSynchronize, NEEDS_INIT, do_stream_synchronize(stream));
}

static CUresult do_stream_query(CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  return stream_busy(s) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

CUresult fake_cuStreamQuery(CUstream stream) {
  FAKE_CALL(cuStreamQuery, NEEDS_INIT, do_stream_query(stream));
}

static CUresult do_stream_is_capturing(CUstream stream, CUstreamCaptureStatus *status) {
  if (status == NULL) return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  *status = s->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

CUresult fake_cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status) {
  FAKE_CALL(cuStreamIsCapturing, NEEDS_INIT, do_stream_is_capturing(stream, status));
}

static CUresult do_stream_get_id(CUstream stream, unsigned long long *id) {
  if (id == NULL) return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (s->capturing) {
    /* As the real driver: refused, and the capture is invalidated. */
    s->capture_invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  *id = s == &s->ctx->legacy       ? legacy_stream_id(s->ctx)
        : s == &s->ctx->per_thread ? per_thread_stream_id(s->ctx)
                                   : s->id;
  return CUDA_SUCCESS;
}

CUresult fake_cuStreamGetId(CUstream stream, unsigned long long *id) {
  FAKE_CALL(cuStreamGetId, NEEDS_INIT, do_stream_get_id(stream, id));
}

static CUresult do_stream_get_ctx(CUstream stream, CUcontext *ctx) {
  if (ctx == NULL) return CUDA_ERROR_INVALID_VALUE;
  *ctx = NULL;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r == CUDA_SUCCESS) *ctx = s->ctx;
  return r;
}

CUresult fake_cuStreamGetCtx(CUstream stream, CUcontext *ctx) {
  FAKE_CALL(cuStreamGetCtx, NEEDS_INIT, do_stream_get_ctx(stream, ctx));
}

/* Only CU_STREAM_WAIT_VALUE_GEQ is modelled: the stream's later work waits
 * until the 32-bit word at `addr` (host memory here) reaches `value`. */
static CUresult do_stream_wait_value32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                       unsigned int flags) {
  if (addr == 0 || addr % 4 != 0) return CUDA_ERROR_INVALID_VALUE;
  if (flags != CU_STREAM_WAIT_VALUE_GEQ) return CUDA_ERROR_NOT_SUPPORTED;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  return add_work(s, (const volatile cuuint32_t *)(uintptr_t)addr, value);
}

CUresult fake_cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                  unsigned int flags) {
  FAKE_CALL(cuStreamWaitValue32, NEEDS_INIT, do_stream_wait_value32(stream, addr, value, flags));
}

static CUresult do_stream_wait_event(CUstream stream, CUevent event, unsigned int flags) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  struct CUevent_st *e = find_event(event);
  if (e == NULL) return CUDA_ERROR_INVALID_HANDLE;
  if (flags != CU_EVENT_WAIT_DEFAULT && flags != CU_EVENT_WAIT_EXTERNAL)
    return CUDA_ERROR_INVALID_VALUE;
  /* The stream's later work waits for the work the event recorded. */
  return event_pending(e) ? add_wait(s, e->work) : CUDA_SUCCESS;
}

CUresult fake_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  FAKE_CALL(cuStreamWaitEvent, NEEDS_INIT, do_stream_wait_event(stream, event, flags));
}

static CUresult do_begin_capture(CUstream stream, CUstreamCaptureMode mode) {
  if (stream == NULL || stream == CU_STREAM_LEGACY) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
      mode != CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  s->capturing = true;
  s->capture_begun = true;
  s->capture_mode = mode;
  return CUDA_SUCCESS;
}

CUresult fake_cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode) {
  FAKE_CALL(cuStreamBeginCapture, NEEDS_INIT, do_begin_capture(stream, mode));
}

/* Graphs are not modelled: a capture ends with a NULL graph. */
static CUresult do_end_capture(CUstream stream, CUgraph *graph) {
  if (graph == NULL) return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (!s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  s->capturing = false;
  s->capture_begun = false;
  *graph = NULL;
  if (s->capture_invalidated) {
    s->capture_invalidated = false;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  return CUDA_SUCCESS;
}

CUresult fake_cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  FAKE_CALL(cuStreamEndCapture, NEEDS_INIT, do_end_capture(stream, graph));
}

extern _Thread_local CUstreamCaptureMode fake_thread_capture_mode;

static CUresult do_exchange_capture_mode(CUstreamCaptureMode *mode) {
  if (mode == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (*mode != CU_STREAM_CAPTURE_MODE_GLOBAL && *mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
      *mode != CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_ERROR_INVALID_VALUE;
  CUstreamCaptureMode previous = fake_thread_capture_mode;
  fake_thread_capture_mode = *mode;
  *mode = previous;
  return CUDA_SUCCESS;
}

CUresult fake_cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  FAKE_CALL(cuThreadExchangeStreamCaptureMode, NEEDS_INIT, do_exchange_capture_mode(mode));
}

/* ---- not modelled: graphs, modules, kernels ----------------------------------- */

CUresult fake_cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags) {
  FAKE_CALL(cuGraphInstantiateWithFlags, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

CUresult fake_cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  FAKE_CALL(cuGraphLaunch, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

CUresult fake_cuGraphExecDestroy(CUgraphExec exec) {
  FAKE_CALL(cuGraphExecDestroy, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

CUresult fake_cuGraphDestroy(CUgraph graph) {
  FAKE_CALL(cuGraphDestroy, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

CUresult fake_cuModuleLoadData(CUmodule *module, const void *image) {
  FAKE_CALL(cuModuleLoadData, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

CUresult fake_cuModuleUnload(CUmodule module) {
  FAKE_CALL(cuModuleUnload, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

CUresult fake_cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  FAKE_CALL(cuModuleGetFunction, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

CUresult fake_cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y,
                             unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                             unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                             void **params, void **extra) {
  FAKE_CALL(cuLaunchKernel, NEEDS_INIT, CUDA_ERROR_NOT_SUPPORTED);
}

/* ---- events --------------------------------------------------------------------- */

static CUresult do_event_create(CUevent *event, unsigned int flags) {
  const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
  if (event == NULL || (flags & ~known) != 0) return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  struct CUevent_st *e = calloc(1, sizeof *e);
  if (e == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  e->ctx = ctx;
  e->flags = flags;
  e->next = events;
  events = e;
  *event = e;
  return CUDA_SUCCESS;
}

CUresult fake_cuEventCreate(CUevent *event, unsigned int flags) {
  FAKE_CALL(cuEventCreate, NEEDS_INIT, do_event_create(event, flags));
}

static CUresult do_event_record(CUevent event, CUstream stream) {
  struct CUevent_st *e = find_event(event);
  if (e == NULL) return CUDA_ERROR_INVALID_HANDLE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  e->work = stream_busy(s) ? s->work : NULL;
  return CUDA_SUCCESS;
}

CUresult fake_cuEventRecord(CUevent event, CUstream stream) {
  FAKE_CALL(cuEventRecord, NEEDS_INIT, do_event_record(event, stream));
}

static CUresult do_event_query(CUevent event) {
  struct CUevent_st *e = find_event(event);
  if (e == NULL) return CUDA_ERROR_INVALID_HANDLE;
  return event_pending(e) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

CUresult fake_cuEventQuery(CUevent event) {
  FAKE_CALL(cuEventQuery, NEEDS_INIT, do_event_query(event));
}

static CUresult do_event_synchronize(CUevent event) {
  struct CUevent_st *e = find_event(event);
  if (e == NULL) return CUDA_ERROR_INVALID_HANDLE;
  if (event_pending(e)) finish_work(e->work); /* the wait lets the work finish */
  e->work = NULL;
  release_all_pools();
  return CUDA_SUCCESS;
}

CUresult fake_cuEventSynchronize(CUevent event) {
  FAKE_CALL(cuEventSynchronize, NEEDS_INIT, do_event_synchronize(event));
}

static CUresult do_event_destroy(CUevent event) {
  for (struct CUevent_st **link = &events; *link != NULL; link = &(*link)->next) {
    if (*link != event) continue;
    struct CUevent_st *e = *link;
    *link = e->next;
    free(e);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_HANDLE;
}

CUresult fake_cuEventDestroy(CUevent event) {
  FAKE_CALL(cuEventDestroy, NEEDS_INIT, do_event_destroy(event));
}
