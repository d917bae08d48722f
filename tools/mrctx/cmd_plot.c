/*
 * cmd_plot.c: `mrctx plot --svg FILE [NAME=]LOG ...`: memory in use over
 * time from allocation logs, as a stacked area chart.
 *
 * A log line carries no library or tag, so each log is one layer: record
 * each tag to a log of its own (`temp=log(arena(device), file=temp.csv)`)
 * and pass them all, each named by NAME= or by its file's name. The logs
 * are lined up by their clock times (the logs of one run share the clock).
 * The chart has one column per pixel; a column shows each layer's bytes at
 * the moment in its slice of time when the total was highest, so no peak
 * falls between columns. The highest total is marked with its value and
 * time, each layer's own peak is in the legend, and failed allocations are
 * marked under the time axis.
 *
 * From snapshot files instead (plot_snapshots.c): one layer per
 * library:tag, the same drawing.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "plot.h"

static void usage(FILE *out) {
  fputs("usage: mrctx plot --svg FILE [--title TEXT] [--skip-bad] [NAME=]LOG ...\n"
        "       mrctx plot --svg FILE [--title TEXT] SNAPSHOT.json ...\n"
        "\n"
        "Draw memory in use over time from allocation logs in rmm's CSV format (what\n"
        "the log adaptor writes) as an SVG chart: one layer per log, stacked, the\n"
        "peak marked. Record each library's tag to a log of its own and name the\n"
        "layers: mylib:temp=temp.csv mylib:result=result.csv.\n"
        "Or from a series of snapshot files (JSON): one layer per library:tag, its\n"
        "devices summed, each value held until the next snapshot; a dump at\n"
        "out-of-memory marks a failed allocation.\n"
        "\n"
        "  --svg FILE    the SVG file to write (required); -o FILE, --output FILE\n"
        "                are the same, as export takes them\n"
        "  --title TEXT  the chart's title (default: Memory in use)\n"
        "  --skip-bad    skip bad lines of a log and count them, instead of\n"
        "                stopping at the first\n"
        "  -h, --help    show this help\n"
        "\n"
        "A layer is named NAME if given, else by the log's file name without .csv.\n"
        "Exit status: 0 drawn, 1 a bad log or a file that cannot be written, 2 bad\n"
        "usage.\n",
        out);
}

typedef struct plot_options {
  const char *svg;
  const char *title;
  bool skip_bad;
  char **logs; /* the [NAME=]LOG arguments */
  size_t log_count;
} plot_options;

static int parse_options(int argc, char **argv, plot_options *o) {
  static const struct option longopts[] = {
      {"svg", required_argument, NULL, 's'},
      {"output", required_argument, NULL, 'o'}, /* export's name for it */
      {"title", required_argument, NULL, 't'},
      MRCTX_READ_OPTIONS_END,
  };
  mrctx_string_option strings[] = {{'s', &o->svg}, {'o', &o->svg}, {'t', &o->title}, {0, NULL}};
  int status = mrctx_read_options(argc, argv, "ho:", longopts, usage, &o->skip_bad,
                                  mrctx_take_string, strings);
  if (status >= 0) return status;
  o->logs = argv + optind;
  o->log_count = (size_t)(argc - optind);
  if (o->svg == NULL) {
    fputs("mrctx plot: give the SVG file to write with --svg FILE (see --help)\n", stderr);
    return MRCTX_EXIT_USAGE;
  }
  if (o->log_count == 0) {
    fputs("mrctx plot: give at least one log to draw (see --help)\n", stderr);
    return MRCTX_EXIT_USAGE;
  }
  return -1;
}

/* Each log's place on the common time axis, and the span of them all. A
 * log that begins more than half a day of clock time before the latest
 * beginning began after midnight, a day later. */
