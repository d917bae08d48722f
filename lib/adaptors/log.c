/*
 * log.c: "log(UP, file=PATH)": one CSV line per allocation event.
 *
 * The format is rmm's logging_resource_adaptor's, so rmm's replay tooling
 * reads it: the header "Thread,Time,Action,Pointer,Size,Stream", then
 * lines such as
 *   12345,14:03:07.123456,allocate,0x7f3a00000000,1024,0x0
 * (thread id, local time with microseconds, "allocate" | "allocate
 * failure" | "free", pointer in hex, bytes, stream as a pointer).
 *
 * File I/O never holds an allocating thread up: a thread formats its line
 * on its own stack, appends it to an in-memory buffer under a short lock,
 * and a background writer thread writes the buffer out in batches (when it
 * grows large, a moment after it stops being empty, on
 * mr_log_resource_flush and on destroy). A free is logged before it reaches
 * upstream, so a replay never sees an address handed out again before the
 * free that released it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "adaptors/adaptors_internal.h"

#define LOG_HEADER "Thread,Time,Action,Pointer,Size,Stream\n"
#define LOG_BATCH_BYTES ((size_t)64 << 10) /* wake the writer from here on */
#define LOG_DELAY_NS 100000000L            /* write a small batch after 100 ms */
#define LOG_LINE_MAX 160

typedef struct log_state {
  mr_resource *upstream; /* mri_adaptor_head */
  char *path;
  FILE *file;
  char *what;

  pthread_mutex_t lock;
  pthread_cond_t wake_writer, written_cond;
  char *buffer; /* lines not yet taken by the writer */
  size_t length, capacity;
  char *spare; /* the writer's previous batch, handed back for reuse */
  size_t spare_capacity;
  uint64_t appended, written; /* bytes ever appended / written and flushed */
  uint64_t lost_lines;        /* lines dropped: no host memory to hold them */
  int write_errno;            /* first failed write, 0 if none */
  int flush_waiters;
  bool stop;
  bool writer_started;
  pthread_t writer;
} log_state;

/* ---- the line ------------------------------------------------------------- */

static _Thread_local long tls_thread_id;
static _Thread_local time_t tls_clock_second = -1;
static _Thread_local char tls_clock_text[16];

static long thread_id(void) {
  if (tls_thread_id == 0) tls_thread_id = (long)syscall(SYS_gettid);
  return tls_thread_id;
}

/* "HH:MM:SS.uuuuuu" in local time. localtime_r takes a process-wide lock,
 * so each thread formats the whole seconds once per second. */
static void clock_text(char *buf, size_t cap) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  if (now.tv_sec != tls_clock_second) {
    struct tm local;
    localtime_r(&now.tv_sec, &local);
    strftime(tls_clock_text, sizeof tls_clock_text, "%H:%M:%S", &local);
    tls_clock_second = now.tv_sec;
  }
  snprintf(buf, cap, "%s.%06ld", tls_clock_text, (long)(now.tv_nsec / 1000));
}

static void append(log_state *s, const char *line, size_t n) {
  pthread_mutex_lock(&s->lock);
  if (s->length + n > s->capacity) {
    size_t capacity = s->capacity ? s->capacity * 2 : 4 * LOG_BATCH_BYTES;
    while (capacity < s->length + n) capacity *= 2;
    char *grown = realloc(s->buffer, capacity);
    if (grown == NULL) {
      s->lost_lines++;
      pthread_mutex_unlock(&s->lock);
      return;
    }
    s->buffer = grown;
    s->capacity = capacity;
  }
  bool was_empty = s->length == 0;
  memcpy(s->buffer + s->length, line, n);
  s->length += n;
  s->appended += n;
  /* The writer sleeps while the buffer is empty; it keeps its own time
   * once something is there, and needs a nudge for a full batch. */
  if (was_empty || s->length >= LOG_BATCH_BYTES) pthread_cond_signal(&s->wake_writer);
  pthread_mutex_unlock(&s->lock);
}

