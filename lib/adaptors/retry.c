/*
 * retry.c: "retry(UP, attempts=N)": recover from transient out-of-memory.
 *
 * A pool can be out of memory only for now: frees still pending on streams,
 * memory parked in caches and arenas. On MR_ERR_OUT_OF_MEMORY the adaptor
 * retries after each step, at most `attempts` retries in all:
 *   1. synchronize the allocating stream (its pending frees complete);
 *   2. synchronize the memory's device (device memory only) and trim the
 *      whole chain below (caches, arenas, fixed blocks give memory back);
 *   3. and on: ask the OOM handler (the resource's own, else the process-
 *      wide one), retrying while it returns true.
 * Other errors pass through unchanged. Thread-safe: it keeps no state per
 * call; the handler runs on the allocating thread with no mrctx lock held.
 */
#include <stdio.h>
#include <string.h>

#include "adaptors/adaptors_internal.h"
#include "driver/driver_internal.h"

typedef struct retry_state {
  mr_resource *upstream;
  char *description;
  int attempts;
  mr_oom_handler handler; /* NULL: the process-wide one */
  void *user;
  mr_resource *self; /* the resource, passed to the handler */
} retry_state;
MRI_ADAPTOR_STATE(retry_state);

static pthread_mutex_t global_handler_lock = PTHREAD_MUTEX_INITIALIZER;
static mr_oom_handler global_handler;
static void *global_user;
static mri_fork_lockable handler_fork;
__attribute__((constructor)) static void handler_fork_register(void) {
  mri_fork_register_mutex(&handler_fork, &global_handler_lock, MRI_FORK_RANK_LEAF);
}

void mr_set_oom_handler(mr_oom_handler handler, void *user) {
  pthread_mutex_lock(&global_handler_lock);
  global_handler = handler;
  global_user = user;
  pthread_mutex_unlock(&global_handler_lock);
}

static mr_oom_handler current_handler(const retry_state *s, void **user) {
  if (s->handler != NULL) {
    *user = s->user;
    return s->handler;
  }
  pthread_mutex_lock(&global_handler_lock);
  mr_oom_handler handler = global_handler;
  *user = global_user;
  pthread_mutex_unlock(&global_handler_lock);
  return handler;
}

/* Step 2: let every stream of the memory's device finish (its frees
 * complete), then have the chain give back what it caches. Memory with no
 * device of its own (host, pinned, managed) skips the device step. Failures
 * here do not end the recovery: the retry says whether memory came back. */
static void synchronize_device_and_trim(retry_state *s) {
  const mr_resource_props *props = &s->upstream->props;
  if (props->device >= 0) mri_device_synchronize(props->device);
  if (mr_resource_trim(s->upstream) != MR_OK) {
    /* Some memory may not have come back; the retry finds out. */
  }
}

static mr_status retry_after_oom(retry_state *s, size_t bytes, size_t alignment, mr_stream stream,
                                 void **ptr) __attribute__((noinline));

static mr_status retry_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  retry_state *s = self;
  mr_status st = mri_allocate(s->upstream, bytes, alignment, stream, ptr);
  if (MRI_LIKELY(st != MR_ERR_OUT_OF_MEMORY)) return st;
  return retry_after_oom(s, bytes, alignment, stream, ptr);
}

/* The recovery path, out of line so the common path stays a plain call. */
static mr_status retry_after_oom(retry_state *s, size_t bytes, size_t alignment, mr_stream stream,
                                 void **ptr) {
  mr_status st = MR_ERR_OUT_OF_MEMORY;

  char upstream_message[MRI_ERROR_CAPACITY];
  snprintf(upstream_message, sizeof upstream_message, "%s", mr_last_error());
  int retries = 0, handler_calls = 0;
  bool handler_declined = false;
  for (int attempt = 1; attempt <= s->attempts; attempt++) {
    if (attempt == 1) {
      if (mr_resource_synchronize(s->upstream, stream) != MR_OK) {
        /* The stream could not be waited for; the retry says if it mattered. */
      }
    } else if (attempt == 2) {
      synchronize_device_and_trim(s);
    } else {
      void *user = NULL;
      mr_oom_handler handler = current_handler(s, &user);
      if (handler == NULL) break;
      if (!handler(user, s->self, bytes, stream, ++handler_calls)) {
        handler_declined = true;
        break;
      }
    }
    *ptr = NULL;
    retries++;
    st = mri_allocate(s->upstream, bytes, alignment, stream, ptr);
    if (st != MR_ERR_OUT_OF_MEMORY) return st;
    snprintf(upstream_message, sizeof upstream_message, "%s", mr_last_error());
  }
  *ptr = NULL;
  char steps[160];
  if (retries == 0) {
    snprintf(steps, sizeof steps, "no retries allowed");
  } else {
    snprintf(steps, sizeof steps, "stream synchronized%s%s",
             retries >= 2 ? ", device synchronized and chain trimmed" : "",
             s->attempts > 2 && handler_calls == 0 ? ", no OOM handler set" : "");
  }
  if (handler_calls > 0) {
    size_t n = strlen(steps);
    snprintf(steps + n, sizeof steps - n, ", OOM handler called %d time%s%s", handler_calls,
             handler_calls == 1 ? "" : "s", handler_declined ? " until it gave up" : "");
  }
  return mri_error(MR_ERR_OUT_OF_MEMORY,
                   "%s: still out of memory for %zu bytes on stream %p after %d retr%s (%s): %s",
                   s->description, bytes, (void *)stream, retries, retries == 1 ? "y" : "ies",
                   steps, upstream_message);
}

static mr_status retry_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  retry_state *s = self;
  return mri_deallocate(s->upstream, ptr, bytes, alignment, stream);
}

static void retry_destroy(void *self) { mri_adaptor_free(self); }

static const mr_resource_ops retry_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "retry",
    .allocate = retry_allocate,
    .deallocate = retry_deallocate,
    .synchronize = mri_forward_synchronize,
    .trim = mri_forward_trim,
    .destroy = retry_destroy,
};

mr_status mr_retry_resource_create(mr_resource *upstream, int attempts, mr_oom_handler handler,
                                   void *user, mr_resource **out) {
  mr_status st = mri_adaptor_check(&retry_ops, upstream, out);
  if (st != MR_OK) return st;
  if (attempts < 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "retry(%s): attempts %d is negative (0 means the default, %d)",
                     mr_resource_describe(upstream), attempts, MR_RETRY_DEFAULT_ATTEMPTS);
  if (attempts == 0) attempts = MR_RETRY_DEFAULT_ATTEMPTS;
  /* The default attempt count is left out, so "retry(device)" stays so. */
  retry_state *s =
      attempts == MR_RETRY_DEFAULT_ATTEMPTS
          ? mri_adaptor_alloc(sizeof *s, upstream, "retry(%s)", mr_resource_describe(upstream))
          : mri_adaptor_alloc(sizeof *s, upstream, "retry(%s, attempts=%d)",
                              mr_resource_describe(upstream), attempts);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->attempts = attempts;
  s->handler = handler;
  s->user = user;
  st = mri_adaptor_create(&retry_ops, s, MRI_ADAPTOR_PASSES, MR_OK, out);
  if (st == MR_OK) s->self = *out;
  return st;
}

bool mri_is_retry(const mr_resource *mr) { return mr_resource_state(mr, &retry_ops) != NULL; }
