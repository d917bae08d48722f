/*
 * cmd_snapshot.c: `mrctx snapshot FILE...`: show snapshot files as tables,
 * one process's, or several processes' merged into one view.
 *
 *   mrctx snapshot FILE [FILE...] [--json] [--merged]
 *
 * A snapshot is taken inside the process that holds the memory
 * (mr_snapshot_take, the file MRCTX_OOM_SNAPSHOT names at out-of-memory,
 * Python's mrctx.write_snapshot); this command, a process of its own,
 * reads such files, checks each against the schema (mr_snapshot_read names
 * the line, column and member of what is wrong; the message names the
 * file) and prints one as the tables mr_snapshot_write_text does, several
 * as the merged view of mr_snapshot_write_merged_text. Written against the
 * public API only.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mrctx/mrctx.h>

#include "commands.h"

static void usage(FILE *out) {
  fputs("usage: mrctx snapshot FILE [FILE...] [--json] [--merged]\n"
        "\n"
        "Show a snapshot of who held the memory -- a JSON file written by\n"
        "mr_snapshot_write_json, by the out-of-memory dump (MRCTX_OOM_SNAPSHOT) or\n"
        "by Python's mrctx.write_snapshot -- as tables: memory by library, tag and\n"
        "device, caches, the largest live blocks, device memory, the driver pools.\n"
        "\n"
        "Several files (one per process: the ranks of a torchrun job, the workers\n"
        "of a Dask cluster) are merged into one view: memory by host, process\n"
        "(rank and pid), device, library and tag, with totals per host and device\n"
        "and overall. FILE - reads standard input (once). A file larger than\n"
        "256 MiB is refused.\n"
        "\n"
        "  --json      one file: write it back as JSON (checked, in the canonical\n"
        "              form); several: the merged view as JSON (schema\n"
        "              mrctx-snapshot-merged)\n"
        "  --merged    show even one file as the merged view\n"
        "  -h, --help  show this help\n"
        "\n"
        "Exit status: 0 shown, 1 a file cannot be read or is not a snapshot (the\n"
        "message names it), 2 bad usage.\n",
        out);
}

typedef struct snapshot_options {
  bool json, merged;
  char **files;
  size_t file_count;
} snapshot_options;

/* -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, snapshot_options *o) {
  static const struct option longopts[] = {
      {"json", no_argument, NULL, 'j'},
      {"merged", no_argument, NULL, 'm'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  optind = 1;
  opterr = 0; /* the messages below name the command */
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (c) {
    case 'j':
      o->json = true;
      break;
    case 'm':
      o->merged = true;
      break;
    case 'h':
      usage(stdout);
      return MRCTX_EXIT_OK;
    default: {
      char shown[256];
      mri_printable(argv[optind - 1], shown, sizeof shown);
      fprintf(stderr, "mrctx snapshot: unknown option '%s' (mrctx snapshot --help)\n", shown);
      return MRCTX_EXIT_USAGE;
    }
    }
  }
  o->files = argv + optind;
  o->file_count = (size_t)(argc - optind);
  if (o->file_count == 0) {
    fprintf(stderr, "mrctx snapshot: which file? (mrctx snapshot FILE...; --help says more)\n");
    return MRCTX_EXIT_USAGE;
  }
  size_t stdin_uses = 0;
  for (size_t i = 0; i < o->file_count; i++) stdin_uses += strcmp(o->files[i], "-") == 0;
  if (stdin_uses > 1) {
    fprintf(stderr, "mrctx snapshot: standard input (-) can be read once only\n");
    return MRCTX_EXIT_USAGE;
  }
  return -1;
}

/* The snapshot in `path` ("-": standard input). NULL, said on stderr with
 * the file's name, if it cannot be read or is not a snapshot. */
static mr_snapshot *read_file(const char *path) {
  bool from_stdin = strcmp(path, "-") == 0;
  const char *name = from_stdin ? "standard input" : path;
  FILE *file = from_stdin ? stdin : fopen(path, "r");
  if (file == NULL) {
    fprintf(stderr, "mrctx snapshot: cannot open '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  char *text = NULL;
  size_t length = 0;
  bool read = mrctx_read_all(file, MRCTX_SNAPSHOT_MAX, &text, &length);
  int read_errno = errno;
  if (!from_stdin) fclose(file);
  if (!read) {
    fprintf(stderr, "mrctx snapshot: cannot read '%s': %s\n", name,
            read_errno == EFBIG ? "larger than 256 MiB, which no snapshot is"
                                : strerror(read_errno));
    return NULL;
  }
  mr_snapshot *snapshot = NULL;
  mr_status st = mr_snapshot_read(text, length, &snapshot);
  free(text);
  if (st != MR_OK) {
    fprintf(stderr, "mrctx snapshot: %s: %s\n", name, mr_last_error());
    return NULL;
  }
  return snapshot;
}

int mrctx_cmd_snapshot(int argc, char **argv) {
  snapshot_options o = {.json = false};
  int status = parse_options(argc, argv, &o);
  if (status >= 0) return status;
  mr_snapshot **snapshots = calloc(o.file_count, sizeof *snapshots);
  if (snapshots == NULL) {
    fprintf(stderr, "mrctx snapshot: out of memory\n");
    return MRCTX_EXIT_FAILURE;
  }
  status = MRCTX_EXIT_OK;
  for (size_t i = 0; i < o.file_count && status == MRCTX_EXIT_OK; i++) {
    snapshots[i] = read_file(o.files[i]);
    if (snapshots[i] == NULL) status = MRCTX_EXIT_FAILURE;
  }
  if (status == MRCTX_EXIT_OK) {
    const mr_snapshot *const *all = (const mr_snapshot *const *)snapshots;
    mr_status st;
    if (o.file_count == 1 && !o.merged)
      st = o.json ? mr_snapshot_write_json(all[0], stdout) : mr_snapshot_write_text(all[0], stdout);
    else
      st = o.json ? mr_snapshot_write_merged_json(all, o.file_count, stdout)
                  : mr_snapshot_write_merged_text(all, o.file_count, stdout);
    if (st != MR_OK) {
      fprintf(stderr, "mrctx snapshot: %s\n", mr_last_error());
      status = MRCTX_EXIT_FAILURE;
    }
  }
  for (size_t i = 0; i < o.file_count; i++) mr_snapshot_destroy(snapshots[i]);
  free(snapshots);
  return status;
}