static void log_event(log_state *s, const char *action, const void *ptr, size_t bytes,
                      mr_stream stream) {
  char when[48], line[LOG_LINE_MAX];
  clock_text(when, sizeof when);
  int n = snprintf(line, sizeof line, "%ld,%s,%s,0x%" PRIxPTR ",%zu,0x%" PRIxPTR "\n",
                   thread_id(), when, action, (uintptr_t)ptr, bytes, (uintptr_t)stream);
  if (n > 0) append(s, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* ---- the writer ------------------------------------------------------------ */

static void deadline_after(struct timespec *t, long ns) {
  clock_gettime(CLOCK_REALTIME, t);
  t->tv_nsec += ns;
  if (t->tv_nsec >= 1000000000L) {
    t->tv_sec++;
    t->tv_nsec -= 1000000000L;
  }
}

static void *writer_main(void *arg) {
  log_state *s = arg;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    /* Wait for something worth writing: a full batch, a flush, the end, or
     * a small batch that has waited long enough. */
    while (!s->stop && s->length == 0) pthread_cond_wait(&s->wake_writer, &s->lock);
    if (!s->stop && s->flush_waiters == 0 && s->length < LOG_BATCH_BYTES) {
      struct timespec deadline;
      deadline_after(&deadline, LOG_DELAY_NS);
      while (!s->stop && s->flush_waiters == 0 && s->length < LOG_BATCH_BYTES)
        if (pthread_cond_timedwait(&s->wake_writer, &s->lock, &deadline) == ETIMEDOUT) break;
    }
    if (s->length == 0) {
      if (s->stop) break;
      continue;
    }
    /* Take the batch, leave the spare buffer for appenders. */
    char *batch = s->buffer;
    size_t batch_length = s->length, batch_capacity = s->capacity;
    uint64_t upto = s->appended;
    s->buffer = s->spare;
    s->capacity = s->spare_capacity;
    s->length = 0;
    s->spare = NULL;
    s->spare_capacity = 0;
    pthread_mutex_unlock(&s->lock);

    int error = 0;
    if (fwrite(batch, 1, batch_length, s->file) != batch_length) error = errno ? errno : EIO;
    if (fflush(s->file) != 0 && error == 0) error = errno ? errno : EIO;

    pthread_mutex_lock(&s->lock);
    if (error != 0 && s->write_errno == 0) s->write_errno = error;
    if (s->spare == NULL) {
      s->spare = batch;
      s->spare_capacity = batch_capacity;
    } else {
      free(batch);
    }
    s->written = upto;
    pthread_cond_broadcast(&s->written_cond);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

/* ---- the resource ------------------------------------------------------------ */

static mr_status log_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                              void **ptr) {
  log_state *s = self;
  mr_status st = mri_allocate(s->upstream, bytes, alignment, stream, ptr);
  log_event(s, st == MR_OK ? "allocate" : "allocate failure", st == MR_OK ? *ptr : NULL, bytes,
            stream);
  return st;
}

static mr_status log_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                mr_stream stream) {
  log_state *s = self;
  log_event(s, "free", ptr, bytes, stream);
  return mri_deallocate(s->upstream, ptr, bytes, alignment, stream);
}

/* Wait until everything appended before the call is in the file. */
static mr_status log_flush(log_state *s) {
  pthread_mutex_lock(&s->lock);
  uint64_t target = s->appended;
  s->flush_waiters++;
  pthread_cond_signal(&s->wake_writer);
  while (s->written < target) pthread_cond_wait(&s->written_cond, &s->lock);
  s->flush_waiters--;
  int error = s->write_errno;
  uint64_t lost = s->lost_lines;
  pthread_mutex_unlock(&s->lock);
  if (error != 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: writing '%s' failed: %s", s->what, s->path,
                     strerror(error));
  if (lost != 0)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: %llu lines were lost: no host memory to hold them",
                     s->what, (unsigned long long)lost);
  return MR_OK;
}