static void line_up(plot *p) {
  double latest = 0;
  bool any = false;
  for (size_t l = 0; l < p->layer_count; l++) {
    const replay_log *log = &p->layers[l].log;
    if (log->event_count == 0) continue;
    if (!any || log->start_clock > latest) latest = log->start_clock;
    any = true;
  }
  double end = 0;
  any = false;
  for (size_t l = 0; l < p->layer_count; l++) {
    replay_log *log = &p->layers[l].log;
    if (log->event_count == 0) continue;
    if (log->start_clock < latest - 43200 && log->start_clock < 86400) log->start_clock += 86400;
    double last = log->start_clock + log->events[log->event_count - 1].time;
    if (!any || log->start_clock < p->start_clock) p->start_clock = log->start_clock;
    if (!any || last > end) end = last;
    any = true;
  }
  for (size_t l = 0; l < p->layer_count; l++) {
    plot_layer *layer = &p->layers[l];
    layer->offset = layer->log.event_count ? layer->log.start_clock - p->start_clock : 0;
    layer->peak = layer->log.peak_bytes;
    layer->peak_time = layer->offset + layer->log.peak_time;
    p->event_count += layer->log.event_count;
  }
  p->span = end - p->start_clock;
  if (p->span < 1e-3) p->span = 1e-3; /* a log of one instant still gets an axis */
}

/* Walk all logs' events in time order and fill p->values, the peak and the
 * failures. False, with the reason printed, when out of memory or when the
 * logs together hold more than 2^64 - 1 bytes at once (each log alone is
 * checked for that as it is read). */
static bool reduce(plot *p) {
  size_t L = p->layer_count;
  size_t *next = calloc(L, sizeof *next);
  uint64_t *live = calloc(L, sizeof *live);
  uint64_t *column_total = calloc(PLOT_COLUMNS, sizeof *column_total);
  p->values = calloc((size_t)PLOT_COLUMNS * L, sizeof *p->values);
  size_t failure_capacity = 0;
  bool ok = next != NULL && live != NULL && column_total != NULL && p->values != NULL;
  bool overflow = false; /* the reason for !ok, else out of memory */
  uint64_t total = 0;
  size_t column = 0; /* columns before this one are final */
  while (ok) {
    /* The earliest next event of any log. */
    size_t best = L;
    double when = 0;
    for (size_t l = 0; l < L; l++) {
      const plot_layer *layer = &p->layers[l];
      if (next[l] == layer->log.event_count) continue;
      double t = layer->offset + layer->log.events[next[l]].time;
      if (best == L || t < when) {
        best = l;
        when = t;
      }
    }
    if (best == L) break;
    const replay_event *e = &p->layers[best].log.events[next[best]++];
    size_t c = (size_t)(when / p->span * PLOT_COLUMNS);
    if (c >= PLOT_COLUMNS) c = PLOT_COLUMNS - 1;
    /* Columns up to c start from the state before this event. */
    for (; column < c; column++) {
      memcpy(&p->values[(column + 1) * L], live, L * sizeof *live);
      column_total[column + 1] = total;
    }
    if (e->action == REPLAY_ALLOCATE_FAILURE) {
      if (p->failure_count == failure_capacity) {
        failure_capacity = failure_capacity ? 2 * failure_capacity : 64;
        double *grown = realloc(p->failures, failure_capacity * sizeof *grown);
        if (grown == NULL) {
          ok = false;
          break;
        }
        p->failures = grown;
      }
      p->failures[p->failure_count++] = when;
      continue;
    }
    if (e->action == REPLAY_ALLOCATE) {
      live[best] += e->size;
      if (__builtin_add_overflow(total, e->size, &total)) {
        fprintf(stderr,
                "mrctx plot: the %s together hold more than 2^64 - 1 bytes at %.3f s: they "
                "cannot be one machine's\n",
                p->snapshot_count > 0 ? "tags" : "logs", when);
        ok = false;
        overflow = true;
        break;
      }
    } else {
      live[best] -= e->size;
      total -= e->size;
    }
    if (total > p->peak) {
      p->peak = total;
      p->peak_time = when;
    }
    if (total > column_total[c]) {
      column_total[c] = total;
      memcpy(&p->values[c * L], live, L * sizeof *live);
    }
  }
  if (!ok && !overflow) fputs("mrctx plot: out of memory\n", stderr);
  for (; ok && column + 1 < PLOT_COLUMNS; column++)
    memcpy(&p->values[(column + 1) * L], live, L * sizeof *live);
  free(next);
  free(live);
  free(column_total);
  return ok;
}

static void free_plot(plot *p) {
  for (size_t l = 0; l < p->layer_count; l++) {
    replay_log_free(&p->layers[l].log);
    free((char *)p->layers[l].name);
  }
  free(p->layers);
  free(p->values);
  free(p->failures);
}

