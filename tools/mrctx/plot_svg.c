/*
 * plot_svg.c: draw `mrctx plot`'s chart as SVG, written by hand: a stacked
 * area per layer, axes in binary byte units and seconds, the peak marked,
 * failed allocations as red ticks just under the time axis, and a legend.
 * Elements carry classes (layer, peak, failure) and each layer its name in
 * data-name, so tests and scripts can find them; hovering a layer in a
 * browser shows its name and peak.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "plot.h"

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])

/* Names and titles are anyone's bytes: mri_xml_write_text keeps the
 * file well-formed XML whatever they hold. */
static void escaped(FILE *f, const char *text) { mri_xml_write_text(f, text); }

static void text(FILE *f, double x, double y, const char *anchor, int size, const char *extra,
                 const char *s) {
  fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='%s' font-size='%d'%s%s>", x, y, anchor, size,
          extra[0] ? " " : "", extra);
  escaped(f, s);
  fputs("</text>\n", f);
}

/* A step of 1, 2 or 5 times a power of ten that cuts `range` into at most
 * about `ticks` parts. */
static double nice_step(double range, int ticks) {
  double raw = range / ticks, power = pow(10, floor(log10(raw)));
  double step = power;
  if (raw > 5 * power)
    step = 10 * power;
  else if (raw > 2 * power)
    step = 5 * power;
  else if (raw > power)
    step = 2 * power;
  return step;
}

/* The binary unit the axis counts in: the largest one the peak reaches. */
static void byte_unit(uint64_t peak, double *unit, const char **name) {
  static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  while (i < 5 && (double)peak >= pow(1024, i + 1)) i++;
  *unit = pow(1024, i);
  *name = names[i];
}

/* The moment of the first event, for the subtitle: a clock time of the day,
 * or (seconds since 1970, from rmm's documented format) a date and time,
 * or past the year 9999 (a log's seconds go up to 2^64 - 1, which no
 * time_t holds) the seconds themselves. */
static void clock_text(double clock, char *buf, size_t cap) {
  struct tm local;
  time_t t = clock < 253402300800.0 ? (time_t)clock : 0;
  if (clock < 2 * 86400) {
    double day = fmod(clock, 86400);
    int ms = (int)((day - floor(day)) * 1000);
    int s = (int)day;
    snprintf(buf, cap, "%02d:%02d:%02d.%03d", s / 3600, s / 60 % 60, s % 60, ms);
  } else if (clock < 253402300800.0 && localtime_r(&t, &local) != NULL) {
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &local);
  } else {
    snprintf(buf, cap, "%.0f s since 1970", clock);
  }
}

static void format_value(double bytes, double unit, const char *unit_name, char *buf, size_t cap) {
  snprintf(buf, cap, "%.3g %s", bytes / unit, unit_name);
}

static void draw_axes(FILE *f, const plot *p, double ymax, double unit, const char *unit_name,
                      bool in_ms) {
  const double w = PLOT_X1 - PLOT_X0, h = PLOT_Y1 - PLOT_Y0;
  fprintf(f, "<g class='axes' stroke='#ccc' stroke-width='1'>\n");
  double ystep = nice_step(ymax / unit, 5) * unit;
  for (double v = 0; v <= ymax * (1 + 1e-9); v += ystep) {
    double y = PLOT_Y1 - v / ymax * h;
    fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f'/>\n", PLOT_X0, PLOT_X1, y, y);
  }
  double xscale = in_ms ? 1e3 : 1;
  double xstep = nice_step(p->span * xscale, 8) / xscale;
  for (double t = 0; t <= p->span * (1 + 1e-9); t += xstep) {
    double x = PLOT_X0 + t / p->span * w;
    fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f'/>\n", x, x, PLOT_Y0, PLOT_Y1);
  }
  fputs("</g>\n", f);

  char label[64];
  for (double v = 0; v <= ymax * (1 + 1e-9); v += ystep) {
    double y = PLOT_Y1 - v / ymax * h;
    if (v == 0)
      snprintf(label, sizeof label, "0");
    else
      snprintf(label, sizeof label, "%g %s", v / unit, unit_name);
    text(f, PLOT_X0 - 8, y + 4, "end", 12, "", label);
  }
  for (double t = 0; t <= p->span * (1 + 1e-9); t += xstep) {
    double x = PLOT_X0 + t / p->span * w;
    snprintf(label, sizeof label, "%g", t * xscale);
    text(f, x, PLOT_Y1 + 18, "middle", 12, "", label);
  }
  fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' stroke='#666'/>\n",
          PLOT_X0, PLOT_Y0, w, h);
  text(f, (PLOT_X0 + PLOT_X1) / 2, PLOT_Y1 + 40, "middle", 13, "",
       in_ms ? "time since the first event (ms)" : "time since the first event (s)");
  char ytitle[64];
  snprintf(ytitle, sizeof ytitle, "bytes in use (%s)", unit_name);
  char rotate[64];
  snprintf(rotate, sizeof rotate, "transform='rotate(-90 %.1f %.1f)'", 22.0,
           (PLOT_Y0 + PLOT_Y1) / 2);
  text(f, 22, (PLOT_Y0 + PLOT_Y1) / 2, "middle", 13, rotate, ytitle);
}

