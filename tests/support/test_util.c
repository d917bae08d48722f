#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "test_util.h"

/* ---- vspace: addresses without memory ------------------------------------- */

static _Atomic uintptr_t vspace_next = (uintptr_t)1 << 44;

static mr_status vspace_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                 void **ptr) {
  /* Each block its own range, as a real upstream's (bin tells its classes'
   * blocks from upstream allocations by address). Wraps around after 2^64
   * bytes in all: the addresses are never used. */
  uintptr_t at = atomic_fetch_add(&vspace_next, (uintptr_t)bytes + alignment);
  *ptr = (void *)((at + (alignment - 1)) & ~(uintptr_t)(alignment - 1));
  if (*ptr == NULL) *ptr = (void *)(uintptr_t)alignment;
  return MR_OK;
}

static mr_status vspace_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                   mr_stream stream) {
  return MR_OK;
}

static const mr_resource_ops vspace_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "vspace",
    .allocate = vspace_allocate,
    .deallocate = vspace_deallocate,
};

mr_status vspace_resource_create(mr_resource **out) {
  return mr_resource_create(&vspace_ops, NULL, NULL, out);
}

uint64_t test_rand(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* ---- outputs that are not regular files ------------------------------------ */

static void *fifo_reader_main(void *arg) {
  test_fifo_reader *r = arg;
  size_t capacity = 0;
  bool writer_came = false;
  for (;;) {
    /* Before any writer came, read() would say end of file at once; poll
     * waits for data or for the writers to have gone (POLLHUP, which Linux
     * reports only once a writer has come since the open). */
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    if (poll(&p, 1, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (r->length + 4096 + 1 > capacity) {
      capacity = 2 * capacity + 8192;
      char *grown = realloc(r->data, capacity);
      if (grown == NULL) break;
      r->data = grown;
    }
    ssize_t n = read(r->fd, r->data + r->length, capacity - r->length - 1);
    if (n > 0) {
      r->length += (size_t)n;
      writer_came = true;
    } else if (n == 0 && (writer_came || (p.revents & POLLHUP) != 0)) {
      break;
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      break;
    }
  }
  return NULL;
}

void test_fifo_reader_start(test_fifo_reader *r, const char *path) {
  *r = (test_fifo_reader){.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  snprintf(r->path, sizeof r->path, "%s", path);
  if (r->fd < 0) fail_msg("cannot open the FIFO %s for reading: %s", path, strerror(errno));
  if (pthread_create(&r->thread, NULL, fifo_reader_main, r) != 0)
    fail_msg("cannot start the FIFO's reader");
}

char *test_fifo_reader_finish(test_fifo_reader *r, size_t *length) {
  /* The reader's end is still open, so this open does not wait. */
  int poke = open(r->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (poke >= 0) close(poke);
  pthread_join(r->thread, NULL);
  close(r->fd);
  if (r->data == NULL) r->data = calloc(1, 1);
  if (r->data != NULL) r->data[r->length] = '\0';
  if (length != NULL) *length = r->length;
  return r->data;
}

bool test_make_null_device(const char *path) {
  if (geteuid() != 0) {
    fprintf(stderr, "skipped: a character device needs mknod, which needs root: %s not made\n",
            path);
    return false;
  }
  if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) != 0)
    fail_msg("mknod %s (1, 3): %s", path, strerror(errno));
  return true;
}

unsigned test_watchdog_seconds(unsigned seconds) {
  const char *text = getenv("TIMEOUT_MULTIPLIER");
  char *end = NULL;
  double factor = text != NULL ? strtod(text, &end) : 1.0;
  if (text == NULL || end == text || *end != '\0' || !(factor >= 1.0) || factor > 1000.0)
    factor = 1.0;
  double limit = seconds * factor;
  unsigned whole = (unsigned)limit;
  return whole < limit ? whole + 1 : whole;
}
