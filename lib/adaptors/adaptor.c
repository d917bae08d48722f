/*
 * adaptor.c: what every adaptor's constructor and destroy share (the
 * skeleton described in adaptors_internal.h): argument checks, the head of
 * its state (upstream and description), its properties, and cleaning up
 * after a failed creation.
 */
#include <stdio.h>
#include <stdlib.h>

#include "adaptors/adaptors_internal.h"
#include "adaptors/reuse.h"
#include "core/nvtx.h"

mr_status mri_adaptor_check(const mr_resource_ops *ops, mr_resource *upstream, mr_resource **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: out is NULL", ops->name);
  *out = NULL;
  if (upstream == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: upstream is NULL", ops->name);
  return MR_OK;
}

void *mri_adaptor_alloc(size_t size, mr_resource *upstream, const char *format, ...) {
  /* Before any adaptor exists: from here on its NVTX hooks know whether a
   * tool is attached. */
  mri_nvtx_init();
  mri_adaptor_head *head = mri_calloc(1, size);
  if (head == NULL) return NULL;
  va_list args;
  va_start(args, format);
  head->description = mri_vasprintf(format, args);
  va_end(args);
  if (head->description == NULL) {
    free(head);
    return NULL;
  }
  head->upstream = mr_resource_retain(upstream);
  return head;
}

static mr_resource_props adaptor_props(const mri_adaptor_head *head, mri_adaptor_memory memory) {
  mr_resource_props props = head->upstream->props;
  if (memory == MRI_ADAPTOR_KEEPS) {
    props.native_alignment = MR_DEFAULT_ALIGNMENT;
    props.stream_ordered = mri_reuse_follows_streams(&head->upstream->props);
  } else {
    props.native_alignment = 0; /* any alignment passes on to upstream */
  }
  return props;
}

mr_status mri_adaptor_describe_only(void *state, mri_adaptor_memory memory, mr_resource **out) {
  mri_adaptor_head *head = state;
  mr_resource_props props = adaptor_props(head, memory);
  mr_status st = mri_described_resource_create(&props, head->description, head->upstream, out);
  mri_adaptor_free(state);
  return st;
}

mr_status mri_adaptor_create(const mr_resource_ops *ops, void *state, mri_adaptor_memory memory,
                             mr_status st, mr_resource **out) {
  mri_adaptor_head *head = state;
  if (st == MR_OK) {
    mr_resource_props props = adaptor_props(head, memory);
    st = mri_resource_create(ops, state, &props, head->upstream, head->description, out);
    if (st == MR_OK) return MR_OK;
  }
  /* Cleaning up may make calls that fail on their own (a device
   * synchronization without a driver); the caller hears why creation
   * failed. */
  char saved[MRI_ERROR_CAPACITY];
  snprintf(saved, sizeof saved, "%s", mr_last_error());
  ops->destroy(state);
  mri_error(MR_OK, "%s", saved);
  return st;
}

void mri_adaptor_free(void *state) {
  mri_adaptor_head *head = state;
  mr_resource_release(head->upstream);
  free(head->description);
  free(head);
}

mr_status mri_forward_synchronize(void *self, mr_stream stream) {
  return mr_resource_synchronize(((mri_adaptor_head *)self)->upstream, stream);
}

mr_status mri_forward_trim(void *self) {
  return mr_resource_trim(((mri_adaptor_head *)self)->upstream);
}
