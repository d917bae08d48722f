/*
 * cmd_replay.c: `mrctx replay LOG --spec SPEC [--spec SPEC ...]`: replay a
 * recorded allocation log against resource specs, one after another, and
 * compare what each did: time, peak bytes requested, reserved and used in
 * the driver pool under it, failures, the cache's hit rate.
 *
 * The log is read and checked whole first (replay_log.c). Each spec then
 * runs in a child process of its own, so every spec starts as a job does:
 * with fresh, empty driver pools whose high watermarks are this replay's
 * alone (the library has no call to reset them, and a default pool keeps
 * what an earlier replay left in it). The child builds the spec
 * (mr_resource_from_spec), replays the events (replay_run.c), each on a
 * stream standing for its recorded Stream value, and sends its numbers
 * back through a pipe.
 *
 * By default each event runs on a thread standing for its recorded Thread,
 * in the log's order, the threads taking turns as the recorded ones did:
 * a per-thread cache then sees what the program's threads made it do (a
 * block freed by the thread that did not allocate it goes where such a
 * free goes), which one thread cannot show; the order, and so the
 * allocator's answers, stay the log's. --threads one replays every event
 * on one thread, as earlier versions did: the same events without the
 * threads' hand-offs, to tell what the threads cost.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mrctx/mrctx.h>

#include "commands.h"
#include "replay_log.h"
#include "replay_run.h"
#if MRCTX_HAVE_CUDA_HEADERS
#include "replay_streams.h"
#endif

static void usage(FILE *out) {
  fputs("usage: mrctx replay LOG --spec SPEC [--spec SPEC ...] [--device N]\n"
        "                    [--threads recorded|one] [--json FILE] [--skip-bad]\n"
        "\n"
        "Replay an allocation log in rmm's CSV format (what the log adaptor and\n"
        "rmm's logging_resource_adaptor write; gzip-compressed too) against each\n"
        "resource spec, one after another, and compare time, peak reserved and\n"
        "used memory, failures, frees on another thread and the cache's counters.\n"
        "\n"
        "  --spec SPEC   a resource spec to replay against (mrctx-spec(7)); repeat\n"
        "                it to compare several\n"
        "  --device N    the device the specs are built for (default 0)\n"
        "  --threads recorded|one\n"
        "                recorded (the default): each event on a thread standing\n"
        "                for its recorded one, the threads taking turns in the\n"
        "                log's order; one: every event on one thread\n"
        "  --json FILE   write the log's summary and every result as JSON\n"
        "  --skip-bad    skip bad lines of the log and count them, instead of\n"
        "                stopping at the first\n"
        "  -h, --help    show this help\n"
        "\n"
        "Each spec replays in a process of its own, on fresh driver pools; the\n"
        "events run in the log's order, each on a stream standing for its\n"
        "recorded one. Exit status: 0 replayed, 1 a bad log or a failure, 2 bad\n"
        "usage or a spec that does not parse.\n",
        out);
}

typedef struct replay_options {
  const char *log_path;
  const char **specs;
  size_t spec_count;
  int device;
  replay_threads threads;
  const char *json;
  bool skip_bad;
} replay_options;

/* What a child reports for one spec: fixed size, sent through a pipe. */
typedef struct spec_result {
  int status; /* mr_status of building the resource or of the replay's set-up */
  char message[1024];
  char resource[512]; /* mr_resource_describe */
  double wall_seconds;
  uint64_t peak_requested;
  bool have_pool; /* a driver pool at the bottom of the chain */
  uint64_t peak_reserved, peak_used;
  uint64_t failures;                     /* allocations refused in the replay */
  uint64_t free_errors;                  /* frees the resource refused */
  size_t threads;                        /* OS threads that ran events */
  uint64_t cross_thread_frees, handoffs; /* as they ran (replay_outcome) */
  bool have_cache;                       /* the first cache down the chain: its counters */
  uint64_t cache_hits, cache_misses, cache_cross_stream, cache_bypassed, cache_trims;
} spec_result;

/* ---- options -------------------------------------------------------------------- */

/* An option of replay's own (mrctx_read_options does --help and --skip-bad):
 * -1 to go on, or the exit status. */
