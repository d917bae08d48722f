/*
 * cmd_export.c: `mrctx export --format perfetto [NAME=]LOG ... | SNAPSHOT ...`:
 * memory over time as a Chrome trace-event JSON file, which
 * ui.perfetto.dev and chrome://tracing open.
 *
 * From allocation logs (rmm's CSV, read as `mrctx replay` reads them): a
 * process per log (its name the layer's, NAME= or the file's), with a
 * counter track of the bytes live, an async slice per allocation from its
 * allocation to its free (args: size, stream, the recorded thread, the
 * block's slot), and an instant event per failed allocation. The logs are
 * lined up by their clock times, as `mrctx plot` lines them up.
 *
 * From snapshot files (JSON, in the order of their times): a counter track
 * per library:tag and device (its current bytes at each snapshot), an
 * async slice per listed block of a tracked tag from when it was allocated
 * (the snapshot's time less the block's age) to the last snapshot that
 * lists it, with its size, address, stream and call site where the
 * tracker keeps stacks, and an instant event per out-of-memory dump.
 *
 * Times are microseconds from the first event, as the format has them.
 * Every string goes out through mri_json_write_string, sizes in words
 * through mrctx_format_bytes: the writers of the mrctx command share both.
 *
 * `--format memory_viz` writes PyTorch's memory_viz pickle instead: one
 * snapshot file through the library (mr_snapshot_write_memory_viz), or
 * logs through export_memory_viz.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mrctx/mrctx.h>

#include "commands.h"
#include "export_blocks.h"
#include "export_memory_viz.h"
#include "plot.h"
#include "replay_log.h"

static void usage(FILE *out) {
  fputs("usage: mrctx export --format perfetto [-o FILE] [--skip-bad] [NAME=]LOG ...\n"
        "       mrctx export --format perfetto [-o FILE] SNAPSHOT.json ...\n"
        "       mrctx export --format memory_viz [-o FILE] [--skip-bad] [NAME[@DEVICE]=]LOG ...\n"
        "       mrctx export --format memory_viz [-o FILE] SNAPSHOT.json\n"
        "\n"
        "Write memory over time as a Chrome trace-event JSON file, which\n"
        "ui.perfetto.dev and chrome://tracing open: from allocation logs in rmm's CSV\n"
        "format, a process per log with a counter of the bytes live and a slice per\n"
        "allocation; from snapshot files, a counter per library:tag and device and a\n"
        "slice per listed block of a tracked tag, with its call site where recorded.\n"
        "Or write PyTorch's memory_viz snapshot (a pickle), which pytorch.org/memory_viz\n"
        "and torch.cuda._memory_viz open: from one snapshot file, each tracked block as\n"
        "a segment and an allocation, with its call site; from logs, every allocation\n"
        "and free; each library:tag (a log's NAME) a pool of its own.\n"
        "\n"
        "  --format FORMAT    perfetto (Chrome trace-event JSON, which Perfetto reads)\n"
        "                     or memory_viz (PyTorch's memory snapshot pickle)\n"
        "  -o, --output FILE  the file to write (default: standard output, not a\n"
        "                     terminal for memory_viz)\n"
        "  --skip-bad         skip bad lines of a log and count them, instead of\n"
        "                     stopping at the first\n"
        "  -h, --help         show this help\n"
        "\n"
        "A log's process is named NAME if given, else by the file's name without .csv;\n"
        "for memory_viz, NAME@DEVICE puts it on that device (default 0).\n"
        "Exit status: 0 written, 1 a bad log or snapshot or a file that cannot be\n"
        "written, 2 bad usage.\n",
        out);
}

typedef struct export_options {
  const char *format;
  const char *output;
  bool skip_bad;
  char **inputs;
  size_t input_count;
} export_options;

static int parse_options(int argc, char **argv, export_options *o) {
  static const struct option longopts[] = {
      {"format", required_argument, NULL, 'f'},
      {"output", required_argument, NULL, 'o'},
      MRCTX_READ_OPTIONS_END,
  };
  mrctx_string_option strings[] = {{'f', &o->format}, {'o', &o->output}, {0, NULL}};
  int status = mrctx_read_options(argc, argv, "ho:", longopts, usage, &o->skip_bad,
                                  mrctx_take_string, strings);
  if (status >= 0) return status;
  o->inputs = argv + optind;
  o->input_count = (size_t)(argc - optind);
  if (o->format == NULL) {
    fputs("mrctx export: give the format with --format perfetto or --format memory_viz (see "
          "--help)\n",
          stderr);
    return MRCTX_EXIT_USAGE;
  }
  if (strcmp(o->format, "perfetto") != 0 && strcmp(o->format, "memory_viz") != 0) {
    char shown[256];
    fprintf(stderr, "mrctx export: unknown format '%s' (known: perfetto, memory_viz)\n",
            mri_printable(o->format, shown, sizeof shown));
    return MRCTX_EXIT_USAGE;
  }
  if (o->input_count == 0) {
    fputs("mrctx export: give at least one log or snapshot file (see --help)\n", stderr);
    return MRCTX_EXIT_USAGE;
  }
  return -1;
}

/* ---- writing events ---------------------------------------------------------------- */

