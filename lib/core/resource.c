/*
 * resource.c: the resource object: creation, reference counting, argument
 * checks, over-aligned allocation, descriptions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/ptrmap.h"

atomic_size_t mri_recorded_blocks;
_Atomic(mri_recorded_free_fn) mri_recorded_free_hook;

const char *mr_memory_kind_name(mr_memory_kind kind) {
  switch (kind) {
  case MR_MEMORY_HOST:
    return "host";
  case MR_MEMORY_PINNED:
    return "pinned";
  case MR_MEMORY_DEVICE:
    return "device";
  case MR_MEMORY_MANAGED:
    return "managed";
  }
  return "unknown";
}

mr_resource_props mri_memory_kind_props(mr_memory_kind kind, int device, bool stream_ordered,
                                        size_t native_alignment) {
  return (mr_resource_props){
      .size = sizeof(mr_resource_props),
      .kind = kind,
      .device = kind == MR_MEMORY_DEVICE ? device : -1,
      .host_accessible = kind != MR_MEMORY_DEVICE,
      .device_accessible = kind != MR_MEMORY_HOST,
      .stream_ordered = stream_ordered,
      .native_alignment = native_alignment,
  };
}

/* The oldest ops table we accept: one that has the two required methods. */
#define MRI_OPS_MIN_SIZE MRI_SIZE_THROUGH(mr_resource_ops, deallocate)

/* Whether an ops table of `size` bytes ends where a header's table can end:
 * after one of its members, from deallocate on (an older header's table
 * ends after the last method it knew), or, for a newer header, after more
 * methods, each a function pointer, within the growth every versioned
 * struct has. Any other size ends partway through a method pointer: the
 * bytes the library would take for the rest of that pointer are not the
 * caller's, and calling them would jump to a garbage address. */
static bool ops_size_is_whole(size_t size) {
  static const size_t ends[] = {
      MRI_SIZE_THROUGH(mr_resource_ops, deallocate),
      MRI_SIZE_THROUGH(mr_resource_ops, allocate_sync),
      MRI_SIZE_THROUGH(mr_resource_ops, deallocate_sync),
      MRI_SIZE_THROUGH(mr_resource_ops, synchronize),
      MRI_SIZE_THROUGH(mr_resource_ops, trim),
      MRI_SIZE_THROUGH(mr_resource_ops, describe),
      MRI_SIZE_THROUGH(mr_resource_ops, destroy),
  };
  _Static_assert(sizeof(mr_resource_ops) == MRI_SIZE_THROUGH(mr_resource_ops, destroy),
                 "a method appended to mr_resource_ops goes into ops_size_is_whole");
  for (size_t i = 0; i < MRI_ARRAY_SIZE(ends); i++)
    if (size == ends[i]) return true;
  size_t method = sizeof(((mr_resource_ops *)0)->destroy);
  size_t known = sizeof(mr_resource_ops);
  return size > known && size - known <= MRI_STRUCT_MAX_GROWTH && (size - known) % method == 0;
}

mr_status mri_resource_create(const mr_resource_ops *ops, void *state,
                              const mr_resource_props *props, mr_resource *upstream,
                              const char *description, mr_resource **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_create: out is NULL");
  *out = NULL;
  if (ops == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_create: ops is NULL");
  if (ops->size < MRI_OPS_MIN_SIZE)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_resource_create: ops->size is %zu, less than the %zu "
                     "bytes that hold allocate and deallocate (set it to "
                     "sizeof(mr_resource_ops))",
                     ops->size, (size_t)MRI_OPS_MIN_SIZE);
  if (!ops_size_is_whole(ops->size))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_resource_create: ops->size is %zu, which ends partway through a "
                     "method pointer or lies past any table a header has (set it to "
                     "sizeof(mr_resource_ops), %zu with this library's header)",
                     ops->size, sizeof(mr_resource_ops));
  if (ops->allocate == NULL || ops->deallocate == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_resource_create: ops->allocate and ops->deallocate "
                     "are required");
  /* No props: pageable host memory, any alignment. */
  mr_resource_props given = mri_memory_kind_props(MR_MEMORY_HOST, -1, false, 0);
  if (props != NULL) {
    mr_status st =
        MRI_STRUCT_READ(&given, props, mr_resource_props, native_alignment, "mr_resource_create");
    if (st != MR_OK) return st;
  }
  if (given.native_alignment != 0 && !mri_is_pow2(given.native_alignment))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_resource_create: native_alignment %zu is not a power "
                     "of two",
                     given.native_alignment);

  mr_resource *mr = mri_calloc(1, sizeof *mr);
  if (mr == NULL) return MR_ERR_OUT_OF_MEMORY;

  /* Copy what the caller's table has; methods past its size stay NULL. */
  size_t n = ops->size < sizeof mr->ops ? ops->size : sizeof mr->ops;
  memcpy(&mr->ops, ops, n);
  mr->ops.size = sizeof mr->ops;
  mr->ops_id = ops;
  mr->allocate = mr->ops.allocate;
  mr->deallocate = mr->ops.deallocate;
  mr->self = state;
  atomic_init(&mr->refs, 1);
  atomic_init(&mr->owner, NULL);
  mr->upstream = upstream;
  mr->props = given;
  mr->native_alignment = mr->props.native_alignment;
  pthread_mutex_init(&mr->align_lock, NULL);

  if (description != NULL) {
    mr->description = mri_strdup(description);
  } else if (mr->ops.describe != NULL) {
    int len = mr->ops.describe(state, NULL, 0);
    if (len >= 0) {
      mr->description = mri_host_malloc((size_t)len + 1);
      if (mr->description != NULL) mr->ops.describe(state, mr->description, (size_t)len + 1);
    }
  } else {
    mr->description = mri_strdup(mr->ops.name != NULL ? mr->ops.name : "custom");
  }
  if (mr->description == NULL) {
    pthread_mutex_destroy(&mr->align_lock);
    free(mr);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory creating a resource");
  }
  mri_fork_register_mutex(&mr->align_fork, &mr->align_lock, MRI_FORK_RANK_LEAF);
  *out = mr;
  return MR_OK;
}

