/*
 * file_write.c: writing a whole buffer to a file without the process being
 * killed for it.
 *
 * A write that meets the file size limit (RLIMIT_FSIZE) raises SIGXFSZ,
 * whose default action ends the process (with a core dump), before the
 * caller can see EFBIG and clean up. The library writes files on the
 * application's threads (a log's flush, destroy and exit writing; the
 * out-of-memory snapshot), where that would kill the application for a
 * failed diagnostic write and leave a torn file. So SIGXFSZ is blocked on
 * the calling thread for the duration of the writes: the write fails with
 * EFBIG, and the signal the kernel queued for it is taken back before the
 * old mask returns, so it is not delivered later either.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"

static bool xfsz_pending(void) {
  sigset_t pending;
  return sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ) == 1;
}

int mri_write_all(int fd, const void *data, size_t length, size_t *done_out) {
  sigset_t xfsz, old;
  sigemptyset(&xfsz);
  sigaddset(&xfsz, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &xfsz, &old);
  /* One sent from elsewhere, already waiting, is not ours to take. */
  bool was_pending = xfsz_pending();
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
  /* The kernel raises SIGXFSZ (for this thread) only along with EFBIG. */
  if (error == EFBIG && !was_pending && xfsz_pending()) {
    struct timespec zero = {0, 0};
    while (sigtimedwait(&xfsz, NULL, &zero) < 0 && errno == EINTR) continue;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (done_out != NULL) *done_out = done;
  return error;
}