typedef struct writer {
  FILE *out;
  size_t events;
  uint64_t next_id; /* async slice ids, unique in the whole trace */
} writer;

/* The start of one event, up to its args: {"name": ..., "ph": ..., "ts": ..., "pid": ...,
 * "tid": ...; the caller adds the rest and the closing brace. */
static void event_start(writer *w, const char *name, const char *ph, double ts_us, long pid,
                        long tid) {
  fputs(w->events++ > 0 ? ",\n" : "\n", w->out);
  fputs("{\"name\": ", w->out);
  mri_json_write_string(w->out, name);
  fprintf(w->out, ", \"ph\": \"%s\", \"ts\": %.3f, \"pid\": %ld, \"tid\": %ld", ph, ts_us, pid,
          tid);
}

/* A process's name (metadata). */
static void process_name(writer *w, long pid, const char *name) {
  fputs(w->events++ > 0 ? ",\n" : "\n", w->out);
  fprintf(w->out,
          "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %ld, \"tid\": 0, "
          "\"args\": {\"name\": ",
          pid);
  mri_json_write_string(w->out, name);
  fputs("}}", w->out);
}

static void counter(writer *w, const char *name, double ts_us, long pid, uint64_t bytes) {
  event_start(w, name, "C", ts_us, pid, 0);
  fprintf(w->out, ", \"args\": {\"bytes\": %" PRIu64 "}}", bytes);
}

/* "4.0 MiB", or "4.0 MiB at FUNCTION" where a call site is known (the
 * function's name, up to its "+0x"). */
static void slice_name(char *buf, size_t cap, uint64_t bytes, const char *site) {
  char size[32];
  mri_format_bytes(bytes, true, size, sizeof size);
  if (site == NULL || site[0] == '\0') {
    snprintf(buf, cap, "%s", size);
    return;
  }
  const char *plus = strstr(site, "+0x");
  int n = plus != NULL ? (int)(plus - site) : (int)strlen(site);
  snprintf(buf, cap, "%s at %.*s", size, n, site);
}

static bool finish(writer *w, const char *path) {
  fputs("\n],\n\"displayTimeUnit\": \"ms\"\n}\n", w->out);
  if (fflush(w->out) != 0 || ferror(w->out)) {
    fprintf(stderr, "mrctx export: cannot write %s: %s\n", path != NULL ? path : "to stdout",
            strerror(errno));
    return false;
  }
  return true;
}

static void begin(writer *w, const char *source) {
  fputs("{\"otherData\": {\"generator\": \"mrctx export\", \"mrctx_version\": ", w->out);
  mri_json_write_string(w->out, mr_version());
  fputs(", \"source\": ", w->out);
  mri_json_write_string(w->out, source);
  fputs("},\n\"traceEvents\": [", w->out);
}

/* ---- from logs ------------------------------------------------------------------------ */