mr_status mr_resource_create(const mr_resource_ops *ops, void *state,
                             const mr_resource_props *props, mr_resource **out) {
  return mri_resource_create(ops, state, props, NULL, NULL, out);
}

mr_resource *mr_resource_retain(mr_resource *mr) {
  if (mr != NULL) atomic_fetch_add_explicit(&mr->refs, 1, memory_order_relaxed);
  return mr;
}

void mr_resource_release(mr_resource *mr) {
  if (mr == NULL) return;
  if (atomic_fetch_sub_explicit(&mr->refs, 1, memory_order_acq_rel) != 1) return;
  if (mr->ops.destroy != NULL) {
    /* Destruction returns nothing, so it leaves this thread's message
     * alone: a constructor cleaning up after a failure (a failed free on
     * the way, say) still reports why it failed. */
    char saved[MRI_ERROR_CAPACITY];
    snprintf(saved, sizeof saved, "%s", mr_last_error());
    mr->ops.destroy(mr->self);
    mri_error(MR_OK, "%s", saved);
  }
  if (mr->align_map != NULL) mri_ptrmap_destroy(mr->align_map);
  mri_fork_unregister(&mr->align_fork);
  pthread_mutex_destroy(&mr->align_lock);
  free(atomic_load_explicit(&mr->owner, memory_order_acquire));
  free(mr->description);
  free(mr);
}

/* Argument checks shared by the four public entry points. */
static inline mr_status check_alignment(const char *what, size_t *alignment) {
  if (*alignment == 0) {
    *alignment = MR_DEFAULT_ALIGNMENT;
  } else if (MRI_UNLIKELY(!mri_is_pow2(*alignment))) {
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: alignment %zu is not a power of two", what,
                     *alignment);
  }
  return MR_OK;
}

mr_status mr_allocate(mr_resource *mr, size_t bytes, size_t alignment, mr_stream stream,
                      void **ptr) {
  if (MRI_UNLIKELY(ptr == NULL))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_allocate: ptr is NULL");
  *ptr = NULL;
  if (MRI_UNLIKELY(mr == NULL))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_allocate: resource is NULL");
  mr_status st = check_alignment("mr_allocate", &alignment);
  if (MRI_UNLIKELY(st != MR_OK)) return st;
  if (MRI_UNLIKELY(bytes == 0)) return MR_OK;
  st = mri_allocate(mr, bytes, alignment, stream, ptr);
  if (MRI_UNLIKELY(st != MR_OK)) *ptr = NULL;
  return st;
}

mr_status mr_deallocate(mr_resource *mr, void *ptr, size_t bytes, size_t alignment,
                        mr_stream stream) {
  if (ptr == NULL) return MR_OK;
  if (MRI_UNLIKELY(mr == NULL))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_deallocate: resource is NULL");
  mr_status st = check_alignment("mr_deallocate", &alignment);
  if (MRI_UNLIKELY(st != MR_OK)) return st;
  if (MRI_UNLIKELY(bytes == 0))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_deallocate: pointer %p with size 0 (size-0 "
                     "allocations are NULL; pass the size it was allocated with)",
                     ptr);
  st = mri_recorded_before_free(mr, ptr, stream, false);
  if (MRI_UNLIKELY(st != MR_OK)) return st;
  return mri_deallocate(mr, ptr, bytes, alignment, stream);
}

