/*
 * bench_report.c: `mrctx bench` output: the table, the targets, JSON, and
 * an SVG chart drawn by hand (no plotting library needed). With several
 * runs, a row's figures are the median over the runs; a ratio between rows
 * (vs raw, vs cub, reserved/requested) is taken within each run, whose rows
 * were measured close together, and its median over the runs reported.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "commands.h"
#include "core/text.h"

void bench_results_add(bench_results *r, bench_result result) {
  if (r->count == r->capacity) {
    size_t capacity = r->capacity ? r->capacity * 2 : 64;
    bench_result *items = realloc(r->items, capacity * sizeof *items);
    if (items == NULL) return;
    r->items = items;
    r->capacity = capacity;
  }
  r->items[r->count++] = result;
}

const bench_result *bench_results_find(const bench_results *r, int run, const char *workload,
                                       const char *sizes, const char *label, int threads) {
  for (size_t i = 0; i < r->count; i++) {
    const bench_result *x = &r->items[i];
    if (x->run == run && strcmp(x->workload, workload) == 0 && strcmp(x->label, label) == 0 &&
        (sizes == NULL || (strcmp(x->sizes, sizes) == 0 && x->threads == threads)))
      return x;
  }
  return NULL;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

bench_spread bench_spread_of(const double *values, int n) {
  double sorted[BENCH_MAX_RUNS];
  int count = 0;
  for (int i = 0; i < n && i < BENCH_MAX_RUNS; i++)
    if (!isnan(values[i])) sorted[count++] = values[i];
  if (count == 0) return (bench_spread){NAN, NAN, NAN, 0};
  qsort(sorted, (size_t)count, sizeof sorted[0], compare_doubles);
  /* An even count: the mean of the middle two. */
  double median = count % 2 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
  return (bench_spread){sorted[0], median, sorted[count - 1], count};
}

/* ---- a row over the runs ------------------------------------------------------ */

/* What can be read of a row in each run. */
typedef enum row_value {
  VALUE_NS,
  VALUE_MOPS,
  VALUE_HIT_RATE,
  VALUE_PEAK_REQUESTED,
  VALUE_PEAK_RESERVED,
  VALUE_RESERVED_RATIO, /* peak reserved / peak requested */
  VALUE_PEAK_BOOKS,
  VALUE_BOOKS_RATIO, /* the cache's own peak held / peak requested */
  VALUE_VS_BASELINE, /* how many times faster than the workload's baseline row */
  VALUE_VS_CUB,      /* ... than the cub row */
} row_value;

/* How many times faster `x` is than `peer` (per operation at one thread,
 * in aggregate beyond); NaN without a peer, or against itself. */
static double faster(const bench_result *x, const bench_result *peer) {
  if (peer == NULL || peer == x || x->reference) return NAN;
  return x->threads > 1 ? x->mops / peer->mops : peer->ns_per_op / x->ns_per_op;
}

static double value_of(const bench_results *r, const bench_result *x, row_value which) {
  switch (which) {
  case VALUE_NS:
    return x->ns_per_op;
  case VALUE_MOPS:
    return x->mops;
  case VALUE_HIT_RATE:
    return x->hit_rate;
  case VALUE_PEAK_REQUESTED:
    return x->peak_requested;
  case VALUE_PEAK_RESERVED:
    return x->peak_reserved;
  case VALUE_RESERVED_RATIO:
    return x->peak_requested > 0 ? x->peak_reserved / x->peak_requested : NAN;
  case VALUE_PEAK_BOOKS:
    return x->peak_books;
  case VALUE_BOOKS_RATIO:
    return x->peak_requested > 0 ? x->peak_books / x->peak_requested : NAN;
  case VALUE_VS_BASELINE:
    /* The row's baseline (the raw driver call of its kind) at the same
     * sizes and thread count, in the same run. */
    return x->baseline != NULL ? faster(x, bench_results_find(r, x->run, x->workload, x->sizes,
                                                              x->baseline, x->threads))
                               : NAN;
  case VALUE_VS_CUB:
    return faster(x, bench_results_find(r, x->run, x->workload, x->sizes, "cub", x->threads));
  }
  return NAN;
}

