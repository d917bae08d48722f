/*
 * export_blocks.h: the blocks `mrctx export` has seen in snapshot files,
 * each from its allocation to the last snapshot that lists it.
 *
 * A snapshot lists each tracked tag's largest live blocks with their age;
 * the same block in a later snapshot is the one of the same place, size and
 * owner allocated (the snapshot's time less its age) less than
 * EXPORT_BLOCKS_SAME_NS earlier or later, since the two snapshots measured
 * its age against their own clocks. Noting a listing costs the same however
 * many blocks have been seen (a hash index, not a scan: a snapshot of 128k
 * blocks took 25 s with the scan).
 */
#ifndef MRCTX_TOOLS_EXPORT_BLOCKS_H
#define MRCTX_TOOLS_EXPORT_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mrctx/mrctx.h>

#define EXPORT_BLOCKS_SAME_NS 1000000u /* a millisecond */

/* A block seen. Times are unsigned nanoseconds since 1970: a listing whose
 * age is more than its snapshot's time is refused, so no time is negative
 * and no difference of two wraps. */
typedef struct export_block {
  char *library, *tag;
  int device;
  uint64_t ptr, bytes, alignment, stream;
  uint64_t born_ns; /* its allocation, as the first snapshot that listed it says */
  uint64_t last_ns; /* the last snapshot that listed it */
  char **frames;    /* its call site, from the first listing that had one */
  size_t frame_count;
} export_block;

typedef struct export_blocks {
  export_block *items; /* in the order first seen */
  size_t count, capacity;
  size_t *slots;        /* the index: open addressing, an item's index + 1 (0: empty) */
  size_t slot_capacity; /* a power of two, at least twice count */
  uint64_t compared;    /* items compared with a listing, in all: what the lookups cost */
} export_blocks;

typedef enum export_blocks_result {
  EXPORT_BLOCKS_OK,
  EXPORT_BLOCKS_OUT_OF_MEMORY,
  EXPORT_BLOCKS_TOO_OLD, /* its age is more than now_ns: allocated before 1970 */
} export_blocks_result;

/* Note that a snapshot taken at now_ns lists b: a new item, or the item of
 * the same block, whose last_ns becomes now_ns (snapshots are noted in the
 * order of their times). Of two items near enough, the one seen first.
 * Start from a zeroed set. */
export_blocks_result export_blocks_note(export_blocks *set, const mr_snapshot_block *b,
                                        uint64_t now_ns);

void export_blocks_free(export_blocks *set);

#endif
