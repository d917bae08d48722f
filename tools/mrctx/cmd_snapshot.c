/*
 * cmd_snapshot.c: `mrctx snapshot FILE`: show a snapshot file as tables.
 *
 *   mrctx snapshot FILE [--json]
 *
 * A snapshot is taken inside the process that holds the memory
 * (mr_snapshot_take, the file MRCTX_OOM_SNAPSHOT names at out-of-memory,
 * Python's mrctx.write_snapshot); this command, a process of its own,
 * reads such a file, checks it against the schema (mr_snapshot_read names
 * the line, column and member of what is wrong) and prints it as the same
 * tables mr_snapshot_write_text does. Written against the public API only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mrctx/mrctx.h>

#include "commands.h"

static void usage(FILE *out) {
  fputs("usage: mrctx snapshot FILE [--json]\n"
        "\n"
        "Show a snapshot of who held the memory -- a JSON file written by\n"
        "mr_snapshot_write_json, by the out-of-memory dump (MRCTX_OOM_SNAPSHOT) or\n"
        "by Python's mrctx.write_snapshot -- as tables: memory by library, tag and\n"
        "device, caches, the largest live blocks, the driver pools. FILE - reads\n"
        "standard input. A file larger than 256 MiB is refused.\n"
        "\n"
        "  --json      write the snapshot back as JSON (checked, in the canonical form)\n"
        "  -h, --help  show this help\n"
        "\n"
        "Exit status: 0 shown, 1 the file cannot be read or is not a snapshot,\n"
        "2 bad usage.\n",
        out);
}

int mrctx_cmd_snapshot(int argc, char **argv) {
  if (mrctx_wants_help(argc, argv)) {
    usage(stdout);
    return MRCTX_EXIT_OK;
  }
  const char *path = NULL;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(stderr, "mrctx snapshot: unknown option '%s' (mrctx snapshot --help)\n", argv[i]);
      return MRCTX_EXIT_USAGE;
    } else if (path != NULL) {
      fprintf(stderr, "mrctx snapshot: one file at a time ('%s' and '%s')\n", path, argv[i]);
      return MRCTX_EXIT_USAGE;
    } else {
      path = argv[i];
    }
  }
  if (path == NULL) {
    fprintf(stderr, "mrctx snapshot: which file? (mrctx snapshot FILE; --help says more)\n");
    return MRCTX_EXIT_USAGE;
  }
  bool from_stdin = strcmp(path, "-") == 0;
  FILE *file = from_stdin ? stdin : fopen(path, "r");
  if (file == NULL) {
    fprintf(stderr, "mrctx snapshot: cannot open '%s': %s\n", path, strerror(errno));
    return MRCTX_EXIT_FAILURE;
  }
  char *text = NULL;
  size_t length = 0;
  bool read = mrctx_read_all(file, MRCTX_SNAPSHOT_MAX, &text, &length);
  int read_errno = errno;
  if (!from_stdin) fclose(file);
  if (!read) {
    fprintf(stderr, "mrctx snapshot: cannot read '%s': %s\n", from_stdin ? "standard input" : path,
            read_errno == EFBIG ? "larger than 256 MiB, which no snapshot is"
                                : strerror(read_errno));
    return MRCTX_EXIT_FAILURE;
  }
  mr_snapshot *snapshot = NULL;
  mr_status st = mr_snapshot_read(text, length, &snapshot);
  free(text);
  if (st != MR_OK) {
    fprintf(stderr, "mrctx snapshot: %s: %s\n", from_stdin ? "standard input" : path,
            mr_last_error());
    return MRCTX_EXIT_FAILURE;
  }
  st = json ? mr_snapshot_write_json(snapshot, stdout) : mr_snapshot_write_text(snapshot, stdout);
  mr_snapshot_destroy(snapshot);
  if (st != MR_OK) {
    fprintf(stderr, "mrctx snapshot: %s\n", mr_last_error());
    return MRCTX_EXIT_FAILURE;
  }
  return MRCTX_EXIT_OK;
}
