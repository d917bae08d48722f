/*
 * faulty.c: a host-memory resource that fails on demand and checks frees.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/ptrmap.h"
#include "test_util.h"

struct faulty_resource {
  pthread_mutex_t lock;
  faulty_config config;
  long allocations, deallocations, trims, bad_frees;
  size_t live_bytes;
  mri_ptrmap *live; /* ptr -> {bytes, alignment} */
};

static mr_status faulty_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                 void **ptr) {
  faulty_resource *f = self;
  pthread_mutex_lock(&f->lock);
  long n = ++f->allocations;
  bool fail = f->config.fail_at > 0 && n >= f->config.fail_at &&
              n < f->config.fail_at + f->config.fail_count;
  pthread_mutex_unlock(&f->lock);
  if (fail)
    return mr_error(f->config.fail_status, "faulty: allocation %ld fails on purpose (%zu bytes)", n,
                    bytes);
  void *p = NULL;
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  if (posix_memalign(&p, alignment, bytes) != 0)
    return mr_error(MR_ERR_OUT_OF_MEMORY, "faulty: host out of memory");
  pthread_mutex_lock(&f->lock);
  mr_status st =
      mri_ptrmap_put(f->live, p, (mri_ptrmap_value){.bytes = bytes, .alignment = alignment});
  if (st == MR_OK) f->live_bytes += bytes;
  pthread_mutex_unlock(&f->lock);
  if (st != MR_OK) {
    free(p);
    return st;
  }
  *ptr = p;
  return MR_OK;
}

static mr_status faulty_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                   mr_stream stream) {
  faulty_resource *f = self;
  mri_ptrmap_value v;
  pthread_mutex_lock(&f->lock);
  f->deallocations++;
  bool known = mri_ptrmap_take(f->live, ptr, &v);
  if (known && v.bytes != bytes) {
    mri_ptrmap_put(f->live, ptr, v);
    known = false;
  }
  if (!known)
    f->bad_frees++;
  else
    f->live_bytes -= bytes;
  pthread_mutex_unlock(&f->lock);
  if (!known)
    return mr_error(MR_ERR_INVALID_ARGUMENT, "faulty: bad free of %p (%zu bytes)", ptr, bytes);
  free(ptr);
  return MR_OK;
}

static mr_status faulty_trim(void *self) {
  faulty_resource *f = self;
  pthread_mutex_lock(&f->lock);
  f->trims++;
  pthread_mutex_unlock(&f->lock);
  return MR_OK;
}

static void free_live(void *user, const void *key, const mri_ptrmap_value *value) {
  free((void *)key);
}

static void faulty_destroy(void *self) {
  faulty_resource *f = self;
  mri_ptrmap_foreach(f->live, free_live, NULL);
  mri_ptrmap_destroy(f->live);
  pthread_mutex_destroy(&f->lock);
  free(f);
}

static const mr_resource_ops faulty_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "faulty",
    .allocate = faulty_allocate,
    .deallocate = faulty_deallocate,
    .trim = faulty_trim,
    .destroy = faulty_destroy,
};

mr_status faulty_resource_create(const faulty_config *config, mr_resource **mr,
                                 faulty_resource **faulty) {
  faulty_resource *f = calloc(1, sizeof *f);
  if (f == NULL) return MR_ERR_OUT_OF_MEMORY;
  pthread_mutex_init(&f->lock, NULL);
  if (config != NULL) f->config = *config;
  if (f->config.fail_count <= 0) f->config.fail_count = 1;
  if (f->config.fail_status == MR_OK) f->config.fail_status = MR_ERR_OUT_OF_MEMORY;
  f->live = mri_ptrmap_create();
  mr_resource_props props = {
      .size = sizeof(mr_resource_props),
      .kind = f->config.kind,
      .device = -1,
      .host_accessible = true,
      .stream_ordered = f->config.stream_ordered,
      .native_alignment = 0,
  };
  mr_status st = f->live ? mr_resource_create(&faulty_ops, f, &props, mr) : MR_ERR_OUT_OF_MEMORY;
  if (st != MR_OK) {
    mri_ptrmap_destroy(f->live);
    free(f);
    return st;
  }
  *faulty = f;
  return MR_OK;
}

void faulty_set_fail(faulty_resource *f, long fail_at, long fail_count) {
  pthread_mutex_lock(&f->lock);
  f->config.fail_at = fail_at;
  f->config.fail_count = fail_count > 0 ? fail_count : 1;
  pthread_mutex_unlock(&f->lock);
}

#define FAULTY_GETTER(type, name, expr)        \
  type name(const faulty_resource *f) {        \
    faulty_resource *m = (faulty_resource *)f; \
    pthread_mutex_lock(&m->lock);              \
    type v = (expr);                           \
    pthread_mutex_unlock(&m->lock);            \
    return v;                                  \
  }
FAULTY_GETTER(long, faulty_allocations, m->allocations)
FAULTY_GETTER(long, faulty_deallocations, m->deallocations)
FAULTY_GETTER(long, faulty_trims, m->trims)
FAULTY_GETTER(long, faulty_bad_frees, m->bad_frees)
FAULTY_GETTER(size_t, faulty_live_blocks, mri_ptrmap_count(m->live))
FAULTY_GETTER(size_t, faulty_live_bytes, m->live_bytes)
