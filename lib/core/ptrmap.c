/*
 * ptrmap.c: pointer -> record hash map (open addressing, linear probing,
 * backward-shift deletion, so there are no tombstones to clean up).
 */
#include <stdlib.h>

#include "core/ptrmap.h"

typedef struct entry {
  uintptr_t key; /* 0: empty */
  mri_ptrmap_value value;
} entry;

struct mri_ptrmap {
  entry *slots;
  size_t capacity; /* a power of two */
  size_t count;
};

static inline size_t hash_ptr(uintptr_t key, size_t mask) {
  /* Allocations are aligned, so the low bits carry little: mix them all. */
  uint64_t x = (uint64_t)key;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x & mask;
}

mri_ptrmap *mri_ptrmap_create(void) {
  mri_ptrmap *map = mri_calloc(1, sizeof *map);
  if (map == NULL) return NULL;
  map->capacity = 64;
  map->slots = mri_calloc(map->capacity, sizeof(entry));
  if (map->slots == NULL) {
    free(map);
    return NULL;
  }
  return map;
}

void mri_ptrmap_destroy(mri_ptrmap *map) {
  if (map == NULL) return;
  free(map->slots);
  free(map);
}

static entry *find(const mri_ptrmap *map, uintptr_t key) {
  size_t mask = map->capacity - 1;
  for (size_t i = hash_ptr(key, mask);; i = (i + 1) & mask) {
    entry *e = &map->slots[i];
    if (e->key == key || e->key == 0) return e;
  }
}

static mr_status grow(mri_ptrmap *map) {
  size_t capacity = map->capacity * 2;
  entry *slots = mri_calloc(capacity, sizeof(entry));
  if (slots == NULL) return MR_ERR_OUT_OF_MEMORY;
  entry *old = map->slots;
  size_t old_capacity = map->capacity;
  map->slots = slots;
  map->capacity = capacity;
  for (size_t i = 0; i < old_capacity; i++) {
    if (old[i].key != 0) *find(map, old[i].key) = old[i];
  }
  free(old);
  return MR_OK;
}

mr_status mri_ptrmap_put(mri_ptrmap *map, const void *key, mri_ptrmap_value value) {
  uintptr_t k = (uintptr_t)key;
  if (k == 0) return mri_error(MR_ERR_INVALID_ARGUMENT, "internal: NULL key");
  if ((map->count + 1) * 4 > map->capacity * 3) {
    mr_status st = grow(map);
    if (st != MR_OK) return st;
  }
  entry *e = find(map, k);
  if (e->key == 0) map->count++;
  e->key = k;
  e->value = value;
  return MR_OK;
}

bool mri_ptrmap_get(const mri_ptrmap *map, const void *key, mri_ptrmap_value *value) {
  uintptr_t k = (uintptr_t)key;
  if (k == 0) return false;
  entry *e = find(map, k);
  if (e->key == 0) return false;
  if (value != NULL) *value = e->value;
  return true;
}

bool mri_ptrmap_take(mri_ptrmap *map, const void *key, mri_ptrmap_value *value) {
  uintptr_t k = (uintptr_t)key;
  if (k == 0) return false;
  entry *e = find(map, k);
  if (e->key == 0) return false;
  if (value != NULL) *value = e->value;
  /* Backward-shift: pull later members of the probe run into the hole. */
  size_t mask = map->capacity - 1;
  size_t hole = (size_t)(e - map->slots);
  for (size_t i = (hole + 1) & mask; map->slots[i].key != 0; i = (i + 1) & mask) {
    size_t home = hash_ptr(map->slots[i].key, mask);
    /* Move entry i into the hole if its home is not in (hole, i]. */
    bool between = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
    if (!between) {
      map->slots[hole] = map->slots[i];
      hole = i;
    }
  }
  map->slots[hole].key = 0;
  map->count--;
  return true;
}

size_t mri_ptrmap_count(const mri_ptrmap *map) { return map->count; }

void mri_ptrmap_foreach(const mri_ptrmap *map,
                        void (*fn)(void *user, const void *key, const mri_ptrmap_value *value),
                        void *user) {
  for (size_t i = 0; i < map->capacity; i++) {
    if (map->slots[i].key != 0) fn(user, (const void *)map->slots[i].key, &map->slots[i].value);
  }
}