/* One log as a process: its counter, its allocations and failures. */
static bool export_log(writer *w, const replay_log *log, const char *name, long pid,
                       double offset_s) {
  process_name(w, pid, name);
  /* Per block slot: the id of the allocation holding it (0: none). */
  uint64_t *ids = calloc(log->block_slots ? log->block_slots : 1, sizeof *ids);
  uint64_t *sizes = calloc(log->block_slots ? log->block_slots : 1, sizeof *sizes);
  if (ids == NULL || sizes == NULL) {
    free(ids);
    free(sizes);
    return false;
  }
  uint64_t live = 0;
  double last_us = 0;
  counter(w, name, offset_s * 1e6, pid, 0);
  for (size_t i = 0; i < log->event_count; i++) {
    const replay_event *e = &log->events[i];
    double ts = (offset_s + e->time) * 1e6;
    last_us = ts;
    char title[96];
    long tid = (long)e->thread + 1;
    uint64_t stream = log->stream_count > e->stream ? log->streams[e->stream] : 0;
    if (e->action == REPLAY_ALLOCATE) {
      ids[e->block] = ++w->next_id;
      sizes[e->block] = e->size;
      live += e->size;
      slice_name(title, sizeof title, e->size, NULL);
      event_start(w, title, "b", ts, pid, tid);
      fprintf(w->out,
              ", \"cat\": \"allocation\", \"id\": \"0x%" PRIx64 "\", \"args\": {\"size\": %" PRIu64
              ", \"stream\": \"0x%" PRIx64 "\", \"thread\": %" PRIu64 ", \"block\": %" PRIu32 "}}",
              ids[e->block], e->size, stream,
              log->thread_count > e->thread ? log->threads[e->thread] : 0, e->block);
      counter(w, name, ts, pid, live);
    } else if (e->action == REPLAY_FREE) {
      if (ids[e->block] == 0) continue; /* a free the reader kept without its allocation */
      live -= e->size;
      slice_name(title, sizeof title, e->size, NULL);
      event_start(w, title, "e", ts, pid, tid);
      fprintf(w->out, ", \"cat\": \"allocation\", \"id\": \"0x%" PRIx64 "\", \"args\": {}}",
              ids[e->block]);
      ids[e->block] = 0;
      counter(w, name, ts, pid, live);
    } else {
      char size[32];
      mri_format_bytes(e->size, true, size, sizeof size);
      snprintf(title, sizeof title, "allocate failure %s", size);
      event_start(w, title, "i", ts, pid, tid);
      fprintf(w->out,
              ", \"s\": \"p\", \"args\": {\"size\": %" PRIu64 ", \"stream\": \"0x%" PRIx64 "\"}}",
              e->size, stream);
    }
  }
  /* Still live at the end of the log: closed there, and said so. */
  for (size_t b = 0; b < log->block_slots; b++) {
    if (ids[b] == 0) continue;
    char title[96];
    slice_name(title, sizeof title, sizes[b], NULL);
    event_start(w, title, "e", last_us, pid, 1);
    fprintf(w->out,
            ", \"cat\": \"allocation\", \"id\": \"0x%" PRIx64 "\", \"args\": {\"live_at_end\": "
            "true}}",
            ids[b]);
  }
  free(ids);
  free(sizes);
  return true;
}

static int export_logs(const export_options *o, writer *w) {
  size_t count = o->input_count;
  replay_log *logs = calloc(count, sizeof *logs);
  char **names = calloc(count, sizeof *names);
  int rc = MRCTX_EXIT_OK;
  if (logs == NULL || names == NULL) {
    fputs("mrctx export: out of memory\n", stderr);
    rc = MRCTX_EXIT_FAILURE;
  }
  size_t read = 0;
  for (; rc == MRCTX_EXIT_OK && read < count; read++) {
    const char *path = mrctx_name_and_path(o->inputs[read], &names[read]);
    char why[700];
    if (names[read] == NULL) {
      fputs("mrctx export: out of memory\n", stderr);
      rc = MRCTX_EXIT_FAILURE;
    } else if (!replay_log_read(path, o->skip_bad, &logs[read], why, sizeof why)) {
      fprintf(stderr, "mrctx export: %s\n", why);
      rc = MRCTX_EXIT_FAILURE;
      free(names[read]);
      names[read] = NULL;
    } else if (replay_log_skipped(&logs[read]) > 0) {
      fprintf(stderr, "mrctx export: %s: skipped %" PRIu64 " bad lines; the first: %s\n", path,
              replay_log_skipped(&logs[read]), logs[read].first_skipped);
    }
  }
  if (rc == MRCTX_EXIT_OK) {
    /* Lined up by clock time: a log that began more than half a day
     * before the latest began after midnight. */
    double latest = 0;
    for (size_t i = 0; i < count; i++)
      if (logs[i].start_clock > latest) latest = logs[i].start_clock;
    double *starts = calloc(count, sizeof *starts);
    double first = 0;
    for (size_t i = 0; starts != NULL && i < count; i++) {
      starts[i] = logs[i].start_clock + (logs[i].start_clock < latest - 43200.0 ? 86400.0 : 0);
      if (i == 0 || starts[i] < first) first = starts[i];
    }
    begin(w, "allocation logs");
    for (size_t i = 0; starts != NULL && i < count && rc == MRCTX_EXIT_OK; i++)
      if (!export_log(w, &logs[i], names[i], (long)i + 1, starts[i] - first))
        rc = MRCTX_EXIT_FAILURE;
    if (starts == NULL || rc != MRCTX_EXIT_OK) {
      fputs("mrctx export: out of memory\n", stderr);
      rc = MRCTX_EXIT_FAILURE;
    } else if (!finish(w, o->output)) {
      rc = MRCTX_EXIT_FAILURE;
    }
    free(starts);
  }
  for (size_t i = 0; i < read && logs != NULL; i++) {
    if (names[i] != NULL) replay_log_free(&logs[i]);
    free(names[i]);
  }
  free(logs);
  free(names);
  return rc;
}

