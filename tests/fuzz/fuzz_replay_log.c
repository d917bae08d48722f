/*
 * fuzz_replay_log.c: libFuzzer target for the allocation-log reader of
 * `mrctx replay` and `mrctx plot` (tools/mrctx/replay_log.c).
 *
 * Each input is a log file's bytes, read from memory (fmemopen) twice: as
 * replay reads it, stopping at the first bad line, and with --skip-bad.
 * Nothing may crash, leak or hang, and what the reader accepts is checked
 * against its promises (replay_log.h); a violation aborts, so libFuzzer
 * keeps the input:
 *   - a log read whole has events in time order from 0, each free
 *     returning a block its slot holds with the size it was allocated
 *     with, each allocation into an empty slot, and the counts, the peak,
 *     the frees on another thread and what is live at the end exactly
 *     what the events add up to; each event's thread one of the log's,
 *     each thread first seen in the order of the list;
 *   - a log read without --skip-bad reads the same with it, skipping
 *     nothing; a log that fails only for a bad line reads with it;
 *   - every message (the reason, the first line skipped) is one line of
 *     printable text, whatever bytes the input holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool condition, const char *what) {
  if (!condition) {
    fprintf(stderr, "fuzz_replay_log: %s\n", what);
    abort();
  }
}

/* Printable ASCII only: the reader quotes input bytes as '?'. */
static void check_message(const char *text) {
  for (const unsigned char *s = (const unsigned char *)text; *s != '\0'; s++)
    check(*s >= 0x20 && *s < 0x7f, "a message holds a byte that is not printable");
}

static bool read_log(const uint8_t *data, size_t size, bool skip_bad, replay_log *log, char *why,
                     size_t cap) {
  /* fmemopen wants a buffer of at least one byte; an empty input reads as
   * an empty file either way. */
  static const char empty[1];
  FILE *f = fmemopen(size > 0 ? (void *)data : (void *)empty, size, "r");
  if (f == NULL) {
    snprintf(why, cap, "fmemopen failed");
    return false;
  }
  why[0] = '\0';
  bool ok = replay_log_read_stream(f, "fuzz.csv", skip_bad, log, why, cap);
  fclose(f);
  return ok;
}

/* Replay the events over slots and compare with what the reader says. */
static void check_log(const replay_log *log) {
  check(log->event_count == 0 || log->events != NULL, "events missing");
  check(log->thread_count <= log->event_count, "more threads than events");
  check(log->stream_count <= log->event_count, "more streams than events");
  uint64_t *slot_size = calloc(log->block_slots ? log->block_slots : 1, sizeof *slot_size);
  bool *slot_used = calloc(log->block_slots ? log->block_slots : 1, sizeof *slot_used);
  uint32_t *slot_thread = calloc(log->block_slots ? log->block_slots : 1, sizeof *slot_thread);
  check(slot_size != NULL && slot_used != NULL && slot_thread != NULL,
        "out of memory in the check");
  check(log->thread_count == 0 || log->threads != NULL, "threads missing");
  uint64_t allocations = 0, failures = 0, frees = 0, live = 0, live_blocks = 0, peak = 0;
  uint64_t cross_thread_frees = 0;
  size_t threads_seen = 0;
  double last = 0, peak_time = 0;
  for (size_t i = 0; i < log->event_count; i++) {
    const replay_event *e = &log->events[i];
    check(e->time >= last && (i > 0 || e->time == 0), "event times go back");
    last = e->time;
    check(e->stream < log->stream_count, "an event's stream is out of range");
    check(e->thread < log->thread_count && e->thread <= threads_seen,
          "an event's thread is out of range, or out of the order of first sight");
    if (e->thread == threads_seen) threads_seen++;
    switch (e->action) {
    case REPLAY_ALLOCATE:
      check(e->block < log->block_slots, "an allocation's slot is out of range");
      check(!slot_used[e->block], "an allocation into a slot still in use");
      check(e->size <= UINT64_MAX - live, "the bytes live wrap");
      slot_used[e->block] = true;
      slot_size[e->block] = e->size;
      slot_thread[e->block] = e->thread;
      live += e->size;
      live_blocks++;
      allocations++;
      if (live > peak) {
        peak = live;
        peak_time = e->time;
      }
      break;
    case REPLAY_FREE:
      check(e->block < log->block_slots, "a free's slot is out of range");
      check(slot_used[e->block], "a free of an empty slot");
      check(slot_size[e->block] == e->size, "a free with another size than its allocation");
      slot_used[e->block] = false;
      if (slot_thread[e->block] != e->thread) cross_thread_frees++;
      live -= e->size;
      live_blocks--;
      frees++;
      break;
    case REPLAY_ALLOCATE_FAILURE:
      failures++;
      break;
    default:
      check(false, "an unknown action");
    }
  }
  check(allocations == log->allocations && failures == log->failures && frees == log->frees,
        "the counts by action differ from the events");
  check(live == log->live_bytes && live_blocks == log->live_blocks,
        "what is live at the end differs from the events");
  check(peak == log->peak_bytes && peak_time == log->peak_time, "the peak differs from the events");
  check(cross_thread_frees == log->cross_thread_frees && threads_seen == log->thread_count,
        "the frees on another thread or the threads differ from the events");
  for (size_t a = 0; a < log->thread_count; a++)
    for (size_t b = a + 1; b < log->thread_count && b < a + 64; b++)
      check(log->threads[a] != log->threads[b], "a thread listed twice");
  free(slot_size);
  free(slot_used);
  free(slot_thread);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[1024], why_skipping[1024];
  replay_log strict, skipping;
  bool ok = read_log(data, size, false, &strict, why, sizeof why);
  bool ok_skipping = read_log(data, size, true, &skipping, why_skipping, sizeof why_skipping);
  if (ok) {
    check(replay_log_skipped(&strict) == 0, "a strict read skipped lines");
    check_log(&strict);
    check(ok_skipping, "a log read whole fails with --skip-bad");
    check(replay_log_skipped(&skipping) == 0, "--skip-bad skipped lines of a good log");
    check(skipping.event_count == strict.event_count, "--skip-bad reads a good log differently");
    for (size_t i = 0; i < strict.event_count; i++) {
      const replay_event *a = &strict.events[i], *b = &skipping.events[i];
      check(a->time == b->time && a->size == b->size && a->block == b->block &&
                a->stream == b->stream && a->thread == b->thread && a->action == b->action,
            "--skip-bad reads a good log's events differently");
    }
  } else {
    check(why[0] != '\0' && strict.events == NULL, "a failed read says nothing or keeps events");
    check_message(why);
  }
  if (ok_skipping) {
    check_log(&skipping);
    check(replay_log_skipped(&skipping) == 0 || skipping.first_skipped[0] != '\0',
          "lines skipped, the first not named");
    check_message(skipping.first_skipped);
  } else {
    check(why_skipping[0] != '\0', "a failed read says nothing");
    check_message(why_skipping);
    /* With --skip-bad only the header, an empty file or memory fail. */
    check(!ok, "a log read whole fails with --skip-bad");
  }
  if (ok) replay_log_free(&strict);
  if (ok_skipping) replay_log_free(&skipping);
  return 0;
}
