/*
 * commands.h: the verbs of the mrctx command and what they share.
 *
 * A verb is `int mrctx_cmd_NAME(int argc, char **argv)`: argv[0] is the verb's
 * name, the rest its arguments. It handles --help itself (mrctx_wants_help),
 * prints results to stdout and problems to stderr, and returns the exit
 * status: 0 success, 1 failure, 2 a usage error. Add a verb with its own
 * file, a declaration here and one line in main.c's table.
 */
#ifndef MRCTX_TOOLS_COMMANDS_H
#define MRCTX_TOOLS_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* mrctx info: the driver, each device and the driver's memory pools. */
int mrctx_cmd_info(int argc, char **argv);

/* mrctx resolve: what a context's tags and overrides resolve to. */
int mrctx_cmd_resolve(int argc, char **argv);

/* mrctx replay: an allocation log replayed against resource specs. */
int mrctx_cmd_replay(int argc, char **argv);

/* mrctx plot: memory in use over time from allocation logs, as SVG. */
int mrctx_cmd_plot(int argc, char **argv);

/* mrctx snapshot: a snapshot file (JSON) shown as tables. */
int mrctx_cmd_snapshot(int argc, char **argv);

/* mrctx bench: mrctx against the raw driver pools, cuMemHostAlloc and cub
 * (built where the toolkit's headers are). */
int mrctx_cmd_bench(int argc, char **argv);

/* ---- shared by the verbs ------------------------------------------------- */

#define MRCTX_EXIT_OK 0
#define MRCTX_EXIT_FAILURE 1
#define MRCTX_EXIT_USAGE 2

/* True if argv[1..] asks for help (-h or --help). */
bool mrctx_wants_help(int argc, char **argv);

/* A byte count for people: "0 B", "512 B", "64 KiB", "1.5 GiB". */
void mrctx_format_bytes(uint64_t bytes, char *buf, size_t cap);

/* The whole of `file`, to its end. OUT: *text (malloc'd, not NUL-ended),
 * *length. False on a read error (errno says which) or without memory. */
bool mrctx_read_all(FILE *file, char **text, size_t *length);

#endif
