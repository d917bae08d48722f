/*
 * device_map.c: a device id -> resource table, and the process-wide one
 * behind mr_get_current_device_resource().
 *
 * Each slot is an atomic pointer: get is one acquire load (plus, the first
 * time, creating the slot's initial resource and publishing it with a
 * compare-and-swap; a thread that loses the race releases its copy). Set and
 * reset exchange the pointer under the map's mutex, so they serialize among
 * themselves, and hand the previous resource to the caller.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/core.h"
#include "driver/driver_internal.h"

struct mr_device_map {
  int size;
  pthread_mutex_t lock;        /* serializes set and reset */
  mri_fork_lockable lock_fork; /* `lock` across fork() (core/fork.h) */
  _Atomic(mr_resource *) *slots;
};

static mr_status check_slot(const mr_device_map *map, const char *what, int device) {
  if (map == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: map is NULL", what);
  if (device < 0 || device >= map->size)
    return mri_error(MR_ERR_NO_DEVICE,
                     "%s: device %d is out of range: the map has %d device%s (0..%d)", what, device,
                     map->size, map->size == 1 ? "" : "s", map->size - 1);
  return MR_OK;
}

/* The device's current driver pool; without a driver or device, a resource
 * whose allocations fail and say why, so a valid slot is never empty. */
static mr_status initial_resource(int device, mr_resource **out) {
  mr_status st = mr_device_resource_create(device, out);
  if (st != MR_ERR_NO_DRIVER && st != MR_ERR_NO_DEVICE) return st;
  mr_resource_props props = mri_memory_kind_props(MR_MEMORY_DEVICE, device, true, 0);
  char message[MRI_ERROR_CAPACITY];
  snprintf(message, sizeof message, "%s", mr_last_error());
  return mri_unavailable_resource_create(st, message, &props, "device", out);
}

mr_status mr_device_map_create(mr_device_map **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_device_map_create: out is NULL");
  *out = NULL;
  int count = 0;
  /* No driver: the map still has one slot (host resources work). */
  if (mr_device_count(&count) != MR_OK || count < 1) count = 1;
  mr_device_map *map = mri_calloc(1, sizeof *map);
  if (map == NULL) return MR_ERR_OUT_OF_MEMORY;
  map->slots = mri_calloc((size_t)count, sizeof *map->slots);
  if (map->slots == NULL) {
    free(map);
    return MR_ERR_OUT_OF_MEMORY;
  }
  for (int i = 0; i < count; i++) atomic_init(&map->slots[i], NULL);
  map->size = count;
  pthread_mutex_init(&map->lock, NULL);
  mri_fork_register_mutex(&map->lock_fork, &map->lock, MRI_FORK_RANK_LEAF);
  *out = map;
  return MR_OK;
}

void mr_device_map_destroy(mr_device_map *map) {
  if (map == NULL) return;
  for (int i = 0; i < map->size; i++)
    mr_resource_release(atomic_load_explicit(&map->slots[i], memory_order_acquire));
  mri_fork_unregister(&map->lock_fork);
  pthread_mutex_destroy(&map->lock);
  free(map->slots);
  free(map);
}

int mr_device_map_size(const mr_device_map *map) { return map != NULL ? map->size : 0; }

static mr_resource *get_slow(mr_device_map *map, int device) {
  mr_resource *fresh = NULL;
  if (initial_resource(device, &fresh) != MR_OK) return NULL;
  mr_resource *expected = NULL;
  if (atomic_compare_exchange_strong_explicit(&map->slots[device], &expected, fresh,
                                              memory_order_acq_rel, memory_order_acquire))
    return fresh;
  mr_resource_release(fresh); /* another thread (a get or a set) was first */
  return expected;
}

mr_resource *mr_device_map_get(mr_device_map *map, int device) {
  if (MRI_UNLIKELY(map == NULL || device < 0 || device >= map->size)) {
    check_slot(map, "mr_device_map_get", device);
    return NULL;
  }
  mr_resource *mr = atomic_load_explicit(&map->slots[device], memory_order_acquire);
  if (MRI_LIKELY(mr != NULL)) return mr;
  return get_slow(map, device);
}

/* Put `mr` (already retained for the map) in the slot; hand back the old. */
static void exchange_slot(mr_device_map *map, int device, mr_resource *mr, mr_resource **previous) {
  pthread_mutex_lock(&map->lock);
  mr_resource *old = atomic_exchange_explicit(&map->slots[device], mr, memory_order_acq_rel);
  pthread_mutex_unlock(&map->lock);
  if (previous != NULL)
    *previous = old;
  else
    mr_resource_release(old);
}

mr_status mr_device_map_set(mr_device_map *map, int device, mr_resource *mr,
                            mr_resource **previous) {
  if (previous != NULL) *previous = NULL;
  mr_status st = check_slot(map, "mr_device_map_set", device);
  if (st != MR_OK) return st;
  if (mr == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_device_map_set: resource is NULL (use mr_device_map_reset to "
                     "restore device %d's initial resource)",
                     device);
  exchange_slot(map, device, mr_resource_retain(mr), previous);
  return MR_OK;
}

mr_status mr_device_map_reset(mr_device_map *map, int device, mr_resource **previous) {
  if (previous != NULL) *previous = NULL;
  mr_status st = check_slot(map, "mr_device_map_reset", device);
  if (st != MR_OK) return st;
  mr_resource *initial = NULL;
  st = initial_resource(device, &initial);
  if (st != MR_OK) return st;
  exchange_slot(map, device, initial, previous);
  return MR_OK;
}

/* ---- the process-wide map ------------------------------------------------ */

static pthread_once_t process_once = PTHREAD_ONCE_INIT;
static mr_device_map *process_map;
static mr_status process_status;
static char process_message[512];

static void process_map_create(void) {
  process_status = mr_device_map_create(&process_map);
  if (process_status != MR_OK)
    snprintf(process_message, sizeof process_message, "%s", mr_last_error());
}

/* The process-wide map lives until the process exits: resources handed out
 * by get may be in use anywhere, up to the last moment. */
static mr_device_map *process(void) {
  pthread_once(&process_once, process_map_create);
  if (process_map == NULL)
    mri_error(process_status, "the process-wide device map: %s", process_message);
  return process_map;
}

mr_resource *mr_get_current_device_resource(void) {
  mr_device_map *map = process();
  return map != NULL ? mr_device_map_get(map, mri_current_device()) : NULL;
}

mr_resource *mr_get_per_device_resource(int device) {
  mr_device_map *map = process();
  return map != NULL ? mr_device_map_get(map, device) : NULL;
}

mr_status mr_set_current_device_resource(mr_resource *mr, mr_resource **previous) {
  if (previous != NULL) *previous = NULL;
  mr_device_map *map = process();
  if (map == NULL) return process_status;
  return mr_device_map_set(map, mri_current_device(), mr, previous);
}

mr_status mr_set_per_device_resource(int device, mr_resource *mr, mr_resource **previous) {
  if (previous != NULL) *previous = NULL;
  mr_device_map *map = process();
  if (map == NULL) return process_status;
  return mr_device_map_set(map, device, mr, previous);
}

mr_status mr_reset_current_device_resource(mr_resource **previous) {
  if (previous != NULL) *previous = NULL;
  mr_device_map *map = process();
  if (map == NULL) return process_status;
  return mr_device_map_reset(map, mri_current_device(), previous);
}

mr_status mr_reset_per_device_resource(int device, mr_resource **previous) {
  if (previous != NULL) *previous = NULL;
  mr_device_map *map = process();
  if (map == NULL) return process_status;
  return mr_device_map_reset(map, device, previous);
}
