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

#include <mrctx/mrctx.h>

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

/* The next option of a verb's arguments (optind = 1 before the first call),
 * read by getopt_long as the other verbs read theirs, for the verbs that
 * take no other arguments: options end at the first argument that is not
 * one, which is then a mistake. A mistake is said on stderr ("mrctx VERB:
 * unknown argument 'ARG'", "mrctx VERB: --NAME needs a value") and gives
 * '?' (':' for a missing value); -1 after the last option. */
struct option;
int mrctx_getopt(const char *verb, int argc, char **argv, const char *shorts,
                 const struct option *longs);

/* A verb's options, read by getopt_long from argv[1] on, what every verb
 * with files to read shares done here: 'h' (--help: the help on stdout,
 * exit 0), 'k' (--skip-bad, sets *skip_bad) and a mistake (getopt's line,
 * then the usage on stderr, exit 2). Every other option goes to `take`,
 * which returns -1 to go on or an exit status to stop with. Returns -1
 * when all options are read (optind at the first other argument), or the
 * exit status. */
int mrctx_read_options(int argc, char **argv, const char *shorts, const struct option *longs,
                       void (*usage)(FILE *out), bool *skip_bad,
                       int (*take)(void *options, int c, char *arg), void *options);
/* A `take` for options that are strings kept as they are: `options` is an
 * array of these, ended by c = 0, each naming where option c's value goes. */
typedef struct mrctx_string_option {
  int c;
  const char **value;
} mrctx_string_option;
int mrctx_take_string(void *options, int c, char *arg);

/* The end of such a verb's option table: the two options it reads itself. */
#define MRCTX_READ_OPTIONS_END \
  {"skip-bad", no_argument, NULL, 'k'}, {"help", no_argument, NULL, 'h'}, { NULL, 0, NULL, 0 }

/* The whole of `file`, to its end, at most `limit` bytes. OUT: *text
 * (malloc'd, not NUL-ended), *length. False, errno saying why, on a read
 * error, without memory (ENOMEM), or past `limit` (EFBIG: the file may have
 * no end, as /dev/zero). */
bool mrctx_read_all(FILE *file, size_t limit, char **text, size_t *length);

/* "NAME=PATH" as `mrctx plot` and `export` take a log: NAME unless the
 * whole argument is an existing file; by default the file's name without
 * its directory and ".csv". Returns the path (within `arg`, which is left
 * as it is); OUT: *name (malloc'd; NULL without memory). */
const char *mrctx_name_and_path(const char *arg, char **name);

/* The first cache(...) in mr's chain, or NULL. Told by type, not by name:
 * mr_cache_resource_get_stats answers only for the built-in cache, so a
 * custom resource named "cache" is passed over. */
mr_resource *mrctx_find_cache(mr_resource *mr);

/* The most a snapshot file may hold: 256 MiB, far more than any process's
 * snapshot takes (a few KiB per tag and device). */
#define MRCTX_SNAPSHOT_MAX ((size_t)256 << 20)

/* ---- output files ---------------------------------------------------------------- */

/* Every file a verb writes (export -o, replay --json, plot --svg) is an
 * output as the library's files are (lib/core/file_write.h, linked with
 * mrctx_text): a regular file at the path is replaced by a new one renamed
 * over it once whole, a FIFO or character device is written straight to
 * and stays, a link to a file, a directory or a FIFO with no reader is
 * refused, and so is a path that is one of `inputs` (the files the verb
 * reads: the same device and inode). Nothing but the new file is ever
 * removed: a verb that fails aborts, and the path keeps what it had.
 * mrctx_output_open says why on stderr ("mrctx VERB: cannot write 'PATH':
 * it is the input 'PATH' (the same file)...") and returns NULL; else the
 * output's stream. mrctx_output_commit puts the file in place; false,
 * said on stderr, if it could not be written whole. */
#include "core/file_write.h"
FILE *mrctx_output_open(mri_output *out, const char *verb, const char *path,
                        const char *const *inputs, size_t input_count);
bool mrctx_output_commit(mri_output *out, const char *verb);
/* The paths of a verb's input arguments ([NAME=]PATH, as
 * mrctx_name_and_path reads them), for mrctx_output_open: an array of
 * `count` pointers into `args` (malloc'd; NULL without memory). */
const char **mrctx_input_paths(char *const *args, size_t count);
void mrctx_output_abort(mri_output *out);

/* Text shared with the library (lib/core/text.h, linked as mrctx_text):
 * byte counts for people (mri_format_bytes with whole_bare: "512 B",
 * "64 KiB", "1.5 GiB"), strings as JSON (mri_json_write_string) or XML
 * (mri_xml_write_text) whatever their bytes, and names from outside made
 * safe for a terminal (mri_printable). */
#include "core/text.h"

#endif