static int take_option(void *options, int c, char *arg) {
  replay_options *o = options;
  switch (c) {
  case 's': {
    const char **grown = realloc(o->specs, (o->spec_count + 1) * sizeof *grown);
    if (grown == NULL) {
      fputs("mrctx replay: out of memory\n", stderr);
      return MRCTX_EXIT_FAILURE;
    }
    o->specs = grown;
    o->specs[o->spec_count++] = arg;
    break;
  }
  case 'd': {
    char *end;
    errno = 0;
    long device = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || device < 0 || device > 1023) {
      fprintf(stderr, "mrctx replay: --device wants a device number, not '%s'\n", arg);
      return MRCTX_EXIT_USAGE;
    }
    o->device = (int)device;
    break;
  }
  case 't':
    if (strcmp(arg, "recorded") == 0) {
      o->threads = REPLAY_THREADS_RECORDED;
    } else if (strcmp(arg, "one") == 0) {
      o->threads = REPLAY_THREADS_ONE;
    } else {
      fprintf(stderr, "mrctx replay: --threads wants 'recorded' or 'one', not '%s'\n", arg);
      return MRCTX_EXIT_USAGE;
    }
    break;
  case 'j':
    o->json = arg;
    break;
  }
  return -1;
}

/* -1 to go on, or the exit status (help, or a usage error). */
static int parse_options(int argc, char **argv, replay_options *o) {
  static const struct option longopts[] = {
      {"spec", required_argument, NULL, 's'},
      {"device", required_argument, NULL, 'd'},
      {"json", required_argument, NULL, 'j'},
      {"threads", required_argument, NULL, 't'},
      MRCTX_READ_OPTIONS_END,
  };
  int status = mrctx_read_options(argc, argv, "h", longopts, usage, &o->skip_bad, take_option, o);
  if (status >= 0) return status;
  if (optind < argc) o->log_path = argv[optind++];
  if (optind < argc) {
    fprintf(stderr, "mrctx replay: one log at a time, not also '%s'\n", argv[optind]);
    return MRCTX_EXIT_USAGE;
  }
  if (o->log_path == NULL) {
    fputs("mrctx replay: give the log to replay (see --help)\n", stderr);
    return MRCTX_EXIT_USAGE;
  }
  if (o->spec_count == 0) {
    fputs("mrctx replay: give at least one --spec SPEC to replay against (see --help)\n", stderr);
    return MRCTX_EXIT_USAGE;
  }
  return -1;
}

/* ---- the replay, in a child process ------------------------------------------------ */

static mr_status fail(spec_result *res, mr_status st, const char *what) {
  res->status = st;
  snprintf(res->message, sizeof res->message, "%s%s", what, mr_last_error());
  return st;
}

/* The driver pool at the bottom of the chain, if there is one: the first
 * resource down the chain that reports pool information. */
static mr_resource *pool_in(mr_resource *mr, mr_pool_info *info) {
  for (mr_resource *r = mr; r != NULL; r = mr_resource_upstream(r)) {
    info->size = sizeof *info;
    if (mr_pool_resource_get_info(r, info) == MR_OK) return r;
  }
  return NULL;
}

/* The streams for the log's Stream values: none needed over pageable host
 * memory, where streams mean nothing (every event then runs on NULL). */
static mr_status open_streams(const replay_log *log, mr_resource *mr, int device,
                              mr_stream *streams, bool *created, spec_result *res) {
  mr_resource_props props = {.size = sizeof props};
  mr_status st = mr_resource_get_props(mr, &props);
  if (st != MR_OK) return fail(res, st, "reading its properties: ");
  *created = false;
  if (props.kind == MR_MEMORY_HOST) return MR_OK;
#if MRCTX_HAVE_CUDA_HEADERS
  if (!replay_streams_create(device, log->streams, log->stream_count, streams, res->message,
                             sizeof res->message)) {
    res->status = MR_ERR_DRIVER;
    return MR_ERR_DRIVER;
  }
  *created = true;
  return MR_OK;
#else
  (void)log;
  (void)device;
  (void)streams;
  res->status = MR_ERR_UNSUPPORTED;
  snprintf(res->message, sizeof res->message,
           "it needs CUDA streams, and mrctx was built without the CUDA toolkit's headers");
  return MR_ERR_UNSUPPORTED;
#endif
}

/* The spec's resource as replay_run calls it. */
typedef struct spec_target {
  mr_resource *mr;
  int device;
  bool device_memory; /* streams were made: each thread wants the device's context */
} spec_target;

static int spec_allocate(void *state, size_t bytes, mr_stream stream, void **ptr) {
  return mr_allocate(((spec_target *)state)->mr, bytes, 0, stream, ptr) != MR_OK;
}

static int spec_deallocate(void *state, void *ptr, size_t bytes, mr_stream stream) {
  return mr_deallocate(((spec_target *)state)->mr, ptr, bytes, 0, stream) != MR_OK;
}