mr_status mr_resource_synchronize(mr_resource *mr, mr_stream stream) {
  if (mr == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_synchronize: resource is NULL");
  if (mr->ops.synchronize == NULL) return MR_OK;
  return mr->ops.synchronize(mr->self, stream);
}

/* The synchronous forms. Over-aligned requests go through the stream-ordered
 * path on the legacy stream so that one mechanism keeps the aligned->raw map. */
mr_status mr_allocate_sync(mr_resource *mr, size_t bytes, size_t alignment, void **ptr) {
  if (ptr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_allocate_sync: ptr is NULL");
  *ptr = NULL;
  if (mr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_allocate_sync: resource is NULL");
  mr_status st = check_alignment("mr_allocate_sync", &alignment);
  if (st != MR_OK) return st;
  if (bytes == 0) return MR_OK;
  bool native = mr->native_alignment == 0 || alignment <= mr->native_alignment;
  if (native && mr->ops.allocate_sync != NULL) {
    st = mr->ops.allocate_sync(mr->self, bytes, alignment, ptr);
    if (st != MR_OK) *ptr = NULL;
    return st;
  }
  st = mri_allocate(mr, bytes, alignment, NULL, ptr);
  if (st != MR_OK) {
    *ptr = NULL;
    return st;
  }
  st = mr_resource_synchronize(mr, NULL);
  if (st != MR_OK) {
    /* The memory is not known to be usable: give it back, keep the error. */
    char saved[MRI_ERROR_CAPACITY];
    snprintf(saved, sizeof saved, "%s", mr_last_error());
    mri_deallocate(mr, *ptr, bytes, alignment, NULL);
    *ptr = NULL;
    return mri_error(st, "%s", saved);
  }
  return MR_OK;
}

mr_status mr_deallocate_sync(mr_resource *mr, void *ptr, size_t bytes, size_t alignment) {
  if (ptr == NULL) return MR_OK;
  if (mr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_deallocate_sync: resource is NULL");
  mr_status st = check_alignment("mr_deallocate_sync", &alignment);
  if (st != MR_OK) return st;
  if (bytes == 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_deallocate_sync: pointer %p with size 0", ptr);
  st = mri_recorded_before_free(mr, ptr, NULL, true);
  if (st != MR_OK) return st;
  bool native = mr->native_alignment == 0 || alignment <= mr->native_alignment;
  if (native && mr->ops.deallocate_sync != NULL)
    return mr->ops.deallocate_sync(mr->self, ptr, bytes, alignment);
  st = mr_resource_synchronize(mr, NULL);
  if (st != MR_OK) return st;
  return mri_deallocate(mr, ptr, bytes, alignment, NULL);
}

mr_status mr_resource_trim(mr_resource *mr) {
  if (mr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_trim: resource is NULL");
  if (mr->ops.trim == NULL) return MR_OK;
  return mr->ops.trim(mr->self);
}

mr_status mr_resource_get_props(const mr_resource *mr, mr_resource_props *props) {
  if (props == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_get_props: props is NULL");
  if (mr == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_get_props: resource is NULL");
  return MRI_STRUCT_WRITE(props, &mr->props, mr_resource_props, native_alignment,
                          "mr_resource_get_props");
}

const char *mr_resource_describe(const mr_resource *mr) {
  return mr != NULL ? mr->description : "(null)";
}

const char *mr_resource_name(const mr_resource *mr) {
  if (mr == NULL) return "(null)";
  return mr->ops.name != NULL ? mr->ops.name : "custom";
}

mr_resource *mr_resource_upstream(const mr_resource *mr) {
  return mr != NULL ? mr->upstream : NULL;
}

void *mr_resource_state(const mr_resource *mr, const mr_resource_ops *ops) {
  if (mr == NULL || ops == NULL || mr->ops_id != ops) return NULL;
  return mr->self;
}

void mri_resource_set_owner(mr_resource *mr, const char *owner) {
  for (; mr != NULL; mr = mr->upstream) {
    if (atomic_load_explicit(&mr->owner, memory_order_acquire) != NULL) continue;
    char *copy = mri_host_strdup(owner);
    if (copy == NULL) return; /* a label is a nicety; go without */
    char *expected = NULL;
    if (!atomic_compare_exchange_strong(&mr->owner, &expected, copy)) free(copy);
  }
}

const char *mri_resource_owner(const mr_resource *mr) {
  char *owner = atomic_load_explicit(&((mr_resource *)mr)->owner, memory_order_acquire);
  return owner != NULL ? owner : "";
}

/* ---- over-aligned allocations -------------------------------------------- */

/* The resource serves `native` alignment itself; for a larger power of two
 * we ask for bytes + alignment - native, hand out the first aligned address
 * inside, and remember the raw pointer. */
static bool overaligned_request(const mr_resource *mr, size_t bytes, size_t alignment,
                                size_t *request) {
  size_t native = mr->native_alignment;
  return mri_add_overflows(bytes, alignment - native, request);
}

mr_status mri_allocate_overaligned(mr_resource *mr, size_t bytes, size_t alignment,
                                   mr_stream stream, void **ptr) {
  size_t request;
  if (overaligned_request(mr, bytes, alignment, &request))
    return mri_error(MR_ERR_OUT_OF_MEMORY,
                     "%s: %zu bytes aligned to %zu overflows the address space", mr->description,
                     bytes, alignment);
  void *raw = NULL;
  mr_status st = mr->allocate(mr->self, request, mr->native_alignment, stream, &raw);
  if (st != MR_OK) /* the message names the padded request: say what the caller asked */
    return mri_error_prefix(st, "%s: %zu bytes aligned to %zu (%zu bytes with the padding)",
                            mr->description, bytes, alignment, request);
  uintptr_t aligned = mri_align_up((uintptr_t)raw, alignment);
  pthread_mutex_lock(&mr->align_lock);
  if (mr->align_map == NULL) mr->align_map = mri_ptrmap_create();
  st = mr->align_map != NULL
           ? mri_ptrmap_put(mr->align_map, (void *)aligned,
                            (mri_ptrmap_value){
                                .bytes = request, .alignment = mr->native_alignment, .raw = raw})
           : MR_ERR_OUT_OF_MEMORY;
  pthread_mutex_unlock(&mr->align_lock);
  if (st != MR_OK) {
    mr->deallocate(mr->self, raw, request, mr->native_alignment, stream);
    return mri_error(MR_ERR_OUT_OF_MEMORY,
                     "%s: out of host memory recording an allocation aligned to %zu",
                     mr->description, alignment);
  }
  *ptr = (void *)aligned;
  return MR_OK;
}

mr_status mri_deallocate_overaligned(mr_resource *mr, void *ptr, size_t bytes, size_t alignment,
                                     mr_stream stream) {
  mri_ptrmap_value v;
  pthread_mutex_lock(&mr->align_lock);
  bool found = mr->align_map != NULL && mri_ptrmap_take(mr->align_map, ptr, &v);
  pthread_mutex_unlock(&mr->align_lock);
  if (!found)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p was not allocated here with alignment %zu "
                     "(deallocate with the size and alignment used to allocate)",
                     mr->description, ptr, alignment);
  size_t request;
  overaligned_request(mr, bytes, alignment, &request);
  if (request != v.bytes) {
    /* Wrong size: put the record back so a correct call still works. */
    pthread_mutex_lock(&mr->align_lock);
    mri_ptrmap_put(mr->align_map, ptr, v);
    pthread_mutex_unlock(&mr->align_lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p was allocated with a different size than the %zu "
                     "bytes being freed",
                     mr->description, ptr, bytes);
  }
  mr_status st = mr->deallocate(mr->self, v.raw, v.bytes, v.alignment, stream);
  if (st != MR_OK) {
    /* The block is still the caller's (a failed free changes nothing), so
     * its record comes back and a retry finds it. The put reuses room the
     * take freed unless the map grew meanwhile; if even that fails there is
     * no host memory left to keep the record, and the error stands. */
    pthread_mutex_lock(&mr->align_lock);
    mri_ptrmap_put(mr->align_map, ptr, v);
    pthread_mutex_unlock(&mr->align_lock);
  }
  return st;
}

/* ---- the unavailable stand-in ------------------------------------------- */

typedef struct failing_state {
  mr_status status;
  char *message;
} failing_state;

static mr_status failing_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                  void **ptr) {
  failing_state *s = self;
  return mri_error(s->status, "%s (allocating %zu bytes)", s->message, bytes);
}

static mr_status failing_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                    mr_stream stream) {
  failing_state *s = self;
  return mri_error(MR_ERR_INVALID_ARGUMENT,
                   "%p was not allocated here: this resource allocates nothing (%s)", ptr,
                   s->message);
}

static void failing_destroy(void *self) {
  failing_state *s = self;
  free(s->message);
  free(s);
}

static const mr_resource_ops failing_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "unavailable",
    .allocate = failing_allocate,
    .deallocate = failing_deallocate,
    .destroy = failing_destroy,
};

mr_status mri_unavailable_resource_create(mr_status status, const char *reason,
                                          const mr_resource_props *props, const char *description,
                                          mr_resource **out) {
  *out = NULL;
  failing_state *s = mri_calloc(1, sizeof *s);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->status = status;
  s->message = mri_strdup(reason);
  if (s->message == NULL) {
    free(s);
    return MR_ERR_OUT_OF_MEMORY;
  }
  mr_status st = mri_resource_create(&failing_ops, s, props, NULL, description, out);
  if (st != MR_OK) failing_destroy(s);
  return st;
}
