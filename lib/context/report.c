/*
 * report.c: what a context shows people -- the resolved table
 * (mr_context_print_resolved: `mrctx resolve`, `python -m mrctx resolve`
 * and MRCTX_VERBOSE print it, and only this code writes it), the per-tag
 * statistics (mr_context_print_stats), and the operator's variables read
 * at the first context's creation: MRCTX_VERBOSE and MRCTX_STATS_AT_EXIT.
 *
 * Everything here reads a context through the public API (and
 * mri_context_describe_only): the tables show what any caller could read,
 * and nothing here knows how a context is laid out. Names that came from
 * outside (the library's, a file's path, a reason) are escaped for the
 * terminal (core/text.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context/context_internal.h"
#include "context/snapshot_internal.h"
#include "core/reclaim.h"
#include "core/variables.h"

static int width_of(const char *text, int at_least) {
  int n = (int)mri_printable_length(text);
  return n > at_least ? n : at_least;
}

/* `text` escaped, then spaces up to `width` columns (bytes: a tag is an
 * identifier, and a spec's names are ASCII). */
static void write_padded(FILE *out, const char *text, int width) {
  mri_write_printable(out, text);
  for (int n = (int)mri_printable_length(text); n < width; n++) fputc(' ', out);
}

/* ---- the resolved table ------------------------------------------------------------ */

/* "env MYLIB_MEMORY, line 2", "file /etc/x.conf, line 3", "override text,
 * line 1", "default". */
static void write_source(FILE *out, const mr_spec_source *s) {
  switch (s->origin) {
  case MR_SPEC_DEFAULT:
    fputs("default", out);
    return;
  case MR_SPEC_OVERRIDE:
    fprintf(out, "override text, line %d", s->line);
    return;
  case MR_SPEC_FILE:
  case MR_SPEC_ENV:
    fprintf(out, "%s ", mr_spec_origin_name(s->origin));
    mri_write_printable(out, s->where);
    fprintf(out, ", line %d", s->line);
    return;
  }
  fputs(mr_spec_origin_name(s->origin), out);
}

/* One row per tag and device: the resource and where its spec came from. */
static mr_status write_slots(const mr_context *ctx, FILE *out, const char *indent,
                             int *unavailable) {
  int tags = (int)mr_context_tag_count(ctx), devices = mr_context_device_count(ctx);
  int tag_w = 3, resource_w = 8;
  for (int t = 0; t < tags; t++) {
    tag_w = width_of(mr_context_tag_name(ctx, t), tag_w);
    for (int d = 0; d < devices; d++)
      resource_w = width_of(mr_resource_describe(mr_context_get_mr_on(ctx, t, d)), resource_w);
  }
  fprintf(out, "%s%-*s  %-6s  %-*s  %s\n", indent, tag_w, "tag", "device", resource_w, "resource",
          "source");
  *unavailable = 0;
  for (int t = 0; t < tags; t++) {
    for (int d = 0; d < devices; d++) {
      mr_spec_source s = {.size = sizeof s};
      mr_status st = mr_context_get_source(ctx, t, d, &s);
      if (st != MR_OK) return st;
      fputs(indent, out);
      write_padded(out, mr_context_tag_name(ctx, t), tag_w);
      fprintf(out, "  %-6d  ", d);
      write_padded(out, mr_resource_describe(mr_context_get_mr_on(ctx, t, d)), resource_w);
      fputs("  ", out);
      write_source(out, &s);
      fputs(s.status != MR_OK ? "  (unavailable)\n" : "\n", out);
      if (s.status != MR_OK) ++*unavailable;
    }
  }
  return MR_OK;
}

/* The entries for devices the process does not have, then why the tags
 * that cannot allocate cannot. */