/* Snapshots instead of logs: every argument a snapshot file, no NAME=. */
static int read_snapshots(const plot_options *o, plot *p) {
  for (size_t i = 0; i < o->log_count; i++) {
    if (!plot_is_snapshot(o->logs[i])) {
      fprintf(stderr,
              "mrctx plot: %s is not a snapshot file, but %s is: draw logs or snapshots, not "
              "both\n",
              o->logs[i], o->logs[0]);
      return MRCTX_EXIT_FAILURE;
    }
  }
  char why[1024];
  if (!plot_read_snapshots(o->logs, o->log_count, p, why, sizeof why)) {
    fprintf(stderr, "mrctx plot: %s\n", why);
    return MRCTX_EXIT_FAILURE;
  }
  return MRCTX_EXIT_OK;
}

static int read_logs(const plot_options *o, plot *p) {
  p->layers = calloc(o->log_count, sizeof *p->layers);
  if (p->layers == NULL) {
    fputs("mrctx plot: out of memory\n", stderr);
    return MRCTX_EXIT_FAILURE;
  }
  int status = MRCTX_EXIT_OK;
  for (size_t l = 0; l < o->log_count && status == MRCTX_EXIT_OK; l++) {
    char *name, why[1024];
    const char *path = mrctx_name_and_path(o->logs[l], &name);
    plot_layer *layer = &p->layers[p->layer_count];
    if (!replay_log_read(path, o->skip_bad, &layer->log, why, sizeof why)) {
      fprintf(stderr, "mrctx plot: %s\n", why);
      free(name);
      status = MRCTX_EXIT_FAILURE;
      break;
    }
    p->layer_count++;
    layer->name = name;
    if (layer->name == NULL) {
      fputs("mrctx plot: out of memory\n", stderr);
      status = MRCTX_EXIT_FAILURE;
    }
    uint64_t skipped = replay_log_skipped(&layer->log);
    if (skipped != 0)
      fprintf(stderr, "mrctx plot: %s: skipped %" PRIu64 " bad line%s; the first: %s\n", path,
              skipped, skipped == 1 ? "" : "s", layer->log.first_skipped);
  }
  return status;
}

/* `svg`: the --svg output's stream (committed by the caller). */
static int run(const plot_options *o, FILE *svg) {
  plot p = {.title = o->title != NULL ? o->title : "Memory in use"};
  int status = plot_is_snapshot(o->logs[0]) ? read_snapshots(o, &p) : read_logs(o, &p);
  if (status == MRCTX_EXIT_OK) {
    line_up(&p);
    if (!reduce(&p)) {
      status = MRCTX_EXIT_FAILURE;
    } else {
      plot_write_svg(&p, svg);
      char peak[32];
      mri_format_bytes(p.peak, true, peak, sizeof peak);
      if (p.snapshot_count > 0)
        printf("mrctx plot: wrote %s: %zu layer%s, %zu snapshots over %.3f s, peak %s at %.3f s\n",
               o->svg, p.layer_count, p.layer_count == 1 ? "" : "s", p.snapshot_count, p.span, peak,
               p.peak_time);
      else
        printf("mrctx plot: wrote %s: %zu layer%s, %zu events over %.3f s, peak %s at %.3f s\n",
               o->svg, p.layer_count, p.layer_count == 1 ? "" : "s", p.event_count, p.span, peak,
               p.peak_time);
    }
  }
  free_plot(&p);
  return status;
}

int mrctx_cmd_plot(int argc, char **argv) {
  plot_options o = {0};
  int status = parse_options(argc, argv, &o);
  if (status >= 0) return status;
  /* The SVG file is opened first, so that one that may not be written (one
   * of the inputs, a link to a file) is refused before anything is read;
   * it is put in place only if the plot is whole (commands.h). */
  const char **paths = mrctx_input_paths(o.logs, o.log_count);
  if (paths == NULL) {
    fputs("mrctx plot: out of memory\n", stderr);
    return MRCTX_EXIT_FAILURE;
  }
  mri_output file;
  FILE *svg = mrctx_output_open(&file, "plot", o.svg, paths, o.log_count);
  free(paths);
  if (svg == NULL) return MRCTX_EXIT_FAILURE;
  status = run(&o, svg);
  if (status == MRCTX_EXIT_OK && !mrctx_output_commit(&file, "plot")) status = MRCTX_EXIT_FAILURE;
  if (status != MRCTX_EXIT_OK) mrctx_output_abort(&file);
  return status;
}
