/*
 * plot.h: `mrctx plot`, shared between its files: cmd_plot.c reads the logs
 * and reduces them to one column of values per pixel; plot_svg.c draws that
 * as an SVG file, by hand (no plotting library).
 */
#ifndef MRCTX_TOOLS_PLOT_H
#define MRCTX_TOOLS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay_log.h"

/* The drawing's geometry: 1200 x 700, the plot area inside. */
#define PLOT_WIDTH 1200
#define PLOT_HEIGHT 700
#define PLOT_X0 90.0
#define PLOT_X1 880.0
#define PLOT_Y0 80.0
#define PLOT_Y1 620.0
#define PLOT_COLUMNS 790 /* one per pixel of the plot area's width */

/* One log: one layer of the stack. */
typedef struct plot_layer {
  const char *name; /* "mylib:temp", or the file's name without ".csv" */
  replay_log log;
  double offset;    /* seconds from the plot's first event to the log's first */
  uint64_t peak;    /* the most bytes this log had live */
  double peak_time; /* when, in the plot's seconds */
} plot_layer;

typedef struct plot {
  const char *title;
  plot_layer *layers;
  size_t layer_count;
  double start_clock; /* the first event's clock time (as replay_log.start_clock) */
  double span;        /* seconds from the first event to the last (> 0) */
  /* values[c * layer_count + l]: layer l's live bytes in column c, taken at
   * the moment in the column's time slice when the total was highest, so
   * the stack's top shows every column's highest point. */
  uint64_t *values;
  uint64_t peak;    /* the most bytes live in all logs together */
  double peak_time; /* when first reached */
  double *failures; /* times of failed allocations */
  size_t failure_count;
  size_t event_count;
  size_t snapshot_count; /* drawn from snapshots: how many; 0 for logs */
} plot;

/* Draw `p` into `f` (the --svg output; a write error is the caller's to
 * find when it commits the file). */
void plot_write_svg(const plot *p, FILE *f);

/* True if the file at `path` looks like a snapshot (JSON: its first
 * character is '{') rather than a log; a file named *.csv is a log. */
bool plot_is_snapshot(const char *path);

/* Read snapshot files (plot_snapshots.c) into p's layers, one per
 * library:tag. False with a reason in `why` on a file that cannot be read
 * or is not a snapshot. */
bool plot_read_snapshots(char **paths, size_t count, plot *p, char *why, size_t cap);

#endif