static void write_ignored_and_unavailable(const mr_context *ctx, FILE *out, const char *indent,
                                          int unavailable) {
  size_t ignored = mr_context_ignored_count(ctx);
  if (ignored > 0) fprintf(out, "\n%signored (no such device):\n", indent);
  for (size_t i = 0; i < ignored; i++) {
    mr_ignored_entry e = {.size = sizeof e};
    if (mr_context_get_ignored(ctx, i, &e) != MR_OK) continue;
    fprintf(out, "%s  ", indent);
    mri_write_printable(out, e.tag);
    fprintf(out, "@%d=", e.device);
    mri_write_printable(out, e.source->spec);
    fputs("  (", out);
    write_source(out, e.source);
    fputs(")\n", out);
  }
  if (unavailable == 0) return;
  fprintf(out, "\n%sunavailable (allocations fail):\n", indent);
  int tags = (int)mr_context_tag_count(ctx), devices = mr_context_device_count(ctx);
  for (int t = 0; t < tags; t++) {
    for (int d = 0; d < devices; d++) {
      mr_spec_source s = {.size = sizeof s};
      if (mr_context_get_source(ctx, t, d, &s) != MR_OK || s.status == MR_OK) continue;
      fprintf(out, "%s  %s: ", indent, mr_status_name(s.status));
      mri_write_printable(out, s.reason);
      fputc('\n', out);
    }
  }
}

/* The table, every line but the empty ones after `indent`. */
static mr_status write_resolved(const mr_context *ctx, FILE *out, const char *indent) {
  int tags = (int)mr_context_tag_count(ctx), devices = mr_context_device_count(ctx);
  fputs(indent, out);
  mri_write_printable(out, mr_context_library(ctx));
  fprintf(out, ": %d tag%s, %d device%s\n\n", tags, tags == 1 ? "" : "s", devices,
          devices == 1 ? "" : "s");
  int unavailable = 0;
  mr_status st = write_slots(ctx, out, indent, &unavailable);
  if (st != MR_OK) return st;
  write_ignored_and_unavailable(ctx, out, indent, unavailable);
  return MR_OK;
}

mr_status mr_context_print_resolved(const mr_context *ctx, FILE *out) {
  if (ctx == NULL || out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_print_resolved: NULL argument");
  mr_status st = write_resolved(ctx, out, "");
  if (st == MR_OK && ferror(out))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_print_resolved: writing failed: %s",
                     strerror(errno));
  return st;
}

/* ---- the statistics ---------------------------------------------------------------- */

static void print_row(FILE *out, int tag_width, const char *tag, const char *device,
                      const mr_stats *s) {
  char current[32], peak[32], total[32];
  mri_format_bytes_human(s->current_bytes, current, sizeof current);
  mri_format_bytes_human(s->peak_bytes, peak, sizeof peak);
  mri_format_bytes_human(s->total_bytes, total, sizeof total);
  fprintf(out, "%-*s %6s %10s %10s %10s %8llu %10llu %8llu\n", tag_width, tag, device, current,
          peak, total, (unsigned long long)s->current_count, (unsigned long long)s->total_count,
          (unsigned long long)s->failed_count);
}

/* The tags' resources that keep idle memory (core/reclaim.h): what each
 * keeps idle now and what the process-wide reclaims took back from it.
 * Nothing when no chain keeps any. A tag that shares an earlier one's
 * resource (tag=@other) is not listed again. */
