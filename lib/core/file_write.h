/*
 * file_write.h (internal): writing files without destroying what the path
 * names and without the process being killed for a failed write.
 *
 * One way for every writer of the library (a log's file, the
 * out-of-memory snapshot, MRCTX_STATS_AT_EXIT's report) and of the mrctx
 * command (export -o, replay --json, plot --svg). file_write.c is built
 * into the static library mrctx_text with text.c, which libmrctx and the
 * command both link, so nothing here may call into the rest of the
 * library (no mri_error, no mri_host_malloc): failures are an errno and a
 * reason in words, which the caller puts into its own message.
 *
 * What an output path may name, decided by lstat:
 *  - nothing, or a regular file: a new file is created beside it
 *    (PATH.tmp-PID-N, exclusively, never following a link) and renamed
 *    over the path when the caller commits. A reader never sees half a
 *    file, a failed write leaves the file that was there as it was, and
 *    the file's other hard links keep their contents. The new file takes
 *    the permission bits of the one it replaces.
 *  - a character device, a FIFO or a socket (/dev/null, a named pipe, a
 *    terminal): written straight to, never created, truncated, renamed
 *    over or removed. The open never waits: a FIFO with no reader is an
 *    error (ENXIO), not a hang.
 *  - a symbolic link: followed only to a character device, a FIFO or a
 *    socket (so /dev/stdout, /dev/stderr and /proc/self/fd/N work on a
 *    terminal or a pipe). A link to a regular file, a directory or
 *    nothing is refused (ELOOP): writing through it would change a file
 *    the caller did not name (in a shared temporary directory, another
 *    user's trap), and replacing the link would surprise whoever made it.
 *  - a directory, a block device: refused.
 * An output that is one of the caller's inputs (the same st_dev and
 * st_ino, the link followed) is refused (EINVAL) before anything is
 * written. Nothing is ever removed but the caller's own new file.
 */
#ifndef MRCTX_LIB_CORE_FILE_WRITE_H
#define MRCTX_LIB_CORE_FILE_WRITE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Write all `length` bytes to `fd` (short writes and EINTR retried) with
 * SIGXFSZ and SIGPIPE blocked on the calling thread meanwhile: a file size
 * limit fails the write with EFBIG, and a pipe or FIFO whose reader left
 * fails it with EPIPE, instead of killing the process. The signal such a
 * write raised is consumed, never delivered later; one that was already
 * pending (sent from elsewhere) is left for its owner. Returns 0 or the
 * failed write's errno (EIO for a write of nothing); *done (if not NULL)
 * gets the bytes written. */
int mri_write_all(int fd, const void *data, size_t length, size_t *done);

/* An output being written (file_write.h's opening comment). */
typedef struct mri_output {
  const char *path;         /* the caller's; must live until commit or abort */
  int fd;                   /* -1 once closed */
  FILE *stream;             /* mri_output_stream's, closed with the output */
  bool direct;              /* written straight to the path (no new file) */
  bool replacing;           /* a regular file was at the path (kept on failure) */
  char temp[PATH_MAX + 64]; /* the new file beside the path ("" if direct) */
} mri_output;

/* mri_output_open's flags. */
#define MRI_OUTPUT_APPEND 1u /* the descriptor is O_APPEND (a log) */

/* Open `path` for output as file_write.h says. `inputs` (may be NULL):
 * `input_count` paths the caller reads, of which the output may be none;
 * one that cannot be examined (absent, "-") is passed over. Returns 0, or
 * an errno with the reason in `why` ("it is a FIFO with no reader", "it is
 * the input 'x.csv'", the system's message), without the path. */
int mri_output_open(mri_output *out, const char *path, unsigned flags, const char *const *inputs,
                    size_t input_count, char *why, size_t cap);

/* The output as a stdio stream (fdopen, "w"), made once; NULL with errno
 * on failure. Closed by commit and abort. */
FILE *mri_output_stream(mri_output *out);

/* mri_output_commit's flags. */
#define MRI_OUTPUT_SYNC 1u      /* fsync the new file before the rename */
#define MRI_OUTPUT_KEEP_OPEN 2u /* put the file in place; out->fd stays open, the caller's */

/* Finish the output: flush the stream, close (unless KEEP_OPEN) and rename
 * the new file over the path. Returns 0, or an errno with the reason in
 * `why`; on failure the new file is removed and whatever was at the path
 * is as it was. */
int mri_output_commit(mri_output *out, unsigned flags, char *why, size_t cap);

/* Give the output up: close it and remove the new file, if any. Nothing
 * else is removed: a direct output (a FIFO, a device) stays. Safe to call
 * after a failed open or commit, and twice. */
void mri_output_abort(mri_output *out);

/* Write `text` (`length` bytes) to `path` whole, as an output with no
 * inputs: open, write (mri_write_all), commit. What the library's
 * diagnostic files use (the out-of-memory snapshot, MRCTX_STATS_AT_EXIT's
 * report). Returns 0, or an errno with the reason in `why`; on failure
 * whatever was at the path is as it was. */
int mri_write_whole_file(const char *path, const char *text, size_t length, char *why, size_t cap);

/* `template` with "%p" as the process id and "%%" as '%'; any other '%'
 * stays as it is (MRCTX_OOM_SNAPSHOT's and MRCTX_STATS_AT_EXIT's paths).
 * false if the result does not fit `cap`. */
bool mri_expand_path(const char *template, char *out, size_t cap);

/* What a file that is not a regular one is, for messages: "a directory",
 * "a FIFO", "a symbolic link" (from lstat), ... */
const char *mri_file_type_words(mode_t mode);

#endif
