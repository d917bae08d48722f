/*
 * bench_report.c: `mrctx bench` output: the table, the targets, JSON, and
 * an SVG chart drawn by hand (no plotting library needed).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

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

const bench_result *bench_results_find(const bench_results *r, const char *workload,
                                       const char *sizes, const char *label, int threads) {
  for (size_t i = 0; i < r->count; i++) {
    const bench_result *x = &r->items[i];
    if (strcmp(x->workload, workload) == 0 && strcmp(x->sizes, sizes) == 0 &&
        strcmp(x->label, label) == 0 && x->threads == threads)
      return x;
  }
  return NULL;
}

/* The baseline a row is compared with: its workload's baseline row (the raw
 * driver call of its kind) at the same sizes and thread count. */
static const bench_result *baseline(const bench_results *r, const bench_result *x) {
  const char *label = bench_workload_baseline(x->workload);
  return label != NULL ? bench_results_find(r, x->workload, x->sizes, label, x->threads) : NULL;
}

void bench_print_table(FILE *out, const bench_results *r) {
  fprintf(out, "\n%-8s %-13s %-42s %3s %11s %11s %9s %9s %7s\n", "workload", "sizes",
          "allocator", "thr", "ns/op", "Mops/s", "vs raw", "vs cub", "hits");
  const char *last = "";
  for (size_t i = 0; i < r->count; i++) {
    const bench_result *x = &r->items[i];
    if (strcmp(last, x->workload) != 0) fputc('\n', out);
    last = x->workload;
    const bench_result *base = baseline(r, x);
    const bench_result *cub = bench_results_find(r, x->workload, x->sizes, "cub", x->threads);
    char vs_raw[16] = "", vs_cub[16] = "";
    /* Ratios in time per operation for one thread, aggregate rate beyond. */
    if (base != NULL && base != x)
      snprintf(vs_raw, sizeof vs_raw, "%.1fx",
               x->threads > 1 ? x->mops / base->mops : base->ns_per_op / x->ns_per_op);
    if (cub != NULL && cub != x)
      snprintf(vs_cub, sizeof vs_cub, "%.1fx",
               x->threads > 1 ? x->mops / cub->mops : cub->ns_per_op / x->ns_per_op);
    char hits[16] = "";
    if (isfinite(x->hit_rate)) snprintf(hits, sizeof hits, "%.2f%%", 100 * x->hit_rate);
    fprintf(out, "%-8s %-13s %-42s %3d %11.1f %11.2f %9s %9s %7s%s\n", x->workload, x->sizes,
            x->allocator, x->threads, x->ns_per_op, x->mops, vs_raw, vs_cub, hits,
            x->failures ? "  (allocations failed)" : "");
  }
  fputs("\nns/op: per pair (alloc + free) and per thread, or per call for lookup and per\n"
        "operation for random; Mops/s: aggregate over threads; vs raw / vs cub: how many\n"
        "times faster than the raw driver call of the same kind / than cub (aggregate\n"
        "throughput when threads > 1); hits: the share of allocations a cache in the\n"
        "chain served itself during the timed run.\n",
        out);
}

static bool target_met(const bench_target *t) {
  return t->at_most ? t->measured <= t->wanted : t->measured >= t->wanted;
}

void bench_print_targets(FILE *out, const bench_target *targets, size_t count) {
  fprintf(out, "\n%-52s %12s %12s  %s\n", "target", "measured", "wanted", "");
  for (size_t i = 0; i < count; i++) {
    const bench_target *t = &targets[i];
    if (!t->available) {
      fprintf(out, "%-52s %12s %12s  not measured\n", t->what, "-", "-");
      continue;
    }
    char measured[32], wanted[32];
    snprintf(measured, sizeof measured, "%.2f %s", t->measured, t->unit);
    snprintf(wanted, sizeof wanted, "%s %.4g %s", t->at_most ? "<=" : ">=", t->wanted, t->unit);
    fprintf(out, "%-52s %12s %12s  %s\n", t->what, measured, wanted,
            target_met(t) ? "met" : "MISSED");
  }
}

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void json_number(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.6g", v);
  else
    fputs("null", f);
}