static void print_idle(const mr_context *ctx, FILE *out, int tag_width) {
  bool first = true;
  uint64_t total = 0;
  int tags = (int)mr_context_tag_count(ctx), devices = mr_context_device_count(ctx);
  for (int t = 0; t < tags; t++) {
    for (int d = 0; d < devices; d++) {
      const mr_resource *inner = mr_resource_upstream(mr_context_get_mr_on(ctx, t, d));
      bool shared = false;
      for (int o = 0; o < t && !shared; o++)
        shared = mr_resource_upstream(mr_context_get_mr_on(ctx, o, d)) == inner;
      for (const mr_resource *r = inner; r != NULL && !shared; r = mr_resource_upstream(r)) {
        mri_reclaim_figures f;
        if (!mri_reclaim_figures_of(r, &f)) continue;
        if (first)
          fprintf(out,
                  "idle memory (the process-wide reclaim gives it back when memory runs "
                  "out, except keep=yes)\n%-*s %6s %10s %8s %10s %9s  %s\n",
                  tag_width, "tag", "device", "idle", "reclaims", "taken back", "ms", "resource");
        first = false;
        char idle[32], back[32], spec[512];
        mri_format_bytes_human(f.idle_bytes, idle, sizeof idle);
        mri_format_bytes_human(f.reclaimed_bytes, back, sizeof back);
        fprintf(out, "%-*s %6d %10s %8" PRIu64 " %10s %9.3f  %s\n", tag_width,
                mr_context_tag_name(ctx, t), d, idle, f.reclaims, back, (double)f.reclaim_ns / 1e6,
                mri_printable(f.what, spec, sizeof spec));
        total += f.idle_bytes;
      }
    }
  }
  if (first) return;
  char sum[32];
  mri_format_bytes_human(total, sum, sizeof sum);
  fprintf(out, "%-*s %6s %10s\n", tag_width, "total", "", sum);
}

/* With `idle`, the idle memory table too: not at exit (MRCTX_STATS_AT_EXIT),
 * where an owned pool's figures would call a driver that may have shut
 * down. */
static mr_status print_stats(const mr_context *ctx, FILE *out, bool idle) {
  if (ctx == NULL || out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_print_stats: NULL argument");
  int tags = (int)mr_context_tag_count(ctx), devices = mr_context_device_count(ctx);
  int tag_width = 3;
  for (int t = 0; t < tags; t++) tag_width = width_of(mr_context_tag_name(ctx, t), tag_width);
  /* The library's name is the caller's, any bytes: escaped for the terminal. */
  mri_write_printable(out, mr_context_library(ctx));
  fputs(" memory by tag\n", out);
  fprintf(out, "%-*s %6s %10s %10s %10s %8s %10s %8s\n", tag_width, "tag", "device", "current",
          "peak", "total", "live", "allocs", "failures");
  for (int t = 0; t < tags; t++) {
    mr_stats sum;
    mr_stats_init(&sum);
    for (int d = 0; d < devices; d++) {
      mr_stats one;
      mr_stats_init(&one);
      mr_status st = mr_context_get_stats(ctx, t, d, &one);
      if (st != MR_OK) return st;
      mr_stats_add(&sum, &one);
      if (one.total_count == 0 && one.failed_count == 0) continue;
      char device[16];
      snprintf(device, sizeof device, "%d", d);
      print_row(out, tag_width, mr_context_tag_name(ctx, t), device, &one);
    }
    print_row(out, tag_width, mr_context_tag_name(ctx, t), "all", &sum);
  }
  if (idle && !mri_context_describe_only(ctx)) print_idle(ctx, out, tag_width);
  if (ferror(out))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_print_stats: writing failed: %s",
                     strerror(errno));
  return MR_OK;
}

mr_status mr_context_print_stats(const mr_context *ctx, FILE *out) {
  return print_stats(ctx, out, true);
}

/* ---- operators: MRCTX_VERBOSE and MRCTX_STATS_AT_EXIT ------------------------------ */

/* Both variables are read once, at the first context's creation. */
static pthread_once_t operators_once = PTHREAD_ONCE_INIT;
static bool verbose;
static char *at_exit_target; /* "stderr" or a path template; NULL: none */

static void stats_at_exit(void);

static atomic_bool operators_read; /* read_operator_env has run */

static void read_operator_env(void) {
  atomic_store(&operators_read, true);
  verbose = mri_variable_flag(MRI_VAR_VERBOSE);
  const char *target = mri_variable_get(MRI_VAR_STATS_AT_EXIT);
  if (target == NULL || target[0] == '\0') return;
  at_exit_target = mri_host_strdup(target);
  if (at_exit_target == NULL || atexit(stats_at_exit) != 0) {
    fprintf(stderr, "mrctx: MRCTX_STATS_AT_EXIT: out of host memory: nothing will be written "
                    "at exit\n");
    free(at_exit_target);
    at_exit_target = NULL;
    return;
  }
  /* Contexts destroyed from now on are in the report too (destroyed.c). */
  mri_destroyed_start();
}