/* One layer's band: its top edge left to right, then the edge below it
 * (the layers under it) back, as steps of one column each. */
static void draw_layer(FILE *f, const plot *p, size_t l, double ymax) {
  const size_t L = p->layer_count;
  const double w = PLOT_X1 - PLOT_X0, h = PLOT_Y1 - PLOT_Y0, cw = w / PLOT_COLUMNS;
  fprintf(f, "<g class='layer' data-name='");
  escaped(f, p->layers[l].name);
  fprintf(f, "'>\n<path fill='%s' d='", palette[l % PALETTE_SIZE]);
  double last_y = 0;
  for (int edge = 0; edge < 2; edge++) {
    size_t upto = edge == 0 ? l + 1 : l; /* top edge: layers 0..l; bottom: 0..l-1 */
    for (size_t k = 0; k < PLOT_COLUMNS; k++) {
      size_t c = edge == 0 ? k : PLOT_COLUMNS - 1 - k;
      uint64_t sum = 0;
      for (size_t i = 0; i < upto; i++) sum += p->values[c * L + i];
      double y = PLOT_Y1 - (double)sum / ymax * h;
      double xa = PLOT_X0 + c * cw, xb = xa + cw;
      if (edge == 1) {
        double swap = xa;
        xa = xb;
        xb = swap;
      }
      if (k == 0 && edge == 0)
        fprintf(f, "M%.1f,%.1f", xa, y);
      else if (y != last_y)
        fprintf(f, "L%.1f,%.1fL%.1f,%.1f", xa, last_y, xa, y);
      if (k + 1 == PLOT_COLUMNS) fprintf(f, "L%.1f,%.1f", xb, y);
      last_y = y;
    }
  }
  char peak[32];
  mri_format_bytes(p->layers[l].peak, true, peak, sizeof peak);
  fputs("Z'><title>", f);
  escaped(f, p->layers[l].name);
  fprintf(f, ": peak %s at %.3f s</title></path>\n</g>\n", peak, p->layers[l].peak_time);
}

static void draw_peak(FILE *f, const plot *p, double ymax, double unit, const char *unit_name) {
  const double w = PLOT_X1 - PLOT_X0, h = PLOT_Y1 - PLOT_Y0;
  double x = PLOT_X0 + p->peak_time / p->span * w, y = PLOT_Y1 - (double)p->peak / ymax * h;
  char value[32], label[96];
  format_value((double)p->peak, unit, unit_name, value, sizeof value);
  snprintf(label, sizeof label, "peak %s at %.3f s", value, p->peak_time);
  fprintf(f, "<g class='peak'>\n");
  fprintf(f,
          "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='#222' stroke-dasharray='4 3'/>\n",
          PLOT_X0, PLOT_X1, y, y);
  fprintf(f, "<circle cx='%.1f' cy='%.1f' r='5' fill='white' stroke='#222' stroke-width='2'/>\n", x,
          y);
  /* The label sits above the line, on the side of the marker with room. */
  bool left = x > (PLOT_X0 + PLOT_X1) / 2;
  text(f, left ? x - 10 : x + 10, y - 8, left ? "end" : "start", 13,
       "font-weight='bold' fill='#222'", label);
  fputs("</g>\n", f);
}