/* ---- from snapshots ---------------------------------------------------------------- */

typedef struct snap_file {
  const char *path;
  mr_snapshot *snap;
  mr_snapshot_info info;
} snap_file;

static int by_time(const void *a, const void *b) {
  const snap_file *x = a, *y = b;
  return x->info.time_unix_ns < y->info.time_unix_ns   ? -1
         : x->info.time_unix_ns > y->info.time_unix_ns ? 1
                                                       : 0;
}

static mr_snapshot *read_snapshot(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "mrctx export: %s: cannot open: %s\n", path, strerror(errno));
    return NULL;
  }
  char *text = NULL;
  size_t length = 0;
  bool read = mrctx_read_all(f, MRCTX_SNAPSHOT_MAX, &text, &length);
  int read_errno = errno;
  fclose(f);
  if (!read) {
    fprintf(stderr, "mrctx export: %s: cannot read: %s\n", path,
            read_errno == EFBIG ? "larger than 256 MiB, which no snapshot is"
                                : strerror(read_errno));
    return NULL;
  }
  mr_snapshot *snap = NULL;
  mr_status st = mr_snapshot_read(text, length, &snap);
  free(text);
  if (st != MR_OK) {
    fprintf(stderr, "mrctx export: %s: not a snapshot: %s\n", path, mr_last_error());
    return NULL;
  }
  return snap;
}

/* What note_block is given: the blocks, and the snapshot being read. */
typedef struct block_visit {
  export_blocks *blocks;
  const char *path;
  uint64_t now_ns;
  bool failed; /* out of memory */
  bool bad;    /* a listing no snapshot can hold (said on stderr) */
} block_visit;

static void note_block(void *user, const mr_snapshot_block *b) {
  block_visit *v = user;
  if (v->failed || v->bad) return;
  switch (export_blocks_note(v->blocks, b, v->now_ns)) {
  case EXPORT_BLOCKS_OK:
    break;
  case EXPORT_BLOCKS_OUT_OF_MEMORY:
    v->failed = true;
    break;
  case EXPORT_BLOCKS_TOO_OLD: {
    char library[256], tag[256];
    fprintf(stderr,
            "mrctx export: %s: the block at 0x%" PRIx64 " of %s:%s on device %d is %" PRIu64
            " ns old, more than the snapshot's time_unix_ns %" PRIu64
            " (allocated before 1970): a damaged snapshot?\n",
            v->path, b->ptr, mri_printable(b->library, library, sizeof library),
            mri_printable(b->tag, tag, sizeof tag), b->device, b->age_ns, v->now_ns);
    v->bad = true;
    break;
  }
  }
}

/* The counter tracks: one per library:tag and device, in order of first
 * appearance. */
typedef struct track_names {
  char **names;
  size_t count, capacity;
  bool failed;
} track_names;

typedef struct counter_visit {
  writer *w;
  track_names *tracks;
  double ts_us;
} counter_visit;

static void write_counter(void *user, const mr_snapshot_tag_entry *entry) {
  counter_visit *v = user;
  char *name = NULL;
  if (asprintf(&name, "%s:%s device %d", entry->library, entry->tag, entry->device) < 0) {
    v->tracks->failed = true;
    return;
  }
  track_names *t = v->tracks;
  size_t i = 0;
  while (i < t->count && strcmp(t->names[i], name) != 0) i++;
  if (i == t->count) {
    if (t->count == t->capacity) {
      size_t capacity = t->capacity ? 2 * t->capacity : 16;
      char **grown = realloc(t->names, capacity * sizeof *grown);
      if (grown == NULL) {
        free(name);
        t->failed = true;
        return;
      }
      t->names = grown;
      t->capacity = capacity;
    }
    t->names[t->count] = name;
    t->count++;
    name = NULL;
  }
  free(name);
  counter(v->w, t->names[i], v->ts_us, 1, entry->stats->current_bytes);
}

