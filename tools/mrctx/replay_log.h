/*
 * replay_log.h: an allocation log in rmm's CSV format, read into memory and
 * checked, for `mrctx replay` and `mrctx plot`.
 *
 * The format is what the `log` adaptor writes and what rmm's
 * logging_resource_adaptor writes: the header
 * "Thread,Time,Action,Pointer,Size,Stream", then one line per event. Thread
 * is a decimal id; Time is the clock time "HH:MM:SS.ffffff" (or seconds
 * "S.ffffff"); Action is "allocate", "allocate failure" or "free"
 * ("deallocate", the spelling of rmm's documentation, is read as "free");
 * Pointer and Stream are hexadecimal, with or without "0x" ("(nil)", what
 * rmm's printf writes for a null pointer, is 0); Size is decimal bytes.
 *
 * The whole file is checked before anything uses it: every line parses,
 * every free matches a live allocation of that pointer and size, no live
 * pointer is handed out twice, the bytes live at once never pass 2^64 - 1
 * (so no byte total wraps). Each bad line is an error naming the file,
 * the line and the problem; with skip_bad the line is skipped instead and
 * counted by kind.
 */
#ifndef MRCTX_TOOLS_REPLAY_LOG_H
#define MRCTX_TOOLS_REPLAY_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum replay_action {
  REPLAY_ALLOCATE,         /* an allocation that succeeded when recorded */
  REPLAY_ALLOCATE_FAILURE, /* an allocation that failed when recorded */
  REPLAY_FREE,
} replay_action;

/* One event, in the order of the file. */
typedef struct replay_event {
  double time;     /* seconds since the log's first event, never decreasing */
  uint64_t size;   /* bytes */
  uint32_t block;  /* allocate and free: the block's slot, 0..block_slots-1;
                      a slot is reused once its block is freed */
  uint32_t stream; /* index into replay_log.streams */
  uint32_t thread; /* index into replay_log.threads: the thread that made it */
  uint8_t action;  /* replay_action */
} replay_event;

/* The kinds of bad line, for the counts --skip-bad reports. */
typedef enum replay_bad_kind {
  REPLAY_BAD_FIELDS,     /* not six fields: a cut or foreign line */
  REPLAY_BAD_TRUNCATED,  /* the file ends inside the line */
  REPLAY_BAD_ACTION,     /* an action other than the three */
  REPLAY_BAD_NUMBER,     /* a field that is not a number of its kind */
  REPLAY_BAD_FREE,       /* a free of a pointer that is not allocated */
  REPLAY_BAD_FREE_SIZE,  /* a free whose size is not its allocation's */
  REPLAY_BAD_REALLOCATE, /* an allocation of a pointer still allocated */
  REPLAY_BAD_NULL,       /* a successful allocation of bytes at address 0 */
  REPLAY_BAD_OVERFLOW,   /* an allocation that takes the bytes live past 2^64 - 1 */
  REPLAY_BAD_KIND_COUNT
} replay_bad_kind;

typedef struct replay_log {
  const char *path;
  replay_event *events;
  size_t event_count;
  /* Read with replay_log_read_pointers: each event's Pointer (0 for a
   * failure), beside the events; else NULL. */
  uint64_t *pointers;
  uint64_t *streams; /* the distinct Stream values, in order of appearance */
  size_t stream_count;
  uint64_t *threads; /* the distinct Thread values, in order of appearance */
  size_t thread_count;
  size_t block_slots;                    /* the most blocks live at once */
  uint64_t allocations, failures, frees; /* events of each action */
  /* Frees made on another thread than their block's allocation (what a
   * per-thread cache cannot serve from the freeing thread's own blocks). */
  uint64_t cross_thread_frees;
  uint64_t peak_bytes;                     /* the most bytes live at once */
  double peak_time;                        /* when that was first reached (seconds, as events) */
  uint64_t live_blocks, live_bytes;        /* still allocated at the end */
  double start_clock;                      /* the first event's Time, seconds (of the day) */
  uint64_t skipped[REPLAY_BAD_KIND_COUNT]; /* with skip_bad: lines skipped, by kind */
  char first_skipped[600];                 /* "line N: problem" of the first line skipped */
} replay_log;

/* Read and check `path`. On failure: false, *log freed, and `why` says
 * "PATH:LINE: problem" (or "PATH: problem"). With skip_bad, a bad event line
 * is skipped and counted in log->skipped instead; a file that cannot be
 * read or has no header fails either way. A gzip-compressed log (what
 * `gzip` makes of one, the way recorded traces are kept) is read as it is
 * where mrctx was built with zlib; elsewhere it fails saying so. */
bool replay_log_read(const char *path, bool skip_bad, replay_log *log, char *why, size_t cap);

/* The same, keeping each event's Pointer in log->pointers (`mrctx export
 * --format memory_viz` shows blocks by address; replay needs none). */
bool replay_log_read_pointers(const char *path, bool skip_bad, replay_log *log, char *why,
                              size_t cap);

/* The same from an open stream (read to its end, not closed); `path`
 * names it in messages. A line that cannot be read (out of memory, a read
 * error) fails the read: the log is never taken as complete without its
 * end. So does a line longer than 1 MiB, with or without skip_bad, read no
 * further than that: no log line is near it, and a small gzip file can
 * hold one of gigabytes. */
bool replay_log_read_stream(FILE *f, const char *path, bool skip_bad, replay_log *log, char *why,
                            size_t cap);

void replay_log_free(replay_log *log);

/* A bad-line kind in words, for reports: "unknown action". */
const char *replay_bad_kind_name(replay_bad_kind kind);

/* A short key for JSON: "unknown_action". */
const char *replay_bad_kind_key(replay_bad_kind kind);

/* The lines skipped, in total. */
uint64_t replay_log_skipped(const replay_log *log);

#endif