/* Each replay thread, as each of the program's, has the device's context
 * current (the streams belong to it). */
static bool spec_thread_begin(void *state, size_t index, char *why, size_t cap) {
  spec_target *t = state;
  (void)index;
#if MRCTX_HAVE_CUDA_HEADERS
  if (t->device_memory) return replay_streams_make_current(t->device, why, cap);
#else
  (void)t;
  (void)why;
  (void)cap;
#endif
  return true;
}

static void replay_spec(const replay_log *log, const char *spec, int device, replay_threads threads,
                        spec_result *res) {
  mr_resource *mr = NULL;
  mr_status st = mr_resource_from_spec(spec, device, &mr);
  if (st != MR_OK) {
    fail(res, st, "");
    return;
  }
  snprintf(res->resource, sizeof res->resource, "%s", mr_resource_describe(mr));
  mr_stream *streams = calloc(log->stream_count ? log->stream_count : 1, sizeof *streams);
  bool created = false;
  if (streams == NULL) {
    res->status = MR_ERR_OUT_OF_MEMORY;
    snprintf(res->message, sizeof res->message, "out of host memory for %zu streams",
             log->stream_count);
  } else if (open_streams(log, mr, device, streams, &created, res) == MR_OK) {
    spec_target state = {.mr = mr, .device = device, .device_memory = created};
    replay_target target = {.state = &state,
                            .allocate = spec_allocate,
                            .deallocate = spec_deallocate,
                            .thread_begin = spec_thread_begin};
    replay_outcome out;
    if (!replay_run(log, &target, streams, threads, &out, res->message, sizeof res->message)) {
      res->status = MR_ERR_STATE; /* nothing replayed; the message says why */
    } else {
      res->wall_seconds = out.wall_seconds;
      res->peak_requested = out.peak_requested;
      res->failures = out.failures;
      res->free_errors = out.free_errors;
      res->threads = out.threads;
      res->cross_thread_frees = out.cross_thread_frees;
      res->handoffs = out.handoffs;
      /* The blocks left live were freed at the end: that changes neither
       * the watermarks nor the cache's counts of hits and misses. */
      mr_pool_info pool;
      if (pool_in(mr, &pool) != NULL) {
        res->have_pool = true;
        res->peak_reserved = pool.reserved_high;
        res->peak_used = pool.used_high;
      }
      mr_resource *cache = mrctx_find_cache(mr);
      mr_cache_stats cs = {.size = sizeof cs};
      if (cache != NULL && mr_cache_resource_get_stats(cache, &cs) == MR_OK) {
        res->have_cache = true;
        res->cache_hits = cs.hits;
        res->cache_misses = cs.misses;
        res->cache_cross_stream = cs.cross_stream;
        res->cache_bypassed = cs.bypassed;
        res->cache_trims = cs.trims;
      }
    }
  }
  mr_resource_release(mr);
#if MRCTX_HAVE_CUDA_HEADERS
  if (created) replay_streams_destroy(log->streams, log->stream_count, streams);
#else
  (void)created; /* never set without the toolkit's headers */
#endif
  free(streams);
}

/* Build every spec and let it go: a spec that does not parse fails here,
 * before any replay takes time. */
static void check_specs(const replay_options *o, spec_result *res) {
  for (size_t i = 0; i < o->spec_count && res->status == MR_OK; i++) {
    mr_resource *mr = NULL;
    mr_status st = mr_resource_from_spec(o->specs[i], o->device, &mr);
    if (st != MR_OK) {
      res->status = st;
      snprintf(res->message, sizeof res->message, "--spec '%s': %s", o->specs[i], mr_last_error());
    }
    mr_resource_release(mr);
  }
}

/* In a child process, replay spec number `spec` (SIZE_MAX: check every
 * spec instead) and take back its result. False, with the reason in
 * res->message, if the child died without one. */
