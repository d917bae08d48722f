/*
 * fakecuda_control.c: the control API of fakecuda.h (configuration,
 * injected failures, what is live) and the random failures enter() asks
 * about.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakecuda_internal.h"

/* ---- control API ------------------------------------------------------------------ */

CUresult fake_cuda_set_device_count(int count) {
  lock_state();
  CUresult r = CUDA_SUCCESS;
  if (initialized)
    r = CUDA_ERROR_ILLEGAL_STATE;
  else if (count < 0 || count > FAKE_CUDA_MAX_DEVICES)
    r = CUDA_ERROR_INVALID_VALUE;
  else {
    device_count = count;
    count_set = true;
  }
  unlock_state();
  return r;
}

int fake_cuda_device_count(void) {
  lock_state();
  int n = device_count;
  unlock_state();
  return n;
}

CUresult fake_cuda_set_device_name(int device, const char *name) {
  lock_state();
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (valid_device(device) && name != NULL) {
    snprintf(devices[device].name, sizeof devices[device].name, "%s", name);
    r = CUDA_SUCCESS;
  }
  unlock_state();
  return r;
}

CUresult fake_cuda_set_total_memory(int device, size_t bytes) {
  lock_state();
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (valid_device(device)) {
    devices[device].total_memory = bytes;
    r = CUDA_SUCCESS;
  }
  unlock_state();
  return r;
}

CUresult fake_cuda_set_attribute(int device, CUdevice_attribute attribute, int value) {
  lock_state();
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (valid_device(device) && (int)attribute > 0 && attribute < CU_DEVICE_ATTRIBUTE_MAX) {
    devices[device].attributes[attribute] = value;
    r = CUDA_SUCCESS;
  }
  unlock_state();
  return r;
}

CUresult fake_cuda_set_peer_access(int device, int peer, bool can) {
  lock_state();
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (valid_device(device) && valid_device(peer) && device != peer) {
    devices[device].peer[peer] = can;
    r = CUDA_SUCCESS;
  }
  unlock_state();
  return r;
}

void fake_cuda_set_host_memory(size_t bytes) {
  lock_state();
  host_total = bytes;
  unlock_state();
}

void fake_cuda_set_driver_version(int version) {
  lock_state();
  driver_version = version;
  unlock_state();
}

void fake_cuda_set_deinitialized(bool value) {
  lock_state();
  deinitialized = value;
  unlock_state();
}

void fake_cuda_fail(const char *entry_point, long nth_call, long count, CUresult error) {
  int i = entry_index_or_abort("fake_cuda_fail", entry_point);
  if (count > 0 && nth_call < 1) {
    fprintf(stderr, "fake_cuda_fail(%s): nth_call %ld is not 1 or more\n", entry_point, nth_call);
    abort();
  }
  lock_state();
  failures[i] = count > 0
                    ? (fake_failure){.first = calls[i] + nth_call, .count = count, .error = error}
                    : (fake_failure){0};
  unlock_state();
}

long fake_cuda_calls(const char *entry_point) {
  int i = entry_index_or_abort("fake_cuda_calls", entry_point);
  lock_state();
  long n = calls[i];
  unlock_state();
  return n;
}

void fake_cuda_reset(void) {
  lock_state();
  apply_defaults();
  ctx_depth = 0;
  unlock_state();
}

long fake_cuda_live_allocations(void) {
  lock_state();
  long n = live_allocations;
  unlock_state();
  return n;
}

size_t fake_cuda_imported_bytes(void) {
  lock_state();
  size_t n = 0;
  for (const struct CUmemPoolHandle_st *p = pools; p != NULL; p = p->next)
    if (p->imported) n += (size_t)p->used;
  unlock_state();
  return n;
}

long fake_cuda_live_pools(void) {
  lock_state();
  long n = 0;
  for (const struct CUmemPoolHandle_st *p = pools; p != NULL; p = p->next) n++;
  unlock_state();
  return n;
}

long fake_cuda_live_streams(void) {
  lock_state();
  long n = 0;
  for (const struct CUstream_st *s = streams; s != NULL; s = s->next) n++;
  unlock_state();
  return n;
}

long fake_cuda_live_events(void) {
  lock_state();
  long n = 0;
  for (const struct CUevent_st *e = events; e != NULL; e = e->next) n++;
  unlock_state();
  return n;
}

fake_vmm_books fake_cuda_vmm_books(void) {
  lock_state();
  fake_vmm_books b = vmm_books();
  unlock_state();
  return b;
}

