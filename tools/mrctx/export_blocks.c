/*
 * export_blocks.c: the blocks seen in snapshots, and a hash index over them
 * (export_blocks.h says what is the same block).
 *
 * The index's key is a block's place, size and owner and the millisecond
 * it was born in (born_ns / EXPORT_BLOCKS_SAME_NS). Two items of one place
 * are at least EXPORT_BLOCKS_SAME_NS apart (a nearer listing is the same
 * block, not a new item), so a millisecond holds at most one item of a
 * place, and a listing's match, less than a millisecond away, is in its own
 * millisecond or one beside it: three lookups, whatever the number of
 * items.
 */
#include <stdlib.h>
#include <string.h>

#include "export_blocks.h"

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 33; /* murmur3's finalizer: addresses share their low bits */
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

static uint64_t mix_string(uint64_t h, const char *s) {
  uint64_t fnv = 0xcbf29ce484222325ULL; /* FNV-1a */
  for (; *s != '\0'; s++) fnv = (fnv ^ (unsigned char)*s) * 0x100000001b3ULL;
  return mix(h, fnv);
}

static size_t home(const char *library, const char *tag, int device, uint64_t ptr, uint64_t bytes,
                   uint64_t born_ms, size_t capacity) {
  uint64_t h = mix(mix(mix(0, ptr), bytes), (uint64_t)(unsigned)device);
  h = mix(mix_string(mix_string(h, library), tag), born_ms);
  return (size_t)h & (capacity - 1);
}

static bool same_place(const export_block *s, const mr_snapshot_block *b) {
  return s->ptr == b->ptr && s->bytes == b->bytes && s->device == b->device &&
         strcmp(s->library, b->library) == 0 && strcmp(s->tag, b->tag) == 0;
}

/* The item of b's place born in millisecond born_ms, if there is one. */
static export_block *find(export_blocks *set, const mr_snapshot_block *b, uint64_t born_ms) {
  if (set->slot_capacity == 0) return NULL;
  size_t mask = set->slot_capacity - 1;
  size_t i = home(b->library, b->tag, b->device, b->ptr, b->bytes, born_ms, set->slot_capacity);
  for (; set->slots[i] != 0; i = (i + 1) & mask) {
    export_block *s = &set->items[set->slots[i] - 1];
    set->compared++;
    if (s->born_ns / EXPORT_BLOCKS_SAME_NS == born_ms && same_place(s, b)) return s;
  }
  return NULL;
}

static void put(export_blocks *set, size_t *slots, size_t capacity, size_t index) {
  const export_block *s = &set->items[index];
  size_t i = home(s->library, s->tag, s->device, s->ptr, s->bytes,
                  s->born_ns / EXPORT_BLOCKS_SAME_NS, capacity);
  while (slots[i] != 0) i = (i + 1) & (capacity - 1);
  slots[i] = index + 1;
}

/* Room for one more item and its slot. */
static bool grow(export_blocks *set) {
  if (set->count == set->capacity) {
    size_t capacity = set->capacity ? 2 * set->capacity : 64;
    export_block *grown = realloc(set->items, capacity * sizeof *grown);
    if (grown == NULL) return false;
    set->items = grown;
    set->capacity = capacity;
  }
  if (2 * (set->count + 1) > set->slot_capacity) {
    size_t capacity = set->slot_capacity ? 2 * set->slot_capacity : 128;
    size_t *slots = calloc(capacity, sizeof *slots);
    if (slots == NULL) return false;
    for (size_t i = 0; i < set->count; i++) put(set, slots, capacity, i);
    free(set->slots);
    set->slots = slots;
    set->slot_capacity = capacity;
  }
  return true;
}

/* The block's call site, where the listing has one. */
static bool copy_frames(export_block *s, const mr_snapshot_block *b) {
  if (b->frame_count == 0) return true;
  s->frames = calloc(b->frame_count, sizeof *s->frames);
  if (s->frames == NULL) return false;
  for (size_t f = 0; f < b->frame_count; f++) {
    s->frames[f] = strdup(b->frames[f]);
    s->frame_count++;
    if (s->frames[f] == NULL) return false;
  }
  return true;
}

export_blocks_result export_blocks_note(export_blocks *set, const mr_snapshot_block *b,
                                        uint64_t now_ns) {
  if (b->age_ns > now_ns) return EXPORT_BLOCKS_TOO_OLD;
  uint64_t born = now_ns - b->age_ns, ms = born / EXPORT_BLOCKS_SAME_NS;
  export_block *same = NULL;
  for (uint64_t m = ms > 0 ? ms - 1 : 0; m <= ms + 1; m++) {
    export_block *s = find(set, b, m);
    if (s == NULL) continue;
    uint64_t apart = s->born_ns > born ? s->born_ns - born : born - s->born_ns;
    if (apart < EXPORT_BLOCKS_SAME_NS && (same == NULL || s < same)) same = s;
  }
  if (same != NULL) {
    same->last_ns = now_ns;
    /* A block first seen without its call site takes it from a later
     * listing. */
    if (same->frame_count == 0 && !copy_frames(same, b)) return EXPORT_BLOCKS_OUT_OF_MEMORY;
    return EXPORT_BLOCKS_OK;
  }
  if (!grow(set)) return EXPORT_BLOCKS_OUT_OF_MEMORY;
  export_block *s = &set->items[set->count];
  *s = (export_block){.library = strdup(b->library),
                      .tag = strdup(b->tag),
                      .device = b->device,
                      .ptr = b->ptr,
                      .bytes = b->bytes,
                      .alignment = b->alignment,
                      .stream = b->stream,
                      .born_ns = born,
                      .last_ns = now_ns};
  if (s->library == NULL || s->tag == NULL) {
    free(s->library);
    free(s->tag);
    return EXPORT_BLOCKS_OUT_OF_MEMORY;
  }
  set->count++;
  put(set, set->slots, set->slot_capacity, set->count - 1);
  return copy_frames(s, b) ? EXPORT_BLOCKS_OK : EXPORT_BLOCKS_OUT_OF_MEMORY;
}

void export_blocks_free(export_blocks *set) {
  for (size_t i = 0; i < set->count; i++) {
    free(set->items[i].library);
    free(set->items[i].tag);
    for (size_t f = 0; f < set->items[i].frame_count; f++) free(set->items[i].frames[f]);
    free(set->items[i].frames);
  }
  free(set->items);
  free(set->slots);
  *set = (export_blocks){0};
}