static void draw_failures(FILE *f, const plot *p) {
  if (p->failure_count == 0) return;
  const double w = PLOT_X1 - PLOT_X0;
  fputs("<g class='failures' stroke='#d62728' stroke-width='2'>\n", f);
  double last_x = -1;
  for (size_t i = 0; i < p->failure_count; i++) {
    double x = PLOT_X0 + p->failures[i] / p->span * w;
    if (x - last_x < 1) continue; /* one tick per pixel is enough */
    fprintf(f, "<line class='failure' x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f'/>\n", x, x,
            PLOT_Y1 + 1, PLOT_Y1 + 7);
    last_x = x;
  }
  fputs("</g>\n", f);
}

static void draw_legend(FILE *f, const plot *p) {
  double x = PLOT_X1 + 24, y = PLOT_Y0 + 4;
  char line[160], bytes[32];
  /* Top of the stack first, as the layers are drawn. */
  for (size_t k = p->layer_count; k-- > 0;) {
    const plot_layer *layer = &p->layers[k];
    fprintf(f, "<rect x='%.1f' y='%.1f' width='14' height='14' fill='%s'/>\n", x, y,
            palette[k % PALETTE_SIZE]);
    text(f, x + 22, y + 12, "start", 13, "", layer->name);
    mri_format_bytes(layer->peak, true, bytes, sizeof bytes);
    snprintf(line, sizeof line, "peak %s at %.3f s", bytes, layer->peak_time);
    text(f, x + 22, y + 28, "start", 11, "fill='#555'", line);
    y += 44;
  }
  if (p->failure_count > 0) {
    fprintf(f,
            "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='#d62728' "
            "stroke-width='2'/>\n",
            x + 7, x + 7, y, y + 14);
    snprintf(line, sizeof line, "%zu failed allocation%s", p->failure_count,
             p->failure_count == 1 ? "" : "s");
    text(f, x + 22, y + 12, "start", 13, "", line);
    y += 30;
  }
  mri_format_bytes(p->peak, true, bytes, sizeof bytes);
  snprintf(line, sizeof line, "all together: peak %s", bytes);
  text(f, x, y + 12, "start", 13, "font-weight='bold'", line);
  snprintf(line, sizeof line, "at %.3f s", p->peak_time);
  text(f, x, y + 28, "start", 11, "fill='#555'", line);
}

void plot_write_svg(const plot *p, FILE *f) {
  double unit;
  const char *unit_name;
  byte_unit(p->peak, &unit, &unit_name);
  /* The axis ends at the first tick past the peak, with a little headroom. */
  double peak_units = p->peak > 0 ? (double)p->peak / unit : 1;
  double step = nice_step(peak_units * 1.05, 5);
  double ymax = ceil(peak_units * 1.05 / step) * step * unit;
  bool in_ms = p->span < 1;

  fprintf(f,
          "<?xml version='1.0' encoding='UTF-8'?>\n"
          "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' "
          "font-family='sans-serif'>\n"
          "<rect width='100%%' height='100%%' fill='white'/>\n",
          PLOT_WIDTH, PLOT_HEIGHT, PLOT_WIDTH, PLOT_HEIGHT);
  text(f, (PLOT_X0 + PLOT_X1) / 2, 32, "middle", 20, "font-weight='bold'", p->title);
  char when[64], subtitle[160];
  clock_text(p->start_clock, when, sizeof when);
  if (p->snapshot_count > 0)
    snprintf(subtitle, sizeof subtitle,
             "bytes in use by library:tag; first snapshot at %s UTC; %zu snapshots", when,
             p->snapshot_count);
  else
    snprintf(subtitle, sizeof subtitle,
             "bytes requested and not yet freed, stacked by log; first event at %s; %zu events",
             when, p->event_count);
  text(f, (PLOT_X0 + PLOT_X1) / 2, 54, "middle", 12, "fill='#555'", subtitle);
  draw_axes(f, p, ymax, unit, unit_name, in_ms);
  for (size_t l = 0; l < p->layer_count; l++) draw_layer(f, p, l, ymax);
  draw_failures(f, p);
  draw_peak(f, p, ymax, unit, unit_name);
  draw_legend(f, p);
  fputs("</svg>\n", f);
}
