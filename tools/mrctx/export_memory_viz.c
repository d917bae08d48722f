/*
 * export_memory_viz.c: `mrctx export --format memory_viz`: a snapshot file
 * or allocation logs as PyTorch's memory_viz reads them (the pickle that
 * torch.cuda.memory._snapshot() is saved as, which pytorch.org/memory_viz
 * and torch.cuda._memory_viz open).
 *
 * A snapshot file goes through the library (cmd_export.c calls
 * mr_snapshot_write_memory_viz, as mrctx.export_memory_viz does in
 * Python): its tracked blocks, with their call sites. Logs (rmm's CSV,
 * read as `mrctx replay` reads them, their pointers kept) are this file's: each log is a pool named NAME (its
 * library:tag, as `mrctx plot` names logs), on device 0 or on the device N
 * that NAME@N names (a log records none); every allocation and free is an
 * event of the timeline in the order of the logs' clock times, lined up as
 * `mrctx export --format perfetto` lines them up, and a failed allocation
 * an "oom" (a log records no free memory: 0). The blocks live at the end of
 * the logs are the segments. Both are written by the library's own writer
 * of the format (lib/core/memory_viz.c, linked as mrctx_text), so the two
 * sources cannot drift apart in what they write.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <mrctx/mrctx.h>

#include "commands.h"
#include "core/memory_viz.h"
#include "export_memory_viz.h"
#include "replay_log.h"

/* NAME@N: the device N, and NAME without it; else device 0. */
static int name_device(char *name) {
  char *at = strrchr(name, '@');
  if (at == NULL || at[1] == '\0') return 0;
  char *end;
  errno = 0;
  long device = strtol(at + 1, &end, 10);
  if (*end != '\0' || errno != 0 || device < 0 || device > 1023 || at[1] < '0' || at[1] > '9')
    return 0;
  *at = '\0';
  return (int)device;
}

typedef struct log_input {
  replay_log log;
  char *name;
  int device;
  bool read;
  double start_s;     /* its first event on the common clock: seconds after the earliest */
  size_t next;        /* the next of its events to merge */
  size_t *slot_block; /* per block slot: the index of the block holding it */
} log_input;

static int out_of_memory(void) {
  fputs("mrctx export: out of memory\n", stderr);
  return MRCTX_EXIT_FAILURE;
}

int export_memory_viz_logs(char *const *inputs, size_t count, bool skip_bad, FILE *out) {
  log_input *logs = calloc(count, sizeof *logs);
  if (logs == NULL) return out_of_memory();
  int rc = MRCTX_EXIT_OK;
  size_t total_events = 0;
  for (size_t i = 0; i < count && rc == MRCTX_EXIT_OK; i++) {
    log_input *in = &logs[i];
    const char *path = mrctx_name_and_path(inputs[i], &in->name);
    char why[700];
    if (in->name == NULL) {
      rc = out_of_memory();
    } else if (!replay_log_read_pointers(path, skip_bad, &in->log, why, sizeof why)) {
      fprintf(stderr, "mrctx export: %s\n", why);
      rc = MRCTX_EXIT_FAILURE;
    } else {
      in->read = true;
      in->device = name_device(in->name);
      total_events += in->log.event_count;
      if (replay_log_skipped(&in->log) > 0)
        fprintf(stderr, "mrctx export: %s: skipped %" PRIu64 " bad lines; the first: %s\n", path,
                replay_log_skipped(&in->log), in->log.first_skipped);
      in->slot_block = calloc(in->log.block_slots ? in->log.block_slots : 1, sizeof(size_t));
      if (in->slot_block == NULL) rc = out_of_memory();
    }
  }
  mri_memviz_block *blocks = NULL;
  mri_memviz_event *events = NULL;
  if (rc == MRCTX_EXIT_OK) {
    /* Lined up by clock time, as the perfetto export lines them up: a log
     * that began more than half a day before the latest began after
     * midnight. */
    double latest = 0, first = 0;
    for (size_t i = 0; i < count; i++)
      if (logs[i].log.start_clock > latest) latest = logs[i].log.start_clock;
    for (size_t i = 0; i < count; i++) {
      double start =
          logs[i].log.start_clock + (logs[i].log.start_clock < latest - 43200.0 ? 86400.0 : 0);
      logs[i].start_s = start;
      if (i == 0 || start < first) first = start;
    }
    for (size_t i = 0; i < count; i++) logs[i].start_s -= first;
    blocks = calloc(total_events ? total_events : 1, sizeof *blocks);
    events = calloc(total_events ? total_events : 1, sizeof *events);
    if (blocks == NULL || events == NULL) rc = out_of_memory();
  }
  size_t block_count = 0, event_count = 0;
  double end_s = 0;
  while (rc == MRCTX_EXIT_OK) {
    /* The earliest next event of all logs (of two at once, the first log's):
     * the timeline is one order over every log. */
    log_input *in = NULL;
    double at = 0;
    for (size_t i = 0; i < count; i++) {
      log_input *l = &logs[i];
      if (l->next == l->log.event_count) continue;
      double t = l->start_s + l->log.events[l->next].time;
      if (in == NULL || t < at) {
        in = l;
        at = t;
      }
    }
    if (in == NULL) break;
    const replay_event *e = &in->log.events[in->next];
    uint64_t pointer = in->log.pointers[in->next];
    in->next++;
    if (at > end_s) end_s = at;
    mri_memviz_event *v = &events[event_count++];
    *v = (mri_memviz_event){.time_us = (uint64_t)(at * 1e6 + 0.5)};
    uint64_t stream = e->stream < in->log.stream_count ? in->log.streams[e->stream] : 0;
    if (e->action == REPLAY_ALLOCATE) {
      size_t b = block_count++;
      blocks[b] = (mri_memviz_block){.owner = in->name,
                                     .device = in->device,
                                     .ptr = pointer,
                                     .bytes = e->size,
                                     .stream = stream,
                                     .live = true};
      in->slot_block[e->block] = b;
      v->action = MRI_MEMVIZ_ALLOC;
      v->block = b;
    } else if (e->action == REPLAY_FREE) {
      size_t b = in->slot_block[e->block];
      blocks[b].live = false;
      v->action = MRI_MEMVIZ_FREE;
      v->block = b;
    } else {
      v->action = MRI_MEMVIZ_OOM;
      v->device = in->device;
      v->bytes = e->size;
      v->stream = stream;
      v->device_free = 0; /* a log does not record it */
    }
  }
  if (rc == MRCTX_EXIT_OK) {
    char generator[96], source[96];
    snprintf(generator, sizeof generator, "mrctx %s", mr_version());
    snprintf(source, sizeof source, "mrctx allocation logs (%zu)", count);
    mri_memviz viz = {.blocks = blocks,
                      .block_count = block_count,
                      .events = events,
                      .event_count = event_count,
                      .end_us = (uint64_t)(end_s * 1e6 + 0.5),
                      .generator = generator,
                      .source = source};
    errno = 0;
    if (!mri_memviz_write(out, &viz)) {
      fprintf(stderr, "mrctx export: cannot write: %s\n", strerror(errno));
      rc = MRCTX_EXIT_FAILURE;
    }
  }
  free(blocks);
  free(events);
  for (size_t i = 0; i < count; i++) {
    if (logs[i].read) replay_log_free(&logs[i].log);
    free(logs[i].slot_block);
    free(logs[i].name);
  }
  free(logs);
  return rc;
}