/* `which` of the row that `x` (a run's result) belongs to, in every run. */
static bench_spread row_spread(const bench_results *r, const bench_result *x, row_value which) {
  double values[BENCH_MAX_RUNS];
  int runs = r->runs < BENCH_MAX_RUNS ? r->runs : BENCH_MAX_RUNS;
  for (int run = 0; run < runs; run++) {
    const bench_result *y = bench_results_find(r, run, x->workload, x->sizes, x->label, x->threads);
    values[run] = y != NULL ? value_of(r, y, which) : NAN;
  }
  return bench_spread_of(values, runs);
}

/* Failed allocations in any run. */
static long row_failures(const bench_results *r, const bench_result *x) {
  long failures = 0;
  for (int run = 0; run < r->runs; run++) {
    const bench_result *y = bench_results_find(r, run, x->workload, x->sizes, x->label, x->threads);
    if (y != NULL) failures += y->failures;
  }
  return failures;
}

/* The rows are the first run's results, in its order (every run has the
 * same rows). */
/* Each row of the first run. With no rows `items` may be NULL, where even
 * NULL + 0 is undefined: the count is tested first. */
#define FOR_EACH_ROW(r, x)                                                                     \
  for (const bench_result *x = (r)->items; (r)->count > 0 && x < (r)->items + (r)->count; x++) \
    if (x->run == 0)

/* ---- the table ------------------------------------------------------------------ */

/* The slowest and fastest run against the median, in percent: "-3/+8%". */
static void format_spread(char *out, size_t cap, bench_spread s) {
  out[0] = '\0';
  if (s.count > 1 && s.median > 0)
    snprintf(out, cap, "%+.0f/%+.0f%%", (s.min / s.median - 1) * 100, (s.max / s.median - 1) * 100);
}

static void format_ratio(char *out, size_t cap, double v) {
  out[0] = '\0';
  if (isfinite(v)) snprintf(out, cap, "%.*fx", v < 100 ? 2 - (v >= 10) : 0, v);
}

void bench_print_table(FILE *out, const bench_results *r) {
  fprintf(out, "\n%-8s %-17s %-42s %3s %10s %9s %9s %8s %8s %7s %7s %7s\n", "workload", "sizes",
          "allocator", "thr", "ns/op", "spread", "Mops/s", "vs raw", "vs cub", "res/req", "books",
          "hits");
  const char *last = "";
  FOR_EACH_ROW(r, x) {
    if (strcmp(last, x->workload) != 0) fputc('\n', out);
    last = x->workload;
    char spread[24], vs_raw[24], vs_cub[24], reserved[24], books[24], hits[16] = "";
    format_spread(spread, sizeof spread, row_spread(r, x, VALUE_NS));
    format_ratio(vs_raw, sizeof vs_raw, row_spread(r, x, VALUE_VS_BASELINE).median);
    format_ratio(vs_cub, sizeof vs_cub, row_spread(r, x, VALUE_VS_CUB).median);
    format_ratio(reserved, sizeof reserved, row_spread(r, x, VALUE_RESERVED_RATIO).median);
    format_ratio(books, sizeof books, row_spread(r, x, VALUE_BOOKS_RATIO).median);
    double hit_rate = row_spread(r, x, VALUE_HIT_RATE).median;
    if (isfinite(hit_rate)) snprintf(hits, sizeof hits, "%.2f%%", 100 * hit_rate);
    fprintf(out, "%-8s %-17s %-42s %3d %10.1f %9s %9.2f %8s %8s %7s %7s %7s%s\n", x->workload,
            x->sizes, x->allocator, x->threads, row_spread(r, x, VALUE_NS).median, spread,
            row_spread(r, x, VALUE_MOPS).median, vs_raw, vs_cub, reserved, books, hits,
            row_failures(r, x) ? "  (allocations failed)" : "");
  }
}

