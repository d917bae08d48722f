/*
 * memory_viz.h (internal): memory as PyTorch's memory_viz reads it
 * (pytorch.org/memory_viz and torch.cuda._memory_viz): the pickle that
 * torch.cuda.memory._snapshot() is saved as, written from mrctx's blocks.
 *
 * The file is a pickled dict {"segments": [...], "device_traces": [[...]
 * per device], "allocator_settings": {...}}. memory_viz's page reads the
 * pickle with a JavaScript unpickler of its own (older copies of the page
 * read nothing else), so the writer below keeps to what that unpickler
 * knows: protocol 2, dicts, lists, tuples, str, int, bool and None, a
 * dict's items and a list's entries given in batches of at most 1000 as
 * Python's pickler gives them (the page spreads a batch into one call's
 * arguments, and a call of a million arguments overflows its stack).
 *
 * What mrctx knows maps onto it so (docs/observability.md shows it):
 *
 * - mrctx knows live blocks, not how a cache lays them out in segments, so
 *   every block is a segment of its own holding one block, which the
 *   page's segment view draws by address as PyTorch's own;
 * - each library:tag is a pool: its segments' "segment_pool_id" is (0, N),
 *   N counting the owners from 1 in order of first appearance, and
 *   allocator_settings["pools"] names each; the call site's frames end
 *   with one named for the owner (file "mrctx", line 0, name
 *   "library:tag"), the outermost, so a flame graph's root is the owner;
 *   trace events carry the owner as their "category" (the page's timeline
 *   colours and lists categories) and "user_metadata";
 * - an allocation in the timeline is "segment_alloc" then "alloc"; a free
 *   "free_requested", "free_completed" (mrctx returns a block at once, as
 *   far as the page can tell) then "segment_free"; a failed allocation
 *   "oom". Each device's trace ends with a "snapshot" marker at the time
 *   the segments show, whose category is "unknown": the page colours blocks
 *   allocated before its trace began as "unknown", and its annotate step
 *   fails (it misspells the list's name) when no event says "unknown".
 *
 * Frames named by mrctx ("function+0xOFF (object)" or "object+0xOFF")
 * become {"filename": object, "line": 0, "name": "function+0xOFF"}; a
 * frame source's ("function (file:line)", a Python line) {"filename":
 * file, "line": line, "name": function}, as PyTorch writes its own.
 * Strings that are not UTF-8 are written with U+FFFD for each bad byte
 * (Python's unpickler refuses them otherwise).
 *
 * Built into libmrctx (mr_snapshot_write_memory_viz) and, in the static
 * library mrctx_text, into the mrctx command (logs exported with `mrctx
 * export --format memory_viz`): one writer of the format for both.
 */
#ifndef MRCTX_LIB_CORE_MEMORY_VIZ_H
#define MRCTX_LIB_CORE_MEMORY_VIZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- a pickle writer ---------------------------------------------------- */

#define MRI_PICKLE_DEPTH 16

/* Containers nest up to MRI_PICKLE_DEPTH deep; a dict's keys and values
 * alternate. A misuse (too deep, an end without a begin) marks the writer
 * failed and mri_pickle_finish says so. */
typedef struct mri_pickle_level {
  char kind;    /* 'd' dict, 'l' list, 't' tuple */
  size_t items; /* values written into it since its last batch */
} mri_pickle_level;

typedef struct mri_pickle {
  FILE *out;
  int depth;
  mri_pickle_level levels[MRI_PICKLE_DEPTH];
  bool misused;
} mri_pickle;

void mri_pickle_begin(mri_pickle *p, FILE *out);      /* the protocol header */
void mri_pickle_dict(mri_pickle *p);                  /* begin a dict */
void mri_pickle_list(mri_pickle *p);                  /* begin a list */
void mri_pickle_tuple(mri_pickle *p);                 /* begin a tuple */
void mri_pickle_end(mri_pickle *p);                   /* end the innermost container */
void mri_pickle_str(mri_pickle *p, const char *text); /* NULL: "" */
void mri_pickle_strn(mri_pickle *p, const char *text, size_t length);
void mri_pickle_int(mri_pickle *p, int64_t value);
void mri_pickle_uint(mri_pickle *p, uint64_t value);
void mri_pickle_bool(mri_pickle *p, bool value);
void mri_pickle_none(mri_pickle *p);
/* The end of the pickle. False on a misuse or a write error (errno says
 * which; EINVAL for a misuse). */
bool mri_pickle_finish(mri_pickle *p);

/* ---- memory_viz's snapshot ---------------------------------------------- */

/* A block, as a segment of its own and as the trace's events name it. */
typedef struct mri_memviz_block {
  const char *owner; /* "library:tag": its pool */
  int device;        /* < 0: not shown (memory_viz has devices only) */
  uint64_t ptr, bytes, stream;
  const char *const *frames; /* its call site as mrctx names it, innermost first; may be NULL */
  size_t frame_count;
  bool live; /* live at the end: in "segments" */
} mri_memviz_block;

typedef enum mri_memviz_action {
  MRI_MEMVIZ_ALLOC, /* blocks[block] allocated */
  MRI_MEMVIZ_FREE,  /* blocks[block] freed */
  MRI_MEMVIZ_OOM,   /* an allocation of `bytes` on `device` failed */
} mri_memviz_action;

typedef struct mri_memviz_event {
  uint64_t time_us;
  uint8_t action;                      /* mri_memviz_action */
  size_t block;                        /* ALLOC and FREE */
  int device;                          /* OOM */
  uint64_t bytes, stream, device_free; /* OOM: asked, on, the device's free memory (0: unknown) */
} mri_memviz_event;

typedef struct mri_memviz {
  const mri_memviz_block *blocks;
  size_t block_count;
  const mri_memviz_event *events; /* in the order they happened, every device's */
  size_t event_count;
  uint64_t end_us;       /* when the state "segments" shows was: the "snapshot" marker */
  const char *generator; /* allocator_settings["generator"]: "mrctx 0.2.0" */
  const char *source;    /* allocator_settings["source"]: what it was made from */
} mri_memviz;

/* Write `viz` to `out` as memory_viz's pickle. False out of host memory
 * (errno ENOMEM) or on a write error (errno). */
bool mri_memviz_write(FILE *out, const mri_memviz *viz);

#endif