size_t fake_cuda_used_memory(int device) {
  lock_state();
  size_t n = device < 0 ? host_used : valid_device(device) ? devices[device].used : 0;
  unlock_state();
  return n;
}

int fake_cuda_allocation_device(const void *ptr) {
  lock_state();
  const fake_alloc *a = find_alloc(ptr);
  int d = a != NULL ? a->charged_to : -2;
  unlock_state();
  return d;
}

CUmemoryPool fake_cuda_allocation_pool(const void *ptr) {
  lock_state();
  const fake_alloc *a = find_alloc(ptr);
  CUmemoryPool p = a != NULL ? a->pool : NULL;
  unlock_state();
  return p;
}

CUmemAccess_flags fake_cuda_pool_access(CUmemoryPool pool, int device) {
  lock_state();
  const struct CUmemPoolHandle_st *p = find_pool(pool);
  CUmemAccess_flags f =
      p != NULL && valid_device(device) ? p->access[device] : CU_MEM_ACCESS_FLAGS_PROT_NONE;
  unlock_state();
  return f;
}

CUcontext fake_cuda_current_context(void) { return current_ctx(); }

/* The stream a control call names; the per-thread stream cannot be driven. */
static CUresult control_stream(CUstream stream, struct CUstream_st **out) {
  if (stream == CU_STREAM_PER_THREAD) return CUDA_ERROR_NOT_SUPPORTED;
  return resolve_stream(stream, out);
}

CUresult fake_cuda_set_stream_busy(CUstream stream, bool busy) {
  lock_state();
  struct CUstream_st *s;
  CUresult r = control_stream(stream, &s);
  if (r == CUDA_SUCCESS) {
    if (busy && !stream_busy(s))
      r = add_work(s, NULL, 0);
    else if (!busy && s->work != NULL)
      s->work->done = true;
  }
  unlock_state();
  return r;
}

CUresult fake_cuda_set_stream_capturing(CUstream stream, bool capturing) {
  lock_state();
  struct CUstream_st *s;
  CUresult r = control_stream(stream, &s);
  if (r == CUDA_SUCCESS) s->capturing = capturing;
  unlock_state();
  return r;
}

/* ---- random failures ---------------------------------------------------------------- */

/* One generator for the whole process, drawn under the lock once per call
 * that may fail: for a seed, the n-th such call since arming always gets the
 * same draw. Which call is n-th depends on how threads interleave; a
 * single-threaded run repeats exactly. */
static double random_probability; /* 0: off */
static uint64_t random_state;
static CUresult random_error_code;
static long random_failures;
static bool random_exempt[FAKE_EP_COUNT];

/* What never fails at random: loading and initializing the driver, and
 * error names (the library's messages need them, as in the driver). */
void random_failure_reset(void) {
  random_probability = 0;
  random_state = 0;
  random_error_code = CUDA_SUCCESS;
  random_failures = 0;
  memset(random_exempt, 0, sizeof random_exempt);
  random_exempt[FAKE_EP_cuInit] = true;
  random_exempt[FAKE_EP_cuDriverGetVersion] = true;
  random_exempt[FAKE_EP_cuGetErrorName] = true;
  random_exempt[FAKE_EP_cuGetErrorString] = true;
  random_exempt[FAKE_EP_cuGetProcAddress] = true;
}

/* splitmix64: any seed, 0 included, gives a full-period sequence. */
static uint64_t random_next(void) {
  uint64_t z = (random_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool random_failure(enum fake_entry entry, CUresult *error) {
  if (random_probability <= 0 || random_exempt[entry]) return false;
  /* The top 53 bits as a double in [0, 1). */
  double draw = (double)(random_next() >> 11) * (1.0 / 9007199254740992.0);
  if (draw >= random_probability) return false;
  random_failures++;
  *error = random_error_code;
  return true;
}

void fake_cuda_fail_randomly(double probability, unsigned seed, CUresult error) {
  lock_state();
  if (probability > 0 && error != CUDA_SUCCESS) {
    random_probability = probability;
    random_state = seed;
    random_error_code = error;
  } else {
    random_probability = 0;
  }
  unlock_state();
}

void fake_cuda_fail_randomly_exempt(const char *entry_point, bool exempt) {
  int i = entry_index_or_abort("fake_cuda_fail_randomly_exempt", entry_point);
  lock_state();
  random_exempt[i] = exempt;
  unlock_state();
}

long fake_cuda_random_failures(void) {
  lock_state();
  long n = random_failures;
  unlock_state();
  return n;
}