/* MRCTX_VERBOSE: the table `mrctx resolve` prints, on stderr in one piece
 * (the lines of contexts made on several threads do not mix), under a
 * line that says where it comes from. */
static void print_resolved_verbose(const mr_context *ctx) {
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  if (out == NULL) return;
  fputs("mrctx: a context was created (MRCTX_VERBOSE):\n", out);
  mr_status st = write_resolved(ctx, out, "  ");
  if (fclose(out) == 0 && st == MR_OK && text != NULL) {
    fputs(text, stderr);
    fflush(stderr);
  }
  free(text);
}

void mri_report_context_created(const mr_context *ctx) {
  pthread_once(&operators_once, read_operator_env);
  /* mrctx resolve and the like show the table themselves. */
  if (verbose && !mri_context_describe_only(ctx)) print_resolved_verbose(ctx);
}

static mr_status print_one(void *user, const mr_context *ctx, uint64_t id) {
  (void)id;
  FILE *out = user;
  mr_status st = print_stats(ctx, out, false);
  fputc('\n', out);
  return st;
}

static mr_status count_one(void *user, const mr_context *ctx, uint64_t id) {
  (void)ctx;
  (void)id;
  ++*(size_t *)user;
  return MR_OK;
}

/* A destroyed context's table, as mr_context_print_stats prints a live
 * one's, from its record (destroyed.c), under a heading that says so. */
static mr_status print_destroyed(void *user, const mri_snap_context *c) {
  FILE *out = user;
  int tag_width = 3;
  for (size_t t = 0; t < c->tag_count; t++) tag_width = width_of(c->tags[t].name, tag_width);
  mri_write_printable(out, c->library);
  if (c->destroyed == 1)
    fputs(" memory by tag (destroyed)\n", out);
  else
    fprintf(out,
            " memory by tag (%" PRIu64 " contexts destroyed, merged: peaks are the largest of "
            "any one)\n",
            c->destroyed);
  fprintf(out, "%-*s %6s %10s %10s %10s %8s %10s %8s\n", tag_width, "tag", "device", "current",
          "peak", "total", "live", "allocs", "failures");
  for (size_t t = 0; t < c->tag_count; t++) {
    const mri_snap_tag *tag = &c->tags[t];
    mr_stats sum;
    mr_stats_init(&sum);
    for (size_t d = 0; d < tag->slot_count; d++) {
      const mr_stats *one = &tag->slots[d].stats;
      mr_stats_add(&sum, one);
      if (one->total_count == 0 && one->failed_count == 0) continue;
      char device[16];
      snprintf(device, sizeof device, "%d", tag->slots[d].device);
      print_row(out, tag_width, tag->name, device, one);
    }
    print_row(out, tag_width, tag->name, "all", &sum);
  }
  fputc('\n', out);
  return MR_OK;
}

static mr_status count_destroyed(void *user, const mri_snap_context *c) {
  *(uint64_t *)user += c->destroyed;
  return MR_OK;
}

/* Every live context's per-tag table, then every destroyed one's, in
 * memory (malloc'd); NULL when host memory ran out. Counters only: no
 * driver call (at exit the driver may have shut down before this runs). */
static char *render_tables(size_t *length) {
  char *text = NULL;
  FILE *out = open_memstream(&text, length);
  if (out == NULL) return NULL;
  size_t live = 0;
  uint64_t destroyed = 0, not_kept = 0;
  mri_context_foreach_live(count_one, &live);
  mri_destroyed_foreach(count_destroyed, &destroyed, &not_kept);
  fprintf(out, "mrctx: memory in use at exit of pid %ld: %zu live context%s", (long)getpid(), live,
          live == 1 ? "" : "s");
  if (destroyed + not_kept > 0) fprintf(out, ", %" PRIu64 " destroyed", destroyed + not_kept);
  fputc('\n', out);
  mr_status st = mri_context_foreach_live(print_one, out);
  if (st == MR_OK) st = mri_destroyed_foreach(print_destroyed, out, &not_kept);
  if (st == MR_OK && not_kept > 0)
    fprintf(out,
            "(%" PRIu64 " destroyed context%s not shown: out of host memory, or past the "
            "libraries and tags kept merged)\n",
            not_kept, not_kept == 1 ? "" : "s");
  if (fclose(out) != 0 || st != MR_OK) {
    free(text);
    return NULL;
  }
  return text;
}

