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

/* mrctx export: logs or snapshots as a Chrome trace-event JSON file. */
int mrctx_cmd_export(int argc, char **argv);

/* mrctx snapshot: a snapshot file (JSON) shown as tables. */
int mrctx_cmd_snapshot(int argc, char **argv);

/* mrctx bench: mrctx against the raw driver pools, cuMemHostAlloc and cub
 * (built where the toolkit's headers are). */
int mrctx_cmd_bench(int argc, char **argv);

/* ---- shared by the verbs ------------------------------------------------- */

#define MRCTX_EXIT_OK 0
#define MRCTX_EXIT_FAILURE 1
#define MRCTX_EXIT_USAGE 2
/* mrctx info: no driver or no device, which it has said. */
#define MRCTX_EXIT_UNAVAILABLE 3

/* True if argv[1..] asks for help (-h or --help). */
bool mrctx_wants_help(int argc, char **argv);

/* A byte count for people: "0 B", "512 B", "64 KiB", "1.5 GiB". */
void mrctx_format_bytes(uint64_t bytes, char *buf, size_t cap);

/* The whole of `file`, to its end, at most `limit` bytes. OUT: *text
 * (malloc'd, not NUL-ended), *length. False, errno saying why, on a read
 * error, without memory (ENOMEM), or past `limit` (EFBIG: the file may have
 * no end, as /dev/zero). */
bool mrctx_read_all(FILE *file, size_t limit, char **text, size_t *length);

/* The most a snapshot file may hold: 256 MiB, far more than any process's
 * snapshot takes (a few KiB per tag and device). */
#define MRCTX_SNAPSHOT_MAX ((size_t)256 << 20)

/* `text` as a JSON string, quoted and escaped, valid JSON whatever its
 * bytes: control characters as \u escapes, bytes that are not UTF-8 as
 * U+FFFD, as the library's own JSON writer writes them. */
void mrctx_write_json_string(FILE *f, const char *text);

/* `text` for a terminal, in `buf` (`cap` > 0 bytes, cut before what does
 * not fit): control characters, bytes that are not UTF-8 and the backslash
 * as \\xNN (\\\\), as the library's text tables write names. Returns buf. */
const char *mrctx_printable(const char *text, char *buf, size_t cap);

/* `text` as XML character data or attribute value (either quote), valid
 * XML 1.0 whatever its bytes: markup characters as entities, tab and line
 * breaks as character references, bytes that are not UTF-8 and characters
 * XML cannot carry (other C0 controls, U+FFFE, U+FFFF) as U+FFFD. */
void mrctx_write_xml_text(FILE *f, const char *text);

#endif