bool bench_write_json(const char *path, const bench_cuda *cu, const bench_results *r,
                      const bench_target *targets, size_t count) {
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    perror(path);
    return false;
  }
  fputs("{\n  \"device\": ", f);
  json_string(f, cu->device_name);
  fprintf(f, ",\n  \"driver_version\": %d,\n  \"mrctx_version\": ", cu->version);
  json_string(f, mr_version());
  fputs(",\n  \"results\": [\n", f);
  for (size_t i = 0; i < r->count; i++) {
    const bench_result *x = &r->items[i];
    fputs("    {\"workload\": ", f);
    json_string(f, x->workload);
    fputs(", \"sizes\": ", f);
    json_string(f, x->sizes);
    fputs(", \"allocator\": ", f);
    json_string(f, x->allocator);
    fputs(", \"label\": ", f);
    json_string(f, x->label);
    fprintf(f, ", \"threads\": %d, \"ns_per_op\": ", x->threads);
    json_number(f, x->ns_per_op);
    fputs(", \"mops\": ", f);
    json_number(f, x->mops);
    fprintf(f, ", \"ops\": %ld, \"failures\": %ld, \"cache_hit_rate\": ", x->ops, x->failures);
    json_number(f, x->hit_rate);
    fprintf(f, "}%s\n", i + 1 < r->count ? "," : "");
  }
  fputs("  ],\n  \"targets\": [\n", f);
  for (size_t i = 0; i < count; i++) {
    const bench_target *t = &targets[i];
    fputs("    {\"target\": ", f);
    json_string(f, t->what);
    fputs(", \"measured\": ", f);
    json_number(f, t->available ? t->measured : NAN);
    fputs(", \"wanted\": ", f);
    json_number(f, t->wanted);
    fprintf(f, ", \"bound\": \"%s\", \"unit\": ", t->at_most ? "at_most" : "at_least");
    json_string(f, t->unit);
    fprintf(f, ", \"met\": %s}%s\n", t->available ? (target_met(t) ? "true" : "false") : "null",
            i + 1 < count ? "," : "");
  }
  fputs("  ]\n}\n", f);
  bool ok = !ferror(f);
  if (fclose(f) != 0) ok = false;
  if (!ok) perror(path);
  return ok;
}

/* ---- SVG ----------------------------------------------------------------------- */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

static void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *text) {
  fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='%s' font-size='%d'>", x, y, anchor, size);
  for (const char *s = text; *s; s++) {
    if (*s == '<')
      fputs("&lt;", f);
    else if (*s == '>')
      fputs("&gt;", f);
    else if (*s == '&')
      fputs("&amp;", f);
    else
      fputc(*s, f);
  }
  fputs("</text>\n", f);
}

/* Left: aggregate pairs/s against threads, log-log, one line per allocator.
 * Right: ns per pair at one thread, log scale bars. */