/* ---- the targets ---------------------------------------------------------------- */

typedef enum target_verdict { NOT_MEASURED, MET, MISSED } target_verdict;

static bool value_met(const bench_target *t, double v) {
  return t->at_most ? v <= t->wanted : v >= t->wanted;
}

/* Measured in every run, or not at all; then judged on the median (and on
 * every run where the issue asks for that). `runs_met` says in how many. */
static target_verdict judge(const bench_target *t, int runs, bench_spread *s, int *runs_met) {
  *s = bench_spread_of(t->measured, runs);
  *runs_met = 0;
  if (s->count < runs || s->count == 0) return NOT_MEASURED;
  for (int i = 0; i < runs; i++) *runs_met += value_met(t, t->measured[i]);
  if (!value_met(t, s->median)) return MISSED;
  return t->every_run && *runs_met < runs ? MISSED : MET;
}

void bench_print_targets(FILE *out, const bench_target *targets, size_t count, int runs) {
  fprintf(out, "\n%-52s %12s %19s %12s  %s\n", "target", "measured", runs > 1 ? "runs" : "",
          "wanted", "");
  for (size_t i = 0; i < count; i++) {
    const bench_target *t = &targets[i];
    bench_spread s;
    int met;
    target_verdict v = judge(t, runs, &s, &met);
    if (v == NOT_MEASURED) {
      fprintf(out, "%-52s %12s %19s %12s  not measured\n", t->what, "-", "", "-");
      continue;
    }
    char measured[32], spread[48] = "", wanted[32], verdict[48];
    snprintf(measured, sizeof measured, "%.2f %s", s.median, t->unit);
    if (runs > 1) snprintf(spread, sizeof spread, "%.2f..%.2f", s.min, s.max);
    snprintf(wanted, sizeof wanted, "%s %.4g %s", t->at_most ? "<=" : ">=", t->wanted, t->unit);
    if (t->every_run && runs > 1)
      snprintf(verdict, sizeof verdict, "%s (in %d of %d runs)", v == MET ? "met" : "MISSED", met,
               runs);
    else
      snprintf(verdict, sizeof verdict, "%s", v == MET ? "met" : "MISSED");
    fprintf(out, "%-52s %12s %19s %12s  %s\n", t->what, measured, spread, wanted, verdict);
  }
  if (runs > 1)
    fputs("\nmeasured: the median of the runs' values; runs: the least and the most.\n", out);
}

/* ---- JSON ------------------------------------------------------------------------ */

static void json_number(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.6g", v);
  else
    fputs("null", f);
}

/* {"min": .., "median": .., "max": .., "runs": [one per run]}: NaN (unknown)
 * is null. */
static void json_spread(FILE *f, const double *values, int runs) {
  bench_spread s = bench_spread_of(values, runs);
  fputs("{\"min\": ", f);
  json_number(f, s.min);
  fputs(", \"median\": ", f);
  json_number(f, s.median);
  fputs(", \"max\": ", f);
  json_number(f, s.max);
  fputs(", \"runs\": [", f);
  for (int i = 0; i < runs; i++) {
    if (i > 0) fputs(", ", f);
    json_number(f, values[i]);
  }
  fputs("]}", f);
}

static void json_row_value(FILE *f, const bench_results *r, const bench_result *x, const char *key,
                           row_value which) {
  double values[BENCH_MAX_RUNS];
  for (int run = 0; run < r->runs; run++) {
    const bench_result *y = bench_results_find(r, run, x->workload, x->sizes, x->label, x->threads);
    values[run] = y != NULL ? value_of(r, y, which) : NAN;
  }
  fprintf(f, ", \"%s\": ", key);
  json_spread(f, values, r->runs);
}

