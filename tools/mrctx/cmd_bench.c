/*
 * cmd_bench.c: `mrctx bench`, mrctx against the allocators users pick today,
 * on one device: the options, --help and the runs of the suite. The
 * workloads are the rows of one table (`bench_workloads`, in
 * bench_workloads.c): --only and --help take their names from it, a run of
 * the suite goes through it in order, and the report compares each result
 * with its workload's baseline row. Baselines: the raw driver calls on the same pools,
 * cuMemHostAlloc; peers: cub's CachingDeviceAllocator (where built with
 * nvcc) and PyTorch's caching allocator (where built with libtorch).
 * --runs N repeats the whole suite with fresh allocators; the report gives
 * each row's median and spread over the runs. Every measurement also finds
 * the workload's peak requested bytes and the allocator's peak reserved
 * bytes. Output: a table, the targets with met/missed, --json FILE
 * and --svg FILE. The trace workload replays a recorded allocation log
 * (replay_run.c, as `mrctx replay` does) with its threads.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "commands.h"

/* Every name in --only must be a workload: a typo must not run nothing. */
static bool check_only(const char *list) {
  if (list[0] == '\0') {
    fprintf(stderr, "mrctx bench: --only wants a comma-separated list of workloads\n");
    return false;
  }
  for (const char *p = list; *p != '\0';) {
    size_t len = strcspn(p, ",");
    bool known = false;
    for (size_t i = 0; i < bench_workload_count && !known; i++)
      known =
          strlen(bench_workloads[i].name) == len && strncmp(p, bench_workloads[i].name, len) == 0;
    if (!known) {
      fprintf(stderr, "mrctx bench: --only: no workload '%.*s' (see --help for the list)\n",
              (int)len, p);
      return false;
    }
    p += len;
    if (*p == ',') p++;
  }
  return true;
}

static void usage(FILE *out) {
  fputs("usage: mrctx bench [--seconds S] [--threads N] [--runs N] [--only LIST]\n"
        "                   [--trace FILE] [--json FILE] [--svg FILE] [--quiet]\n"
        "\n"
        "Times mrctx's resources against the raw driver pools, cuMemHostAlloc, cub's\n"
        "CachingDeviceAllocator and PyTorch's caching allocator (where built) on\n"
        "device 0 (devices: on 1, 2, ... every device at once), with each one's\n"
        "peak reserved memory, and checks the targets.\n"
        "\n"
        "  --seconds S   time per measurement (default 0.25; most are taken three\n"
        "                times, interleaved, and the median kept)\n"
        "  --threads N   largest thread count in the scaling run (default 16)\n"
        "  --runs N      run the whole suite N times, 1..100 (default 1); rows show\n"
        "                the median and spread, targets are judged on the median\n",
        out);
  /* The workloads' names, filled into lines of at most 79 characters. */
  int column = fprintf(out, "  --only LIST   workloads to run, comma-separated:");
  for (size_t i = 0; i < bench_workload_count; i++) {
    char word[64];
    int n = snprintf(word, sizeof word, "%s%s", bench_workloads[i].name,
                     i + 1 < bench_workload_count ? "," : " (default: all)");
    if (column + 1 + n > 79)
      column = fprintf(out, "\n                %s", word) - 1;
    else
      column += fprintf(out, " %s", word);
  }
  fputs("\n"
        "  --trace FILE  the allocation log the trace workload replays with its\n"
        "                threads (rmm's CSV format, gzip-compressed or not); by\n"
        "                default $MRCTX_BENCH_TRACE, else the GPT training trace\n"
        "                in ../shared/data beside the source tree, where found\n"
        "  --json FILE   write every run's results and the targets as JSON\n"
        "  --svg FILE    draw thread scaling and ns per pair as an SVG chart\n"
        "  --quiet       no progress on stderr\n"
        "\n"
        "MRCTX_BENCH_MEMORY overrides the benchmark's tags (device, device_default,\n"
        "cached, temp, staging, staging_cache, slabs) like any library's variable.\n",
        out);
}

/* Read the options into `o`, `json` and `svg`. Returns -1 to go on, or the
 * exit status (help, or a usage error). */