bool bench_write_svg(const char *path, const bench_results *r) {
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    perror(path);
    return false;
  }
  const double W = 1100, H = 460, top = 50, plot_h = 320;
  fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' "
             "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
          W, H);

  /* -- thread scaling -- */
  const double x0 = 70, x1 = 500;
  const char *labels[8];
  int nlabels = 0, max_threads = 1;
  double lo = INFINITY, hi = 0;
  for (size_t i = 0; i < r->count; i++) {
    const bench_result *x = &r->items[i];
    if (strcmp(x->workload, "threads") != 0 || x->mops <= 0) continue;
    if (x->threads > max_threads) max_threads = x->threads;
    lo = fmin(lo, x->mops);
    hi = fmax(hi, x->mops);
    bool seen = false;
    for (int k = 0; k < nlabels; k++) seen |= strcmp(labels[k], x->label) == 0;
    if (!seen && nlabels < 8) labels[nlabels++] = x->label;
  }
  svg_text(f, (x0 + x1) / 2, 25, "middle", 16, "Thread scaling: aggregate alloc+free pairs/s");
  if (nlabels > 0) {
    double ylo = floor(log10(lo)), yhi = ceil(log10(hi));
    if (yhi <= ylo) yhi = ylo + 1;
    double xmax = log2((double)max_threads);
    if (xmax <= 0) xmax = 1;
#define SX(t) (x0 + (log2(t) / xmax) * (x1 - x0))
#define SY(v) (top + plot_h - (log10(v) - ylo) / (yhi - ylo) * plot_h)
    fprintf(f, "<rect x='%.0f' y='%.0f' width='%.0f' height='%.0f' fill='none' stroke='#999'/>\n",
            x0, top, x1 - x0, plot_h);
    for (double e = ylo; e <= yhi; e++) {
      char tick[32];
      snprintf(tick, sizeof tick, "%gM", pow(10, e));
      fprintf(f, "<line x1='%.0f' x2='%.0f' y1='%.1f' y2='%.1f' stroke='#eee'/>\n", x0, x1,
              SY(pow(10, e)), SY(pow(10, e)));
      svg_text(f, x0 - 6, SY(pow(10, e)) + 4, "end", 11, tick);
    }
    for (int t = 1; t <= max_threads; t *= 2) {
      char tick[16];
      snprintf(tick, sizeof tick, "%d", t);
      svg_text(f, SX(t), top + plot_h + 16, "middle", 11, tick);
    }
    svg_text(f, (x0 + x1) / 2, top + plot_h + 36, "middle", 12, "threads (one stream each)");
    for (int k = 0; k < nlabels; k++) {
      fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", palette[k % 8]);
      const char *name = labels[k];
      for (size_t i = 0; i < r->count; i++) {
        const bench_result *x = &r->items[i];
        if (strcmp(x->workload, "threads") == 0 && strcmp(x->label, labels[k]) == 0 &&
            x->mops > 0) {
          fprintf(f, "%.1f,%.1f ", SX(x->threads), SY(x->mops));
          name = x->allocator;
        }
      }
      fputs("'/>\n", f);
      fprintf(f, "<rect x='%.0f' y='%.0f' width='12' height='3' fill='%s'/>\n", x0 + 10,
              top + 12 + 16 * k, palette[k % 8]);
      svg_text(f, x0 + 28, top + 17 + 16 * k, "start", 11, name);
    }
#undef SX
#undef SY
  }

  /* -- ns per pair, one thread -- */
  const double bx0 = 760, bx1 = 1060;
  svg_text(f, 820, 25, "middle", 16, "ns per pair, one thread (256B-1MiB)");
  int nbars = 0;
  double bmax = 1;
  for (size_t i = 0; i < r->count; i++) {
    const bench_result *x = &r->items[i];
    if (strcmp(x->workload, "pairs") == 0 && strcmp(x->sizes, "256B-1MiB") == 0) {
      nbars++;
      bmax = fmax(bmax, x->ns_per_op);
    }
  }
  if (nbars > 0) {
    double row = plot_h / nbars, emax = ceil(log10(bmax));
    int k = 0;
    for (size_t i = 0; i < r->count; i++) {
      const bench_result *x = &r->items[i];
      if (strcmp(x->workload, "pairs") != 0 || strcmp(x->sizes, "256B-1MiB") != 0) continue;
      double len = fmax(1.0, log10(fmax(x->ns_per_op, 1.0)) / emax * (bx1 - bx0));
      double y = top + k * row;
      fprintf(f, "<rect x='%.0f' y='%.1f' width='%.1f' height='%.1f' fill='%s'/>\n", bx0, y + 3,
              len, row - 6, palette[k % 8]);
      svg_text(f, bx0 - 6, y + row / 2 + 4, "end", 11, x->allocator);
      char value[32];
      snprintf(value, sizeof value, "%.0f ns", x->ns_per_op);
      svg_text(f, bx0 + len + 4, y + row / 2 + 4, "start", 11, value);
      k++;
    }
    svg_text(f, (bx0 + bx1) / 2, top + plot_h + 36, "middle", 12, "log scale");
  }
  fputs("</svg>\n", f);
  bool ok = !ferror(f);
  if (fclose(f) != 0) ok = false;
  if (!ok) perror(path);
  return ok;
}