/* A count per run (ops, failures). */
static void json_row_counts(FILE *f, const bench_results *r, const bench_result *x, const char *key,
                            bool failures) {
  fprintf(f, ", \"%s\": [", key);
  for (int run = 0; run < r->runs; run++) {
    const bench_result *y = bench_results_find(r, run, x->workload, x->sizes, x->label, x->threads);
    if (run > 0) fputs(", ", f);
    if (y == NULL)
      fputs("null", f);
    else
      fprintf(f, "%ld", failures ? y->failures : y->ops);
  }
  fputc(']', f);
}

bool bench_write_json(const char *path, const bench_cuda *cu, const bench_results *r,
                      const bench_target *targets, size_t count) {
  /* The trace the run read is its input: never written over. */
  mri_output out;
  FILE *f = mrctx_output_open(&out, "bench", path, &r->trace, r->trace != NULL ? 1 : 0);
  if (f == NULL) return false;
  fputs("{\n  \"device\": ", f);
  mri_json_write_string(f, cu->device_name);
  fprintf(f, ",\n  \"driver_version\": %d,\n  \"mrctx_version\": ", cu->version);
  mri_json_write_string(f, mr_version());
  fprintf(f, ",\n  \"runs\": %d,\n  \"trace\": ", r->runs);
  if (r->trace != NULL)
    mri_json_write_string(f, r->trace);
  else
    fputs("null", f);
  fputs(",\n  \"results\": [\n", f);
  bool first = true;
  FOR_EACH_ROW(r, x) {
    fputs(first ? "    {\"workload\": " : ",\n    {\"workload\": ", f);
    first = false;
    mri_json_write_string(f, x->workload);
    fputs(", \"sizes\": ", f);
    mri_json_write_string(f, x->sizes);
    fputs(", \"allocator\": ", f);
    mri_json_write_string(f, x->allocator);
    fputs(", \"label\": ", f);
    mri_json_write_string(f, x->label);
    fprintf(f, ", \"threads\": %d", x->threads);
    json_row_value(f, r, x, "ns_per_op", VALUE_NS);
    json_row_value(f, r, x, "mops", VALUE_MOPS);
    json_row_value(f, r, x, "vs_baseline", VALUE_VS_BASELINE);
    json_row_value(f, r, x, "vs_cub", VALUE_VS_CUB);
    json_row_value(f, r, x, "cache_hit_rate", VALUE_HIT_RATE);
    json_row_value(f, r, x, "peak_requested_bytes", VALUE_PEAK_REQUESTED);
    json_row_value(f, r, x, "peak_reserved_bytes", VALUE_PEAK_RESERVED);
    json_row_value(f, r, x, "reserved_per_requested", VALUE_RESERVED_RATIO);
    json_row_value(f, r, x, "cache_peak_held_bytes", VALUE_PEAK_BOOKS);
    json_row_value(f, r, x, "cache_held_per_requested", VALUE_BOOKS_RATIO);
    json_row_counts(f, r, x, "ops", false);
    json_row_counts(f, r, x, "failures", true);
    fputc('}', f);
  }
  fputs("\n  ],\n  \"targets\": [\n", f);
  for (size_t i = 0; i < count; i++) {
    const bench_target *t = &targets[i];
    bench_spread s;
    int met;
    target_verdict v = judge(t, r->runs, &s, &met);
    fputs("    {\"target\": ", f);
    mri_json_write_string(f, t->what);
    fputs(", \"measured\": ", f);
    json_spread(f, t->measured, r->runs);
    fputs(", \"wanted\": ", f);
    json_number(f, t->wanted);
    fprintf(f, ", \"bound\": \"%s\", \"unit\": ", t->at_most ? "at_most" : "at_least");
    mri_json_write_string(f, t->unit);
    fprintf(f, ", \"every_run\": %s, \"runs_met\": %d, \"met\": %s}%s\n",
            t->every_run ? "true" : "false", met,
            v == NOT_MEASURED ? "null"
            : v == MET        ? "true"
                              : "false",
            i + 1 < count ? "," : "");
  }
  fputs("  ]\n}\n", f);
  return mrctx_output_commit(&out, "bench");
}