/* origin_ns: time 0, no later than any block's allocation. */
static void write_blocks(writer *w, const export_blocks *set, uint64_t origin_ns) {
  for (size_t i = 0; i < set->count; i++) {
    const export_block *s = &set->items[i];
    char title[600], owner[512];
    slice_name(title, sizeof title, s->bytes, s->frame_count > 0 ? s->frames[0] : NULL);
    snprintf(owner, sizeof owner, "%s:%s", s->library, s->tag);
    event_start(w, title, "b", (double)(s->born_ns - origin_ns) / 1e3, 1, (long)s->device + 1);
    fprintf(w->out,
            ", \"cat\": \"allocation\", \"id\": \"0x%" PRIx64 "\", \"args\": {\"size\": %" PRIu64
            ", \"ptr\": \"0x%" PRIx64 "\", \"stream\": \"0x%" PRIx64 "\", \"alignment\": %" PRIu64
            ", \"device\": %d, \"owner\": ",
            w->next_id + i + 1, s->bytes, s->ptr, s->stream, s->alignment, s->device);
    mri_json_write_string(w->out, owner);
    if (s->frame_count > 0) {
      fputs(", \"call_site\": ", w->out);
      mri_json_write_string(w->out, s->frames[0]);
      fputs(", \"frames\": [", w->out);
      for (size_t f = 0; f < s->frame_count; f++) {
        if (f > 0) fputs(", ", w->out);
        mri_json_write_string(w->out, s->frames[f]);
      }
      fputs("]", w->out);
    }
    fputs("}}", w->out);
    event_start(w, title, "e", (double)(s->last_ns - origin_ns) / 1e3, 1, (long)s->device + 1);
    fprintf(w->out, ", \"cat\": \"allocation\", \"id\": \"0x%" PRIx64 "\", \"args\": {}}",
            w->next_id + i + 1);
  }
  w->next_id += set->count;
}

static int export_snapshots(const export_options *o, writer *w) {
  size_t count = o->input_count;
  snap_file *files = calloc(count, sizeof *files);
  if (files == NULL) {
    fputs("mrctx export: out of memory\n", stderr);
    return MRCTX_EXIT_FAILURE;
  }
  int rc = MRCTX_EXIT_OK;
  for (size_t i = 0; i < count && rc == MRCTX_EXIT_OK; i++) {
    files[i].path = o->inputs[i];
    files[i].snap = read_snapshot(o->inputs[i]);
    files[i].info = (mr_snapshot_info){.size = sizeof files[i].info};
    if (files[i].snap == NULL || mr_snapshot_get_info(files[i].snap, &files[i].info) != MR_OK)
      rc = MRCTX_EXIT_FAILURE;
  }
  export_blocks blocks = {0};
  block_visit visit = {.blocks = &blocks};
  track_names tracks = {0};
  if (rc == MRCTX_EXIT_OK) {
    qsort(files, count, sizeof *files, by_time);
    for (size_t i = 0; i < count && !visit.failed && !visit.bad; i++) {
      visit.now_ns = files[i].info.time_unix_ns;
      visit.path = files[i].path;
      if (mr_snapshot_foreach_block(files[i].snap, note_block, &visit) != MR_OK)
        visit.failed = true;
    }
    /* Time 0: the first snapshot, or the earliest allocation they list. */
    uint64_t origin = files[0].info.time_unix_ns;
    for (size_t i = 0; i < blocks.count; i++)
      if (blocks.items[i].born_ns < origin) origin = blocks.items[i].born_ns;
    begin(w, "snapshots");
    process_name(w, 1, "mrctx snapshots");
    for (size_t i = 0; i < count && !visit.failed && !visit.bad && !tracks.failed; i++) {
      double ts = (double)(files[i].info.time_unix_ns - origin) / 1e3;
      counter_visit v = {.w = w, .tracks = &tracks, .ts_us = ts};
      if (mr_snapshot_foreach_tag(files[i].snap, write_counter, &v) != MR_OK) tracks.failed = true;
      if (files[i].info.out_of_memory) {
        char size[32], title[600];
        mri_format_bytes(files[i].info.oom_bytes, true, size, sizeof size);
        snprintf(title, sizeof title, "out of memory: %s:%s asked for %s",
                 files[i].info.oom_library, files[i].info.oom_tag, size);
        event_start(w, title, "i", ts, 1, (long)files[i].info.oom_device + 1);
        fprintf(w->out, ", \"s\": \"p\", \"args\": {\"bytes\": %" PRIu64 ", \"device\": %d}}",
                files[i].info.oom_bytes, files[i].info.oom_device);
      }
    }
    if (visit.bad) {
      rc = MRCTX_EXIT_FAILURE; /* note_block said why */
    } else if (visit.failed || tracks.failed) {
      fputs("mrctx export: out of memory\n", stderr);
      rc = MRCTX_EXIT_FAILURE;
    } else {
      write_blocks(w, &blocks, origin);
      if (!finish(w, o->output)) rc = MRCTX_EXIT_FAILURE;
    }
  }
  export_blocks_free(&blocks);
  for (size_t i = 0; i < tracks.count; i++) free(tracks.names[i]);
  free(tracks.names);
  for (size_t i = 0; i < count; i++) mr_snapshot_destroy(files[i].snap);
  free(files);
  return rc;
}

