/*
 * describe_only.c: resolving specs to describe them without building them
 * (core.h, "describing without building").
 *
 * `mrctx resolve` shows what a context would resolve to, and must leave the
 * world as it found it: resolving `log(device, file=F)` for real truncates
 * F (the log of the job being inspected), `pool(...)` creates a driver
 * pool, `fixed` and `bin` take memory. The mode is a flag of the resolving
 * thread, so the factories and the public constructors they call run
 * unchanged -- one mechanism for the spec language and C code -- and only
 * the steps with effects outside the resource ask it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/core.h"

static _Thread_local bool tls_describe_only;

bool mri_describe_only(void) { return tls_describe_only; }

bool mri_set_describe_only(bool on) {
  bool was = tls_describe_only;
  tls_describe_only = on;
  return was;
}

/* ---- the stand-in ------------------------------------------------------------ */

typedef struct described_state {
  mr_resource *upstream; /* a reference, or NULL */
  char *message;
} described_state;

static mr_status described_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                    void **ptr) {
  described_state *s = self;
  return mri_error(MR_ERR_UNSUPPORTED, "%s", s->message);
}

static mr_status described_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                      mr_stream stream) {
  described_state *s = self;
  return mri_error(MR_ERR_INVALID_ARGUMENT,
                   "%p was not allocated here: this resource allocates nothing (%s)", ptr,
                   s->message);
}

static void described_destroy(void *self) {
  described_state *s = self;
  mr_resource_release(s->upstream);
  free(s->message);
  free(s);
}

static const mr_resource_ops described_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "described",
    .allocate = described_allocate,
    .deallocate = described_deallocate,
    .destroy = described_destroy,
};

mr_status mri_described_resource_create(const mr_resource_props *props, const char *description,
                                        mr_resource *upstream, mr_resource **out) {
  *out = NULL;
  described_state *s = mri_calloc(1, sizeof *s);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->message = mri_asprintf("%s: only described, not built (a context created to describe "
                            "its resources allocates nothing)",
                            description);
  if (s->message == NULL) {
    free(s);
    return MR_ERR_OUT_OF_MEMORY;
  }
  s->upstream = upstream != NULL ? mr_resource_retain(upstream) : NULL;
  mr_status st = mri_resource_create(&described_ops, s, props, upstream, description, out);
  if (st != MR_OK) described_destroy(s);
  return st;
}