/* ---- SVG ----------------------------------------------------------------------- */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

static void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *text) {
  fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='%s' font-size='%d'>", x, y, anchor, size);
  mri_xml_write_text(f, text);
  fputs("</text>\n", f);
}

/* The chart's scales: log2 of threads across, log10 of Mops/s up. */
typedef struct svg_scale {
  double x0, x1, top, plot_h;
  double xmax;     /* log2 of the most threads */
  double ylo, yhi; /* powers of ten at the bottom and top */
} svg_scale;

static double svg_x(const svg_scale *s, double threads) {
  return s->x0 + (log2(threads) / s->xmax) * (s->x1 - s->x0);
}

static double svg_y(const svg_scale *s, double mops) {
  return s->top + s->plot_h - (log10(mops) - s->ylo) / (s->yhi - s->ylo) * s->plot_h;
}

/* The frame, the ticks and the axis title of the scaling plot. */
static void svg_scaling_axes(FILE *f, const svg_scale *s, int max_threads) {
  fprintf(f, "<rect x='%.0f' y='%.0f' width='%.0f' height='%.0f' fill='none' stroke='#999'/>\n",
          s->x0, s->top, s->x1 - s->x0, s->plot_h);
  for (double e = s->ylo; e <= s->yhi; e++) {
    char tick[32];
    snprintf(tick, sizeof tick, "%gM", pow(10, e));
    fprintf(f, "<line x1='%.0f' x2='%.0f' y1='%.1f' y2='%.1f' stroke='#eee'/>\n", s->x0, s->x1,
            svg_y(s, pow(10, e)), svg_y(s, pow(10, e)));
    svg_text(f, s->x0 - 6, svg_y(s, pow(10, e)) + 4, "end", 11, tick);
  }
  for (int t = 1; t <= max_threads; t *= 2) {
    char tick[16];
    snprintf(tick, sizeof tick, "%d", t);
    svg_text(f, svg_x(s, t), s->top + s->plot_h + 16, "middle", 11, tick);
  }
  svg_text(f, (s->x0 + s->x1) / 2, s->top + s->plot_h + 36, "middle", 12,
           "threads (one stream each)");
}

/* One allocator's line (the rows of `workload` labelled `label`) and its
 * legend entry, in colour k. */
static void svg_scaling_line(FILE *f, const bench_results *r, const svg_scale *s,
                             const char *workload, const char *label, int k) {
  fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", palette[k % 8]);
  const char *name = label;
  FOR_EACH_ROW(r, x) {
    double mops = row_spread(r, x, VALUE_MOPS).median;
    if (strcmp(x->workload, workload) == 0 && strcmp(x->label, label) == 0 && mops > 0) {
      fprintf(f, "%.1f,%.1f ", svg_x(s, x->threads), svg_y(s, mops));
      name = x->allocator;
    }
  }
  fputs("'/>\n", f);
  fprintf(f, "<rect x='%.0f' y='%.0f' width='12' height='3' fill='%s'/>\n", s->x0 + 10,
          s->top + 12 + 16 * k, palette[k % 8]);
  svg_text(f, s->x0 + 28, s->top + 17 + 16 * k, "start", 11, name);
}

/* Left: aggregate pairs/s of `workload`'s rows against threads, log-log,
 * one line per allocator (the first 8). Medians of the runs. */