static void log_destroy(void *self) {
  log_state *s = self;
  if (s->writer_started) {
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    pthread_cond_signal(&s->wake_writer);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->writer, NULL); /* it writes everything left first */
  }
  if (s->file != NULL && fclose(s->file) != 0 && s->write_errno == 0) s->write_errno = errno;
  /* Nobody is left to hear about it but the operator. */
  if (s->write_errno != 0 || s->lost_lines != 0)
    fprintf(stderr, "mrctx: %s: the log is incomplete: %s\n", s->what ? s->what : "log",
            s->write_errno != 0 ? strerror(s->write_errno) : "lines lost, out of host memory");
  free(s->buffer);
  free(s->spare);
  pthread_cond_destroy(&s->wake_writer);
  pthread_cond_destroy(&s->written_cond);
  pthread_mutex_destroy(&s->lock);
  mr_resource_release(s->upstream);
  free(s->what);
  free(s->path);
  free(s);
}

static const mr_resource_ops log_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "log",
    .allocate = log_allocate,
    .deallocate = log_deallocate,
    .synchronize = mri_forward_synchronize,
    .trim = mri_forward_trim,
    .destroy = log_destroy,
};

mr_status mr_log_resource_create(mr_resource *upstream, const char *path, mr_resource **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "log: out is NULL");
  *out = NULL;
  if (upstream == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "log: upstream is NULL");
  if (path == NULL || path[0] == '\0')
    return mri_error(MR_ERR_INVALID_ARGUMENT, "log(%s): no file given",
                     mr_resource_describe(upstream));
  log_state *s = mri_calloc(1, sizeof *s);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->wake_writer, NULL);
  pthread_cond_init(&s->written_cond, NULL);
  s->upstream = mr_resource_retain(upstream);
  s->path = mri_strdup(path);
  /* The description is spec text: a path that is not a bare word is quoted,
   * so it parses back (one with a control character cannot be written). */
  char *file = NULL;
  mr_status st = s->path != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY;
  if (st == MR_OK) {
    char what[MRI_ERROR_CAPACITY];
    snprintf(what, sizeof what, "log(%s)", mr_resource_describe(upstream));
    st = mri_spec_quote(what, path, &file);
  }
  if (st == MR_OK) {
    s->what = mri_asprintf("log(%s, file=%s)", mr_resource_describe(upstream), file);
    if (s->what == NULL) st = MR_ERR_OUT_OF_MEMORY;
  }
  free(file);
  if (st == MR_OK) {
    s->file = fopen(path, "w");
    if (s->file == NULL)
      st = mri_error(MR_ERR_INVALID_ARGUMENT, "%s: cannot open '%s' for writing: %s", s->what,
                     path, strerror(errno));
  }
  if (st == MR_OK) {
    append(s, LOG_HEADER, sizeof LOG_HEADER - 1);
    if (s->lost_lines != 0) st = mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory", s->what);
  }
  if (st == MR_OK) {
    int rc = pthread_create(&s->writer, NULL, writer_main, s);
    if (rc != 0)
      st = mri_error(rc == EAGAIN ? MR_ERR_OUT_OF_MEMORY : MR_ERR_INVALID_ARGUMENT,
                     "%s: cannot start the writer thread: %s", s->what, strerror(rc));
    else
      s->writer_started = true;
  }
  mr_resource_props props = upstream->props;
  props.native_alignment = 0; /* any alignment passes on to upstream */
  if (st == MR_OK) st = mri_resource_create(&log_ops, s, &props, upstream, s->what, out);
  if (st != MR_OK) {
    /* Creation failed: the file holds at most a header; no need to say so. */
    s->write_errno = 0;
    s->lost_lines = 0;
    log_destroy(s);
  }
  return st;
}

mr_status mr_log_resource_flush(mr_resource *mr) {
  log_state *s = mr_resource_state(mr, &log_ops);
  if (s == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_log_resource_flush: %s is not a log resource",
                     mr_resource_describe(mr));
  return log_flush(s);
}
