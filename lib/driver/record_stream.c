/*
 * record_stream.c: mr_record_stream, the streams a block is used on besides
 * the one it is freed on, and the waits a free of such a block makes.
 *
 * Every resource orders reuse by the freeing stream S: a block freed on S
 * goes to later work on S at once, and to another stream only once S has
 * passed the free. Work on a third stream R that still reads the block is
 * invisible to that rule. So a free of a recorded block first makes S wait
 * for an event recorded on each R (cuStreamWaitEvent): whatever the
 * resource then does, every later user is ordered after R's work queued
 * before the free, in every resource at once and with no resource knowing.
 * It is the scheme of PyTorch's cudaMallocAsync backend; the caching
 * allocator instead keeps the block out of its free lists until events
 * pass, which would need every keeping resource to learn it, and gains
 * only where S has later work that need not wait for R.
 *
 * A resource whose frees are not stream-ordered (sync_*, host) and
 * mr_deallocate_sync wait on the host for the events instead.
 *
 * The records: one lock and one pointer map from a block to its streams,
 * touched by mr_record_stream and by frees of recorded blocks only. A
 * stream is kept with its context and its stream ID: the driver gives a
 * destroyed stream's handle to the next stream created, while the
 * destroyed one's work may still run, and the ID (never reused) tells
 * them apart. A recorded stream gone by the free is waited for through its
 * context, which finishes the work it left.
 */
#include <mrctx/resource.h>

#include <pthread.h>
#include <stdlib.h>

#include "core/fork.h"
#include "core/ptrmap.h"
#include "driver/cuda_api.h"

typedef struct recorded_use {
  CUstream stream;
  CUcontext ctx;    /* the stream's: the event is made there */
  mri_stream_id id; /* cuStreamGetId at the record; 0 if it was capturing */
} recorded_use;

typedef struct recorded_block {
  size_t count, capacity;
  recorded_use uses[];
} recorded_block;

static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;
static mri_ptrmap *records; /* block -> recorded_block (value.raw) */
static mri_fork_lockable records_fork;
__attribute__((constructor)) static void records_fork_register(void) {
  mri_fork_register_mutex(&records_fork, &records_lock, MRI_FORK_RANK_LEAF);
}

static mr_status recorded_free(mr_resource *mr, void *ptr, mr_stream stream, bool sync);

/* The device a resource's memory lives on, for default-stream handles on a
 * thread without a context (-1: device 0, as the runtime would). */
static int resource_device(const mr_resource *mr) {
  mr_resource_props props = {.size = sizeof props};
  return mr_resource_get_props(mr, &props) == MR_OK ? props.device : -1;
}

/* Append `use` to `ptr`'s record unless that stream is there already.
 * Under records_lock. A record that grows is copied, and the copy takes
 * the old one's place in the map only once the map has room for it. */