/* One snapshot file as memory_viz's pickle, through the library. */
static int export_memory_viz_snapshot(const char *path, FILE *out) {
  mr_snapshot *snap = read_snapshot(path);
  if (snap == NULL) return MRCTX_EXIT_FAILURE;
  mr_status st = mr_snapshot_write_memory_viz(snap, out);
  mr_snapshot_destroy(snap);
  if (st != MR_OK) {
    fprintf(stderr, "mrctx export: %s: %s\n", path, mr_last_error());
    return MRCTX_EXIT_FAILURE;
  }
  return MRCTX_EXIT_OK;
}

int mrctx_cmd_export(int argc, char **argv) {
  export_options o = {0};
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) return rc;
  /* All logs or all snapshots: their clocks differ. */
  bool snapshots = plot_is_snapshot(o.inputs[0]);
  for (size_t i = 1; i < o.input_count; i++) {
    if (plot_is_snapshot(o.inputs[i]) != snapshots) {
      fputs("mrctx export: give logs or snapshots, not both (their clocks differ)\n", stderr);
      return MRCTX_EXIT_USAGE;
    }
  }
  bool memory_viz = strcmp(o.format, "memory_viz") == 0;
  if (memory_viz && snapshots && o.input_count > 1) {
    fputs("mrctx export: memory_viz shows one allocator state: give one snapshot file (or "
          "logs)\n",
          stderr);
    return MRCTX_EXIT_USAGE;
  }
  bool to_stdout = o.output == NULL || strcmp(o.output, "-") == 0;
  if (memory_viz && to_stdout && isatty(STDOUT_FILENO)) {
    fputs("mrctx export: memory_viz is a binary file: give -o FILE, or send standard output "
          "to a file or pipe\n",
          stderr);
    return MRCTX_EXIT_USAGE;
  }
  /* An output file (not "-") is made as every file mrctx writes
   * (commands.h): beside the path, put in place only once the export
   * succeeded; a failed one leaves the path as it was. */
  FILE *out = stdout;
  mri_output file;
  if (o.output != NULL && strcmp(o.output, "-") != 0) {
    const char **paths = mrctx_input_paths(o.inputs, o.input_count);
    if (paths == NULL) {
      fputs("mrctx export: out of memory\n", stderr);
      return MRCTX_EXIT_FAILURE;
    }
    out = mrctx_output_open(&file, "export", o.output, paths, o.input_count);
    free(paths);
    if (out == NULL) return MRCTX_EXIT_FAILURE;
  }
  writer w = {.out = out};
  if (memory_viz)
    rc = snapshots ? export_memory_viz_snapshot(o.inputs[0], out)
                   : export_memory_viz_logs(o.inputs, o.input_count, o.skip_bad, out);
  else
    rc = snapshots ? export_snapshots(&o, &w) : export_logs(&o, &w);
  if (out != stdout && rc == MRCTX_EXIT_OK && !mrctx_output_commit(&file, "export"))
    rc = MRCTX_EXIT_FAILURE;
  if (out != stdout && rc != MRCTX_EXIT_OK) mrctx_output_abort(&file);
  if (rc == MRCTX_EXIT_OK && out != stdout && memory_viz)
    printf("mrctx export: wrote %s (memory_viz)\n", o.output);
  else if (rc == MRCTX_EXIT_OK && out != stdout)
    printf("mrctx export: wrote %s: %zu events\n", o.output, w.events);
  return rc;
}