/* A snapshot as JSON, without the driver's pools (see above). */
static char *render_snapshot(size_t *length) {
  mr_snapshot *snap = NULL;
  if (mri_snapshot_take(NULL, NULL, false, &snap) != MR_OK) return NULL;
  if (mri_destroyed_append(snap) != MR_OK) {
    mr_snapshot_destroy(snap);
    return NULL;
  }
  char *text = NULL;
  FILE *out = open_memstream(&text, length);
  mr_status st = out != NULL ? mr_snapshot_write_json(snap, out) : MR_ERR_OUT_OF_MEMORY;
  bool closed = out != NULL && fclose(out) == 0;
  mr_snapshot_destroy(snap);
  if (st != MR_OK || !closed) {
    free(text);
    return NULL;
  }
  return text;
}

static bool ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), m = strlen(suffix);
  return n >= m && strcmp(text + n - m, suffix) == 0;
}

/* Set by the first writer (mr_write_stats_at_exit or the exit handler):
 * the report is written once. */
static atomic_bool at_exit_written;

/* MRCTX_STATS_AT_EXIT's report, once. Failures are reported on stderr,
 * as at exit there is no caller to return them to; the status says the
 * same to mr_write_stats_at_exit's. */
static mr_status write_at_exit_report(void) {
  static const char what[] = "at-exit statistics (MRCTX_STATS_AT_EXIT)";
  const char *target = at_exit_target;
  if (target == NULL || atomic_exchange(&at_exit_written, true)) return MR_OK;
  bool to_stderr = strcmp(target, "stderr") == 0;
  char path[PATH_MAX];
  if (!to_stderr && !mri_expand_path(target, path, sizeof path)) {
    fprintf(stderr,
            "mrctx: MRCTX_STATS_AT_EXIT names a path longer than %d bytes: nothing "
            "written\n",
            PATH_MAX - 1);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_write_stats_at_exit: MRCTX_STATS_AT_EXIT names a path longer than %d "
                     "bytes",
                     PATH_MAX - 1);
  }
  bool json = !to_stderr && ends_with(path, ".json");
  size_t length = 0;
  char *text = json ? render_snapshot(&length) : render_tables(&length);
  mr_status st = MR_OK;
  if (text == NULL) {
    fprintf(stderr, "mrctx: %s not written: out of host memory\n", what);
    st = mri_error(MR_ERR_OUT_OF_MEMORY, "mr_write_stats_at_exit: out of host memory");
  } else if (to_stderr) {
    fwrite(text, 1, length, stderr);
    fflush(stderr);
  } else if (!mri_write_file_replacing(path, text, length, what)) {
    st = mri_error(MR_ERR_INVALID_ARGUMENT, "mr_write_stats_at_exit: %s not written to %s", what,
                   path);
  }
  free(text);
  /* Written once: the records are not needed any more. */
  mri_destroyed_stop();
  return st;
}

/* MRCTX_STATS_AT_EXIT, when the process exits normally (exit(), a return
 * from main), unless mr_write_stats_at_exit wrote it already. */
static void stats_at_exit(void) { (void)write_at_exit_report(); }

mr_status mr_write_stats_at_exit(void) {
  /* Nothing before the first context: the variable is read then. The
   * once call orders this thread after that read. */
  if (!atomic_load(&operators_read)) return MR_OK;
  pthread_once(&operators_once, read_operator_env);
  return write_at_exit_report();
}