static mr_status add_use(void *ptr, const recorded_use *use) {
  if (records == NULL && (records = mri_ptrmap_create()) == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_record_stream: out of host memory for the records");
  mri_ptrmap_value value;
  recorded_block *block = mri_ptrmap_get(records, ptr, &value) ? value.raw : NULL;
  if (block != NULL) {
    for (size_t i = 0; i < block->count; i++)
      if (block->uses[i].stream == use->stream && block->uses[i].id == use->id) return MR_OK;
    if (block->count < block->capacity) {
      block->uses[block->count++] = *use;
      return MR_OK;
    }
  }
  size_t count = block != NULL ? block->count : 0;
  size_t capacity = block != NULL ? 2 * block->capacity : 2;
  recorded_block *grown = malloc(sizeof *grown + capacity * sizeof grown->uses[0]);
  if (grown == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_record_stream: out of host memory for the records");
  grown->count = count;
  grown->capacity = capacity;
  for (size_t i = 0; i < count; i++) grown->uses[i] = block->uses[i];
  grown->uses[grown->count++] = *use;
  mri_ptrmap_value v = {.raw = grown};
  if (mri_ptrmap_put(records, ptr, v) != MR_OK) {
    free(grown);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_record_stream: out of host memory for the records");
  }
  if (block == NULL)
    atomic_fetch_add_explicit(&mri_recorded_blocks, 1, memory_order_release);
  else
    free(block);
  return MR_OK;
}

mr_status mr_record_stream(mr_resource *mr, void *ptr, mr_stream stream) {
  if (mr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_record_stream: resource is NULL");
  if (ptr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_record_stream: pointer is NULL");
  const mri_cuda_api *cu;
  if (mri_cuda_load(&cu) != MR_OK) return MR_OK; /* no driver: no stream work to wait for */
  int device = resource_device(mr);
  recorded_use use = {.stream = (CUstream)stream};
  mr_status st = mri_stream_context(stream, device);
  if (st != MR_OK) return st;
  CUresult r = cu->cuStreamGetCtx(use.stream, &use.ctx);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "mr_record_stream(%p, stream %p): cuStreamGetCtx", ptr, (void *)stream);
  bool capturing = false;
  st = mri_stream_is_capturing(stream, &capturing);
  /* A capturing stream has no ID to ask for (asking would end the capture). */
  if (st == MR_OK && !capturing) st = mri_stream_get_id(stream, device, &use.id);
  if (st != MR_OK) return st;
  /* The hook first: a free that sees the count sees the hook. */
  atomic_store_explicit(&mri_recorded_free_hook, recorded_free, memory_order_release);
  pthread_mutex_lock(&records_lock);
  st = add_use(ptr, &use);
  pthread_mutex_unlock(&records_lock);
  return st;
}

/* Take `ptr`'s record, or NULL. */
static recorded_block *take_record(void *ptr) {
  recorded_block *block = NULL;
  pthread_mutex_lock(&records_lock);
  mri_ptrmap_value value;
  if (records != NULL && mri_ptrmap_take(records, ptr, &value)) {
    block = value.raw;
    atomic_fetch_sub_explicit(&mri_recorded_blocks, 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&records_lock);
  return block;
}

/* Put a record back after a failed wait: the free did not happen, and a
 * later one must wait again. */
static void restore_record(void *ptr, recorded_block *block) {
  pthread_mutex_lock(&records_lock);
  mri_ptrmap_value value = {.raw = block};
  if (mri_ptrmap_put(records, ptr, value) == MR_OK)
    atomic_fetch_add_explicit(&mri_recorded_blocks, 1, memory_order_relaxed);
  else
    free(block); /* out of memory: the waits already made stand */
  pthread_mutex_unlock(&records_lock);
}

/* Whether `use`'s handle still names the stream recorded (its context
 * current). A capturing stream cannot say: taken as the same. */
static bool same_stream(const mri_cuda_api *cu, const recorded_use *use, CUresult *r) {
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  *r = cu->cuStreamIsCapturing(use->stream, &capture);
  if (*r != CUDA_SUCCESS) return false;
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE) return true;
  unsigned long long id = 0;
  *r = cu->cuStreamGetId(use->stream, &id);
  return *r == CUDA_SUCCESS && (use->id == 0 || id == use->id);
}

/* Make the free wait for `use`: `stream` waits for an event recorded on
 * it, or (host_wait) the calling thread does. */
static mr_status wait_for_use(const mri_cuda_api *cu, const recorded_use *use, mr_stream stream,
                              int device, bool host_wait, void *ptr) {
  CUresult r = cu->cuCtxPushCurrent(use->ctx);
  if (r == CUDA_ERROR_DEINITIALIZED) return MR_OK; /* the driver is gone, and all work with it */
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "freeing %p: cuCtxPushCurrent", ptr);
  CUevent event = NULL;
  CUresult same_r;
  if (!same_stream(cu, use, &same_r)) {
    /* Destroyed (its handle invalid, or another stream's now): what it
     * left runs on in its context, so wait for the whole context. */
    r = cu->cuCtxSynchronize(use->ctx);
  } else {
    r = cu->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING);
    if (r == CUDA_SUCCESS) r = cu->cuEventRecord(event, use->stream);
  }
  CUcontext popped;
  cu->cuCtxPopCurrent(&popped);
  if (r == CUDA_SUCCESS && event != NULL) {
    if (host_wait) {
      r = cu->cuEventSynchronize(event);
    } else {
      mr_status st = mri_stream_context(stream, device);
      if (st != MR_OK) {
        cu->cuEventDestroy(event);
        return st;
      }
      r = cu->cuStreamWaitEvent((CUstream)stream, event, CU_EVENT_WAIT_DEFAULT);
    }
  }
  if (event != NULL) cu->cuEventDestroy(event); /* a pending wait keeps what it needs */
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_DEINITIALIZED) return MR_OK;
  return mri_cuda_fail(r, "freeing %p: waiting for its recorded stream %p (stream %p frees it)",
                       ptr, (void *)use->stream, (void *)stream);
}

static mr_status recorded_free(mr_resource *mr, void *ptr, mr_stream stream, bool sync) {
  recorded_block *block = take_record(ptr);
  if (block == NULL) return MR_OK;
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL) {
    free(block);
    return MR_OK;
  }
  mr_resource_props props = {.size = sizeof props};
  bool host_wait = sync || mr_resource_get_props(mr, &props) != MR_OK || !props.stream_ordered;
  int device = props.device;
  /* The freeing stream's ID, to skip waiting for itself. */
  mri_stream_id freeing = 0;
  if (!host_wait) {
    bool capturing = false;
    if (mri_stream_is_capturing(stream, &capturing) == MR_OK && !capturing &&
        mri_stream_get_id(stream, device, &freeing) != MR_OK)
      freeing = 0;
  }
  for (size_t i = 0; i < block->count; i++) {
    const recorded_use *use = &block->uses[i];
    if (!host_wait && freeing != 0 && use->id == freeing) continue;
    mr_status st = wait_for_use(cu, use, stream, device, host_wait, ptr);
    if (st != MR_OK) {
      restore_record(ptr, block);
      return st;
    }
  }
  free(block);
  return MR_OK;
}