static bool in_child(const replay_log *log, const replay_options *o, size_t spec,
                     spec_result *res) {
  memset(res, 0, sizeof *res);
  int fds[2];
  if (pipe(fds) != 0) {
    snprintf(res->message, sizeof res->message, "cannot make a pipe: %s", strerror(errno));
    return false;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(res->message, sizeof res->message, "cannot fork: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    close(fds[0]);
    /* The replay dies with mrctx replay: killed (a test's timeout, ^C to
     * a script), it must not leave a replay running on its own. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    if (spec == SIZE_MAX)
      check_specs(o, res);
    else
      replay_spec(log, o->specs[spec], o->device, o->threads, res);
    const char *p = (const char *)res;
    size_t left = sizeof *res;
    while (left > 0) {
      ssize_t n = write(fds[1], p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(1);
      p += n;
      left -= (size_t)n;
    }
    _exit(0);
  }
  close(fds[1]);
  char *p = (char *)res;
  size_t got = 0;
  while (got < sizeof *res) {
    ssize_t n = read(fds[0], p + got, sizeof *res - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fds[0]);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) continue;
  if (got == sizeof *res) return true;
  memset(res, 0, sizeof *res);
  if (WIFSIGNALED(wstatus))
    snprintf(res->message, sizeof res->message, "the replay process died of signal %d (%s)",
             WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
  else
    snprintf(res->message, sizeof res->message,
             "the replay process ended (status %d) without a result",
             WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
  return false;
}

/* ---- the report ----------------------------------------------------------------------- */

static void format_count(uint64_t n, char *buf, size_t cap) {
  char digits[32];
  snprintf(digits, sizeof digits, "%" PRIu64, n);
  size_t len = strlen(digits), out = 0;
  for (size_t i = 0; i < len && out + 2 < cap; i++) {
    if (i > 0 && (len - i) % 3 == 0) buf[out++] = ',';
    buf[out++] = digits[i];
  }
  buf[out] = '\0';
}

static void format_seconds(double s, char *buf, size_t cap) {
  if (s >= 1)
    snprintf(buf, cap, "%.2f s", s);
  else if (s >= 1e-3)
    snprintf(buf, cap, "%.2f ms", s * 1e3);
  else
    snprintf(buf, cap, "%.1f us", s * 1e6);
}

static double percent(uint64_t part, uint64_t whole) {
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_summary(const replay_options *o, const replay_log *log) {
  char events[32], allocs[32], frees[32], fails[32], peak[32], live[32];
  format_count(log->event_count, events, sizeof events);
  format_count(log->allocations, allocs, sizeof allocs);
  format_count(log->frees, frees, sizeof frees);
  format_count(log->failures, fails, sizeof fails);
  mri_format_bytes(log->peak_bytes, true, peak, sizeof peak);
  mri_format_bytes(log->live_bytes, true, live, sizeof live);
  double span = log->event_count ? log->events[log->event_count - 1].time : 0;
  printf("mrctx replay: %s: %s events (%s allocations, %s failed, %s frees)\n", log->path, events,
         allocs, fails, frees);
  printf("  %zu thread%s, %zu stream%s, %.6f s recorded, peak %s requested at %.6f s, "
         "%" PRIu64 " block%s (%s) live at the end\n",
         log->thread_count, log->thread_count == 1 ? "" : "s", log->stream_count,
         log->stream_count == 1 ? "" : "s", span, peak, log->peak_time, log->live_blocks,
         log->live_blocks == 1 ? "" : "s", live);
  char cross[32];
  format_count(log->cross_thread_frees, cross, sizeof cross);
  printf("  %s of %s frees (%.1f%%) on another thread than their allocation\n", cross, frees,
         percent(log->cross_thread_frees, log->frees));
  if (o->threads == REPLAY_THREADS_ONE || log->thread_count <= 1)
    printf("  replayed on one thread, in the log's order%s\n",
           log->thread_count > 1 ? " (--threads one)" : "");
  else
    printf("  replayed on %zu threads, one per recorded thread, taking turns in the log's "
           "order\n",
           log->thread_count);
}

static void print_skipped(const replay_log *log) {
  uint64_t total = replay_log_skipped(log);
  if (total == 0) return;
  fprintf(stderr, "mrctx replay: %s: skipped %" PRIu64 " bad line%s (", log->path, total,
          total == 1 ? "" : "s");
  const char *sep = "";
  for (int k = 0; k < REPLAY_BAD_KIND_COUNT; k++) {
    if (log->skipped[k] == 0) continue;
    fprintf(stderr, "%s%" PRIu64 " %s", sep, log->skipped[k], replay_bad_kind_name(k));
    sep = ", ";
  }
  fprintf(stderr, "); the first: %s\n", log->first_skipped);
}

static double hit_rate(const spec_result *r) {
  uint64_t total = r->cache_hits + r->cache_misses;
  return r->have_cache && total > 0 ? (double)r->cache_hits / (double)total : NAN;
}

static void print_table(const replay_options *o, const replay_log *log,
                        const spec_result *results) {
  int width = 4;
  for (size_t i = 0; i < o->spec_count; i++) {
    int n = (int)strlen(o->specs[i]);
    if (n > width) width = n;
  }
  printf("\n%-*s  %10s  %8s  %14s  %13s  %10s  %8s  %10s\n", width, "spec", "wall", "ns/event",
         "peak requested", "peak reserved", "peak used", "failures", "cache hits");
  for (size_t i = 0; i < o->spec_count; i++) {
    const spec_result *r = &results[i];
    char wall[32], per[32], requested[32], reserved[32] = "-", used[32] = "-", hits[32] = "-";
    format_seconds(r->wall_seconds, wall, sizeof wall);
    snprintf(per, sizeof per, "%.0f",
             log->event_count ? r->wall_seconds * 1e9 / (double)log->event_count : 0.0);
    mri_format_bytes(r->peak_requested, true, requested, sizeof requested);
    if (r->have_pool) {
      mri_format_bytes(r->peak_reserved, true, reserved, sizeof reserved);
      mri_format_bytes(r->peak_used, true, used, sizeof used);
    }
    double rate = hit_rate(r);
    if (isfinite(rate)) snprintf(hits, sizeof hits, "%.1f%%", 100 * rate);
    printf("%-*s  %10s  %8s  %14s  %13s  %10s  %8" PRIu64 "  %10s\n", width, o->specs[i], wall, per,
           requested, reserved, used, r->failures, hits);
  }
  putchar('\n');
  for (size_t i = 0; i < o->spec_count; i++) {
    const spec_result *r = &results[i];
    char cross[32], handoffs[32];
    format_count(r->cross_thread_frees, cross, sizeof cross);
    format_count(r->handoffs, handoffs, sizeof handoffs);
    printf("%s: on %zu thread%s, %s frees on another thread, %s hand-off%s", o->specs[i],
           r->threads, r->threads == 1 ? "" : "s", cross, handoffs, r->handoffs == 1 ? "" : "s");
    if (r->have_cache) {
      char hits[32], misses[32], streams[32], bypassed[32], trims[32];
      format_count(r->cache_hits, hits, sizeof hits);
      format_count(r->cache_misses, misses, sizeof misses);
      format_count(r->cache_cross_stream, streams, sizeof streams);
      format_count(r->cache_bypassed, bypassed, sizeof bypassed);
      format_count(r->cache_trims, trims, sizeof trims);
      printf("; cache: %s hits (%.1f%%), %s misses, %s cross-stream, %s bypassed, %s trims", hits,
             percent(r->cache_hits, r->cache_hits + r->cache_misses), misses, streams, bypassed,
             trims);
    }
    putchar('\n');
    if (r->free_errors != 0)
      printf("%s: %" PRIu64 " frees were refused by the resource\n", o->specs[i], r->free_errors);
  }
}

/* The results as JSON into `f`, the --json output (committed by the
 * caller). */
static void write_json(const replay_options *o, const replay_log *log, const spec_result *results,
                       FILE *f) {
  fputs("{\n  \"log\": ", f);
  mri_json_write_string(f, log->path);
  fprintf(f,
          ",\n  \"events\": %zu, \"allocations\": %" PRIu64 ", \"failed_allocations\": %" PRIu64
          ", \"frees\": %" PRIu64 ",\n  \"threads\": %zu, \"streams\": %zu, "
          "\"recorded_seconds\": %.6f, \"peak_requested\": %" PRIu64
          ", \"live_blocks_at_end\": %" PRIu64 ", \"live_bytes_at_end\": %" PRIu64 ",\n"
          "  \"cross_thread_frees\": %" PRIu64 ", \"replay_threads\": \"%s\",\n"
          "  \"skipped_lines\": {",
          log->event_count, log->allocations, log->failures, log->frees, log->thread_count,
          log->stream_count, log->event_count ? log->events[log->event_count - 1].time : 0.0,
          log->peak_bytes, log->live_blocks, log->live_bytes, log->cross_thread_frees,
          replay_threads_name(o->threads));
  const char *sep = "";
  for (int k = 0; k < REPLAY_BAD_KIND_COUNT; k++) {
    if (log->skipped[k] == 0) continue;
    fprintf(f, "%s\"%s\": %" PRIu64, sep, replay_bad_kind_key(k), log->skipped[k]);
    sep = ", ";
  }
  fprintf(f, "},\n  \"device\": %d,\n  \"results\": [\n", o->device);
  for (size_t i = 0; i < o->spec_count; i++) {
    const spec_result *r = &results[i];
    fputs("    {\"spec\": ", f);
    mri_json_write_string(f, o->specs[i]);
    fputs(", \"resource\": ", f);
    mri_json_write_string(f, r->resource);
    fprintf(
        f, ", \"wall_seconds\": %.9f, \"ns_per_event\": %.1f, \"peak_requested\": %" PRIu64 ", ",
        r->wall_seconds, log->event_count ? r->wall_seconds * 1e9 / (double)log->event_count : 0.0,
        r->peak_requested);
    if (r->have_pool)
      fprintf(f, "\"peak_reserved\": %" PRIu64 ", \"peak_used\": %" PRIu64, r->peak_reserved,
              r->peak_used);
    else
      fputs("\"peak_reserved\": null, \"peak_used\": null", f);
    fprintf(f,
            ", \"failures\": %" PRIu64 ", \"free_errors\": %" PRIu64 ", \"threads\": %zu"
            ", \"cross_thread_frees\": %" PRIu64 ", \"handoffs\": %" PRIu64
            ",\n     \"cache_hit_rate\": ",
            r->failures, r->free_errors, r->threads, r->cross_thread_frees, r->handoffs);
    double rate = hit_rate(r);
    if (isfinite(rate))
      fprintf(f, "%.6f", rate);
    else
      fputs("null", f);
    if (r->have_cache)
      fprintf(f,
              ", \"cache\": {\"hits\": %" PRIu64 ", \"misses\": %" PRIu64
              ", \"cross_stream\": %" PRIu64 ", \"bypassed\": %" PRIu64 ", \"trims\": %" PRIu64 "}",
              r->cache_hits, r->cache_misses, r->cache_cross_stream, r->cache_bypassed,
              r->cache_trims);
    else
      fputs(", \"cache\": null", f);
    fprintf(f, "}%s\n", i + 1 < o->spec_count ? "," : "");
  }
  fputs("  ]\n}\n", f);
}

/* ---- the verb ---------------------------------------------------------------------------- */

/* `json`: the --json output's stream, or NULL. */
static int run(const replay_options *o, FILE *json) {
  replay_log log;
  char why[1024];
  if (!replay_log_read(o->log_path, o->skip_bad, &log, why, sizeof why)) {
    fprintf(stderr, "mrctx replay: %s\n", why);
    return MRCTX_EXIT_FAILURE;
  }
  print_skipped(&log);
  spec_result check;
  if (!in_child(&log, o, SIZE_MAX, &check) || check.status != MR_OK) {
    fprintf(stderr, "mrctx replay: %s\n", check.message);
    replay_log_free(&log);
    return check.status == MR_ERR_CONFIG ? MRCTX_EXIT_USAGE : MRCTX_EXIT_FAILURE;
  }
  spec_result *results = calloc(o->spec_count, sizeof *results);
  if (results == NULL) {
    fputs("mrctx replay: out of memory\n", stderr);
    replay_log_free(&log);
    return MRCTX_EXIT_FAILURE;
  }
  print_summary(o, &log);
  int status = MRCTX_EXIT_OK;
  for (size_t i = 0; i < o->spec_count; i++) {
    if (!in_child(&log, o, i, &results[i]) || results[i].status != MR_OK) {
      fprintf(stderr, "mrctx replay: --spec '%s': %s\n", o->specs[i], results[i].message);
      status = MRCTX_EXIT_FAILURE;
    }
  }
  if (status == MRCTX_EXIT_OK) {
    print_table(o, &log, results);
    if (json != NULL) write_json(o, &log, results, json);
  }
  free(results);
  replay_log_free(&log);
  return status;
}

int mrctx_cmd_replay(int argc, char **argv) {
  replay_options o = {0};
  int status = parse_options(argc, argv, &o);
  /* The --json file is opened first, so that one that may not be written
   * (the log itself, a link to a file) is refused before the replay; it
   * is put in place only if the replay succeeds (commands.h). */
  mri_output file;
  FILE *json = NULL;
  if (status < 0 && o.json != NULL) {
    json = mrctx_output_open(&file, "replay", o.json, &o.log_path, 1);
    if (json == NULL) status = MRCTX_EXIT_FAILURE;
  }
  if (status < 0) status = run(&o, json);
  if (json != NULL && status == MRCTX_EXIT_OK && !mrctx_output_commit(&file, "replay"))
    status = MRCTX_EXIT_FAILURE;
  if (json != NULL && status != MRCTX_EXIT_OK) mrctx_output_abort(&file);
  free(o.specs);
  return status;
}
