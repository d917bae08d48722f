/*
 * file_write.c: writing files without destroying what the path names, and
 * without the process being killed for a failed write (file_write.h).
 *
 * Signals. A write that meets the file size limit (RLIMIT_FSIZE) raises
 * SIGXFSZ, and one to a pipe or FIFO whose reader has gone raises
 * SIGPIPE; the default action of both ends the process before the caller
 * can see EFBIG or EPIPE and clean up. The library writes files on the
 * application's threads (a log's flush, destroy and exit writing; the
 * out-of-memory snapshot), where that would kill the application for a
 * failed diagnostic write and leave a torn file. So both are blocked on
 * the calling thread for the duration of the writes: the write fails with
 * EFBIG or EPIPE, and the signal the kernel raised for it is taken back
 * before the old mask returns, so it is not delivered later either. One
 * that was already pending when the write began was sent from elsewhere
 * and is left alone.
 *
 * Outputs. What a path may name and what becomes of it is file_write.h's
 * opening comment; the rule behind it: a writer replaces only a regular
 * file, and only by renaming a whole new one over it; it writes straight
 * only to what is a stream by nature (a FIFO, a device, a socket); it
 * never removes anything but its own new file.
 */
#include "core/file_write.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- writing ----------------------------------------------------------------------- */

static bool is_pending(int sig) {
  sigset_t pending;
  return sigpending(&pending) == 0 && sigismember(&pending, sig) == 1;
}

/* Take back one pending `sig` (blocked on this thread). */
static void consume(int sig) {
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  struct timespec zero = {0, 0};
  while (sigtimedwait(&one, NULL, &zero) < 0 && errno == EINTR) continue;
}

int mri_write_all(int fd, const void *data, size_t length, size_t *done_out) {
  sigset_t blocked, old;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGXFSZ);
  sigaddset(&blocked, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &blocked, &old);
  /* One sent from elsewhere, already waiting, is not ours to take. */
  bool xfsz_was_pending = is_pending(SIGXFSZ), pipe_was_pending = is_pending(SIGPIPE);
  const char *bytes = data;
  size_t done = 0;
  int error = 0;
  while (done < length) {
    ssize_t n = write(fd, bytes + done, length - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    done += (size_t)n;
  }
  /* The kernel raises SIGXFSZ (for this thread) only along with EFBIG, and
   * SIGPIPE only along with EPIPE. */
  if (error == EFBIG && !xfsz_was_pending && is_pending(SIGXFSZ)) consume(SIGXFSZ);
  if (error == EPIPE && !pipe_was_pending && is_pending(SIGPIPE)) consume(SIGPIPE);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (done_out != NULL) *done_out = done;
  return error;
}

/* ---- outputs ----------------------------------------------------------------------- */

const char *mri_file_type_words(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISREG(mode)) return "a regular file";
  return "not a plain file";
}

/* What is written straight to: a stream by nature. */
static bool is_stream(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode); }

static int fail(int error, char *why, size_t cap, const char *reason) {
  snprintf(why, cap, "%s", reason);
  return error;
}

/* The new file beside `out->path`, created exclusively: O_EXCL and
 * O_NOFOLLOW create it or fail, never open what is there (a link, a
 * FIFO), and O_NONBLOCK keeps the open from ever waiting. */
static int create_beside(mri_output *out, int extra) {
  static atomic_uint serial;
  for (int attempt = 0; attempt < 100; attempt++) {
    int n = snprintf(out->temp, sizeof out->temp, "%s.tmp-%ld-%u", out->path, (long)getpid(),
                     atomic_fetch_add(&serial, 1));
    if (n < 0 || (size_t)n >= sizeof out->temp) {
      out->temp[0] = '\0';
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = open(
        out->temp,
        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | extra, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) break;
  }
  int error = errno;
  out->temp[0] = '\0';
  errno = error;
  return -1;
}

/* Open a stream at the path as it is (no creation, no truncation); the
 * link, if any, followed only when `follow`. */
static int open_direct(mri_output *out, bool follow, int extra, char *why, size_t cap) {
  int fd = open(out->path,
                O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (follow ? 0 : O_NOFOLLOW) | extra);
  if (fd < 0) {
    int error = errno;
    struct stat there;
    if (error == ENXIO && stat(out->path, &there) == 0 && S_ISFIFO(there.st_mode))
      return fail(error, why, cap, "it is a FIFO with no reader (mrctx does not wait for one)");
    if (error == ENXIO && stat(out->path, &there) == 0 && S_ISSOCK(there.st_mode))
      return fail(error, why, cap, "it is a socket, which cannot be opened as a file");
    return fail(error, why, cap, strerror(error));
  }
  /* What was opened is what was examined: a regular file put there since
   * is not written through (nothing was truncated: no O_TRUNC). */
  struct stat opened;
  int flags = fcntl(fd, F_GETFL);
  if (fstat(fd, &opened) != 0 || !is_stream(opened.st_mode)) {
    close(fd);
    return fail(EAGAIN, why, cap, "it changed while being opened; nothing written");
  }
  /* Writes wait for a slow reader as for a slow disk; no byte is lost to
   * a full pipe. */
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int error = errno;
    close(fd);
    return fail(error, why, cap, strerror(error));
  }
  out->fd = fd;
  out->direct = true;
  return 0;
}