static void svg_scaling(FILE *f, const bench_results *r, const char *workload, double top,
                        double plot_h) {
  svg_scale s = {.x0 = 70, .x1 = 500, .top = top, .plot_h = plot_h};
  const char *labels[8];
  int nlabels = 0, max_threads = 1;
  double lo = INFINITY, hi = 0;
  FOR_EACH_ROW(r, x) {
    double mops = row_spread(r, x, VALUE_MOPS).median;
    if (strcmp(x->workload, workload) != 0 || !(mops > 0)) continue;
    if (x->threads > max_threads) max_threads = x->threads;
    lo = fmin(lo, mops);
    hi = fmax(hi, mops);
    bool seen = false;
    for (int k = 0; k < nlabels; k++) seen |= strcmp(labels[k], x->label) == 0;
    if (!seen && nlabels < 8) labels[nlabels++] = x->label;
  }
  svg_text(f, (s.x0 + s.x1) / 2, 25, "middle", 16, "Thread scaling: aggregate alloc+free pairs/s");
  if (nlabels == 0) return;
  s.ylo = floor(log10(lo));
  s.yhi = ceil(log10(hi));
  if (s.yhi <= s.ylo) s.yhi = s.ylo + 1;
  s.xmax = log2((double)max_threads);
  if (s.xmax <= 0) s.xmax = 1;
  svg_scaling_axes(f, &s, max_threads);
  for (int k = 0; k < nlabels; k++) svg_scaling_line(f, r, &s, workload, labels[k], k);
}

/* Right: ns per pair at one thread of `workload`'s rows at `sizes`, log
 * scale bars. */
static void svg_bars(FILE *f, const bench_results *r, const char *workload, const char *sizes,
                     double top, double plot_h) {
  const double bx0 = 760, bx1 = 1060;
  char title[96];
  snprintf(title, sizeof title, "ns per pair, one thread (%s)", sizes);
  svg_text(f, 820, 25, "middle", 16, title);
  int nbars = 0;
  double bmax = 1;
  FOR_EACH_ROW(r, x) {
    if (strcmp(x->workload, workload) == 0 && strcmp(x->sizes, sizes) == 0) {
      nbars++;
      bmax = fmax(bmax, row_spread(r, x, VALUE_NS).median);
    }
  }
  if (nbars == 0) return;
  double row = plot_h / nbars, emax = ceil(log10(bmax));
  int k = 0;
  FOR_EACH_ROW(r, x) {
    if (strcmp(x->workload, workload) != 0 || strcmp(x->sizes, sizes) != 0) continue;
    double ns = row_spread(r, x, VALUE_NS).median;
    double len = fmax(1.0, log10(fmax(ns, 1.0)) / emax * (bx1 - bx0));
    double y = top + k * row;
    fprintf(f, "<rect x='%.0f' y='%.1f' width='%.1f' height='%.1f' fill='%s'/>\n", bx0, y + 3, len,
            row - 6, palette[k % 8]);
    svg_text(f, bx0 - 6, y + row / 2 + 4, "end", 11, x->allocator);
    char value[32];
    snprintf(value, sizeof value, "%.0f ns", ns);
    svg_text(f, bx0 + len + 4, y + row / 2 + 4, "start", 11, value);
    k++;
  }
  svg_text(f, (bx0 + bx1) / 2, top + plot_h + 36, "middle", 12, "log scale");
}

/* The two plots of `chart`, side by side. */
bool bench_write_svg(const char *path, const bench_results *r, const bench_chart *chart) {
  mri_output out;
  FILE *f = mrctx_output_open(&out, "bench", path, &r->trace, r->trace != NULL ? 1 : 0);
  if (f == NULL) return false;
  const double W = 1100, H = 460, top = 50, plot_h = 320;
  fprintf(f,
          "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' "
          "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
          W, H);
  svg_scaling(f, r, chart->scaling, top, plot_h);
  svg_bars(f, r, chart->bars, chart->bar_sizes, top, plot_h);
  fputs("</svg>\n", f);
  return mrctx_output_commit(&out, "bench");
}