static int parse_options(int argc, char **argv, bench_options *o, const char **json,
                         const char **svg) {
  static const struct option longopts[] = {
      {"seconds", required_argument, NULL, 's'}, {"threads", required_argument, NULL, 't'},
      {"runs", required_argument, NULL, 'r'},    {"only", required_argument, NULL, 'o'},
      {"json", required_argument, NULL, 'j'},    {"svg", required_argument, NULL, 'g'},
      {"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
      {"trace", required_argument, NULL, 'T'},   {NULL, 0, NULL, 0},
  };
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (c) {
    case 's':
      o->seconds = atof(optarg);
      if (!(o->seconds > 0 && o->seconds <= 60)) {
        fprintf(stderr, "mrctx bench: --seconds wants a number in (0, 60], not '%s'\n", optarg);
        return 2;
      }
      break;
    case 't':
      o->max_threads = atoi(optarg);
      if (o->max_threads < 1 || o->max_threads > 256) {
        fprintf(stderr, "mrctx bench: --threads wants 1..256, not '%s'\n", optarg);
        return 2;
      }
      break;
    case 'r': {
      char *end;
      long runs = strtol(optarg, &end, 10);
      if (end == optarg || *end != '\0' || runs < 1 || runs > BENCH_MAX_RUNS) {
        fprintf(stderr, "mrctx bench: --runs wants 1..%d, not '%s'\n", BENCH_MAX_RUNS, optarg);
        return 2;
      }
      o->runs = (int)runs;
      break;
    }
    case 'o':
      if (!check_only(optarg)) return 2;
      o->only = optarg;
      break;
    case 'j':
      *json = optarg;
      break;
    case 'g':
      *svg = optarg;
      break;
    case 'q':
      o->quiet = true;
      break;
    case 'T':
      if (optarg[0] == '\0') {
        fprintf(stderr, "mrctx bench: --trace wants the allocation log to replay\n");
        return 2;
      }
      o->trace = optarg;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "mrctx bench: unexpected argument '%s'\n", argv[optind]);
    usage(stderr);
    return 2;
  }
  return -1;
}

/* The SVG chart: the threads workload's scaling, and the pairs workload's
 * ns per pair at one thread for its first sizes. */
static const bench_chart chart = {.scaling = "threads", .bars = "pairs", .bar_sizes = "256B-1MiB"};

int mrctx_cmd_bench(int argc, char **argv) {
  bench_options o = {.seconds = 0.25, .max_threads = 16, .runs = 1};
  const char *json = NULL, *svg = NULL;
  int status = parse_options(argc, argv, &o, &json, &svg);
  if (status >= 0) return status;

  bench_run b = {.o = &o};
  char why[256];
  if (mr_driver_load() != MR_OK) {
    printf("mrctx bench: no GPU to measure: %s\n", mr_last_error());
    return 1;
  }
  if (!bench_cuda_open(&b.cu, why, sizeof why)) {
    printf("mrctx bench: %s\n", why);
    return 1;
  }
  /* The first run's context is made before the first line, so that a bad
   * MRCTX_BENCH_MEMORY is all a failed start prints. */
  if (!bench_create_context(&b)) return 1;
  printf("mrctx bench: %s, driver %d.%d, mrctx %s, %.2f s per measurement", b.cu.device_name,
         b.cu.version / 1000, (b.cu.version % 1000) / 10, mr_version(), o.seconds);
  if (o.runs > 1) printf(", %d runs", o.runs);
  putchar('\n');

  replay_log trace_log;
  mr_stream *trace_streams = NULL;
  if (bench_selected(&o, "trace") && !bench_open_trace(&b, &trace_log, &trace_streams)) {
    mr_context_destroy(b.ctx);
    return 1;
  }

  static bench_target targets[BENCH_MAX_TARGETS];
  size_t ntargets = 0;
  bool ok = true;
  for (int run = 0; run < o.runs && ok; run++) {
    b.run = run;
    if (o.runs > 1) snprintf(b.prefix, sizeof b.prefix, "run %d/%d: ", run + 1, o.runs);
    ok = bench_run_suite(&b);
    if (ok) {
      b.results.runs = run + 1;
      ntargets = bench_make_targets(&b.results, run, targets);
    }
  }
  bench_progress(&o, "%s", "");
  if (!ok) {
    bench_close_trace(&b, &trace_log, trace_streams);
    free(b.results.items);
    return 1;
  }

  bench_print_table(stdout, &b.results);
  fputs(bench_table_notes, stdout);
  bench_print_targets(stdout, targets, ntargets, o.runs);
  int rc = 0;
  if (json != NULL && !bench_write_json(json, &b.cu, &b.results, targets, ntargets)) rc = 1;
  if (svg != NULL && !bench_write_svg(svg, &b.results, &chart)) rc = 1;
  bench_close_trace(&b, &trace_log, trace_streams);
  free(b.results.items);
  return rc;
}