int mri_output_open(mri_output *out, const char *path, unsigned flags, const char *const *inputs,
                    size_t input_count, char *why, size_t cap) {
  *out = (mri_output){.path = path, .fd = -1};
  if (path == NULL || path[0] == '\0') return fail(EINVAL, why, cap, "no path given");
  int extra = (flags & MRI_OUTPUT_APPEND) != 0 ? O_APPEND : 0;
  struct stat there, target;
  bool exists = lstat(path, &there) == 0;
  if (!exists && errno != ENOENT) return fail(errno, why, cap, strerror(errno));
  /* The output is none of the inputs, whatever the link leads to. */
  if (exists && stat(path, &target) == 0) {
    for (size_t i = 0; i < input_count; i++) {
      struct stat input;
      if (inputs[i] != NULL && stat(inputs[i], &input) == 0 && input.st_dev == target.st_dev &&
          input.st_ino == target.st_ino) {
        snprintf(why, cap,
                 "it is the input '%s' (the same file): an output never replaces what is read",
                 inputs[i]);
        return EINVAL;
      }
    }
  }
  if (exists && S_ISLNK(there.st_mode)) {
    if (stat(path, &target) != 0)
      return fail(ELOOP, why, cap,
                  "it is a symbolic link to nothing (mrctx does not write through a link to a "
                  "file nor replace the link: name the file itself)");
    if (!is_stream(target.st_mode)) {
      char words[160];
      snprintf(words, sizeof words,
               "it is a symbolic link to %s (mrctx does not write through a link to a file nor "
               "replace the link: name the file itself)",
               mri_file_type_words(target.st_mode));
      return fail(ELOOP, why, cap, words);
    }
    return open_direct(out, true, extra, why, cap);
  }
  if (exists && is_stream(there.st_mode)) return open_direct(out, false, extra, why, cap);
  if (exists && !S_ISREG(there.st_mode)) {
    char words[160];
    snprintf(words, sizeof words,
             "it is %s (mrctx writes a regular file, a FIFO, a character device or a socket)",
             mri_file_type_words(there.st_mode));
    return fail(S_ISDIR(there.st_mode) ? EISDIR : EINVAL, why, cap, words);
  }
  out->replacing = exists;
  out->fd = create_beside(out, extra);
  if (out->fd < 0) return fail(errno, why, cap, strerror(errno));
  /* The new file is no more readable than the one it replaces. */
  if (exists) (void)fchmod(out->fd, there.st_mode & 07777);
  int fd_flags = fcntl(out->fd, F_GETFL);
  if (fd_flags >= 0) (void)fcntl(out->fd, F_SETFL, fd_flags & ~O_NONBLOCK);
  return 0;
}

FILE *mri_output_stream(mri_output *out) {
  if (out->stream == NULL && out->fd >= 0) out->stream = fdopen(out->fd, "w");
  return out->stream;
}

/* Close the stream or the descriptor: 0 or the errno of the first failure
 * (a write error the stream met included). */
static int close_output(mri_output *out) {
  int error = 0;
  if (out->stream != NULL) {
    if (fflush(out->stream) != 0) error = errno;
    if (ferror(out->stream) && error == 0) error = EIO;
    if (fclose(out->stream) != 0 && error == 0) error = errno;
  } else if (out->fd >= 0 && close(out->fd) != 0) {
    error = errno;
  }
  out->stream = NULL;
  out->fd = -1;
  return error;
}

int mri_output_commit(mri_output *out, unsigned flags, char *why, size_t cap) {
  int error = 0;
  if (out->stream != NULL && (flags & MRI_OUTPUT_KEEP_OPEN) == 0) {
    error = close_output(out);
  } else if (out->stream != NULL && fflush(out->stream) != 0) {
    error = errno;
  }
  if (error == 0 && (flags & MRI_OUTPUT_SYNC) != 0 && !out->direct && out->fd >= 0 &&
      fsync(out->fd) != 0)
    error = errno;
  if ((flags & MRI_OUTPUT_KEEP_OPEN) == 0) {
    int closed = close_output(out);
    if (error == 0) error = closed;
  }
  /* rename() replaces the name itself: a link put at the path since the
   * open is replaced, not followed. */
  if (error == 0 && !out->direct && rename(out->temp, out->path) != 0) error = errno;
  if (error != 0) {
    snprintf(why, cap, "%s%s", strerror(error),
             out->replacing ? " (the file already there is kept)" : "");
    mri_output_abort(out);
    return error;
  }
  out->temp[0] = '\0';
  return 0;
}

void mri_output_abort(mri_output *out) {
  (void)close_output(out);
  if (!out->direct && out->temp[0] != '\0') unlink(out->temp);
  out->temp[0] = '\0';
}

/* ---- a whole file at once ---------------------------------------------------------- */

int mri_write_whole_file(const char *path, const char *text, size_t length, char *why, size_t cap) {
  mri_output out;
  int error = mri_output_open(&out, path, 0, NULL, 0, why, cap);
  if (error != 0) return error; /* nothing opened: the reason is said as it is */
  if ((error = mri_write_all(out.fd, text, length, NULL)) != 0) {
    snprintf(why, cap, "%s%s", strerror(error),
             out.replacing ? " (the file already there is kept)" : "");
    mri_output_abort(&out);
    return error;
  }
  return mri_output_commit(&out, 0, why, cap);
}

bool mri_expand_path(const char *template, char *out, size_t cap) {
  size_t n = 0;
  for (const char *c = template; *c != '\0'; c++) {
    char pid[24] = "";
    const char *piece = NULL;
    if (c[0] == '%' && c[1] == 'p') {
      snprintf(pid, sizeof pid, "%ld", (long)getpid());
      piece = pid;
      c++;
    } else if (c[0] == '%' && c[1] == '%') {
      piece = "%";
      c++;
    }
    size_t len = piece != NULL ? strlen(piece) : 1;
    if (n + len >= cap) return false;
    memcpy(out + n, piece != NULL ? piece : c, len);
    n += len;
  }
  out[n] = '\0';
  return true;
}
