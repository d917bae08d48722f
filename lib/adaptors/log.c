/*
 * log.c: "log(UP, file=PATH)": one CSV line per allocation event.
 *
 * The format is rmm's logging_resource_adaptor's, so rmm's replay tooling
 * reads it: the header "Thread,Time,Action,Pointer,Size,Stream", then
 * lines such as
 *   12345,14:03:07.123456,allocate,0x7f3a00000000,1024,0x0
 * (thread id, local time with microseconds, "allocate" | "allocate
 * failure" | "free", pointer in hex, bytes, stream as a pointer). The header
 * is written when the file is opened, at creation. Logs of one process that
 * name the same file share it (see open_file): the first replaces it.
 *
 * File I/O never holds an allocating thread up: a thread formats its line
 * on its own stack, appends it to an in-memory buffer under a short lock,
 * and a background writer thread writes the buffer out in batches (when it
 * grows large, or a moment after it stops being empty). mr_log_resource_flush
 * and destroy write what is left on the calling thread. A free is logged
 * before it reaches upstream, so a replay never sees an address handed out
 * again before the free that released it. A write that fails part-way (a
 * full disk, a file size limit) is cut back to its last whole line; SIGXFSZ
 * and SIGPIPE are blocked around every write (write_all), so a file size
 * limit or a pipe whose reader left fails a write on the application's
 * thread (EFBIG, EPIPE) instead of killing the process.
 *
 * Writer lifetime: the writer is a detached thread that ends once it has
 * had nothing to write for LOG_IDLE_NS, and the next line starts a new one
 * (on the appending thread, outside the lock). So a live log never keeps a
 * process alive: after main calls pthread_exit, the process ends a moment
 * after its other threads do.
 *
 * Exit: every live log is in a registry (a list under registry_lock). When
 * the process exits (exit(), return from main, or the last thread ending
 * after pthread_exit from main), a destructor of the library, which runs
 * after the application's atexit handlers and static destructors, writes
 * every line appended until then, on the exiting thread. From then on only
 * the exiting thread writes (a line it logs later is written at once), so
 * the process never ends in the middle of another thread's write: a batch
 * another thread was writing is waited for first. Every wait at exit is
 * bounded (LOG_EXIT_WAIT_NS for all logs together, trylock rather than lock),
 * so exit never deadlocks on a lock held by a thread that will not run
 * again; a log given up on is reported on stderr. A log that another
 * thread destroys meanwhile stays (closing it, freeing it) until the exit
 * flush is over. Lines logged by other threads after the exit began may be
 * missing from the file; no line is ever torn. After fork() the child drops the lines the parent had not
 * written yet (the parent writes them) and logs its own to the same file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "adaptors/adaptors_internal.h"

#define LOG_HEADER "Thread,Time,Action,Pointer,Size,Stream\n"
#define LOG_BATCH_BYTES ((size_t)64 << 10) /* wake the writer from here on */
#define LOG_DELAY_NS 100000000L            /* write a small batch after 100 ms */
#define LOG_IDLE_NS 200000000L             /* the writer ends after 200 ms idle */
#define LOG_EXIT_WAIT_NS 2000000000L       /* at exit, wait at most 2 s in all */
#define LOG_LINE_MAX 160

typedef struct log_state {
  mr_resource *upstream;
  char *description;
  char *path;
  int fd;

  pthread_mutex_t lock;
  pthread_cond_t wake_writer; /* lines to write, or stop */
  pthread_cond_t progress;    /* a batch was written, or the writer ended */
  char *buffer;               /* lines not yet taken by a writer */
  size_t length, capacity;
  char *spare; /* the previous batch, handed back for reuse */
  size_t spare_capacity;
  uint64_t appended, written; /* bytes ever appended / taken and written */
  uint64_t lost_lines;        /* lines dropped: no host memory to hold them */
  int write_errno;            /* first failed write, 0 if none */
  bool reported;              /* the log said on stderr it is incomplete */
  char *in_flight;            /* the batch being written, for a forked child to free */
  bool writing;               /* a thread is writing in_flight */
  bool writer_running;        /* a writer thread exists or is being started */
  bool stop;                  /* destroy has begun: no writer may run */

  struct log_state *prev, *next; /* the registry, under registry_lock */
  mri_fork_lockable fork;        /* `lock` across fork() (core/fork.h) */
} log_state;
MRI_ADAPTOR_STATE(log_state);

/* ---- process-wide state: the registry of live logs, and exit ----------- */

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static log_state *registry;

/* Set (once) by the exit flush: the process is ending, and only
 * exit_thread may write any more. */
static atomic_bool exiting;
static pthread_t exit_thread;    /* published by the release store to exiting */
static atomic_bool exit_flushed; /* the exit flush is over */

static bool may_write(void) {
  return !atomic_load_explicit(&exiting, memory_order_acquire) ||
         pthread_equal(pthread_self(), exit_thread);
}

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

/* ---- writing -------------------------------------------------------------- */

/* Cut a write that failed part-way back to its last whole line, so a full
 * disk or a file size limit never leaves a torn line. Best effort. The
 * file may be shared with other logs of this process (open_file), each
 * appending through its own descriptor: if anything was appended after
 * this write's bytes, cutting would take those lines too, so the file is
 * cut only while its end is still this write's end. */
static void cut_torn_line(int fd, const char *data, size_t done) {
  size_t whole = done;
  while (whole > 0 && data[whole - 1] != '\n') whole--;
  off_t end = lseek(fd, 0, SEEK_CUR);
  struct stat st;
  if (whole == done || end < (off_t)(done - whole) || fstat(fd, &st) != 0 || st.st_size != end)
    return;
  end -= (off_t)(done - whole);
  if (ftruncate(fd, end) == 0) lseek(fd, end, SEEK_SET);
}

/* Write whole lines: 0, or the errno of the failed write. SIGXFSZ and
 * SIGPIPE are blocked meanwhile (mri_write_all): this runs on the
 * application's threads too (flush, destroy, the exit writing, the header
 * at creation), and a file size limit or a reader that closed its end of a
 * pipe must fail the write (EFBIG, EPIPE), not end the process. */
static int write_all(int fd, const char *data, size_t length) {
  size_t done = 0;
  int error = mri_write_all(fd, data, length, &done);
  if (error != 0) cut_torn_line(fd, data, done);
  return error;
}

/* Take the whole buffer and write it, the lock released meanwhile; the
 * spare buffer takes its place for appenders. Lock held, !s->writing,
 * s->length > 0, may_write(). */
static void write_batch(log_state *s) {
  char *batch = s->buffer;
  size_t batch_length = s->length, batch_capacity = s->capacity;
  uint64_t upto = s->appended;
  s->buffer = s->spare;
  s->capacity = s->spare_capacity;
  s->length = 0;
  s->spare = NULL;
  s->spare_capacity = 0;
  s->in_flight = batch;
  s->writing = true;
  pthread_mutex_unlock(&s->lock);

  int error = write_all(s->fd, batch, batch_length);

  pthread_mutex_lock(&s->lock);
  if (error != 0 && s->write_errno == 0) s->write_errno = error;
  if (s->spare == NULL) {
    s->spare = batch;
    s->spare_capacity = batch_capacity;
  } else {
    free(batch);
  }
  s->written = upto;
  s->in_flight = NULL;
  s->writing = false;
  pthread_cond_broadcast(&s->progress);
}

/* Write until everything appended up to `target` is written, waiting for a
 * batch another thread is writing. Lock held. Returns early, leaving the
 * rest to the exit flush, when the process is exiting on another thread. */
static void write_until(log_state *s, uint64_t target) {
  while (s->written < target) {
    if (s->writing)
      pthread_cond_wait(&s->progress, &s->lock);
    else if (may_write())
      write_batch(s);
    else
      break;
  }
}

static void monotonic_after(struct timespec *t, long ns) {
  clock_gettime(CLOCK_MONOTONIC, t);
  t->tv_nsec += ns;
  if (t->tv_nsec >= 1000000000L) {
    t->tv_sec += t->tv_nsec / 1000000000L;
    t->tv_nsec %= 1000000000L;
  }
}

static bool is_past(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->tv_sec ||
         (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* ---- the writer ------------------------------------------------------------ */

static void *writer_main(void *arg) {
  log_state *s = arg;
  pthread_mutex_lock(&s->lock);
  while (!s->stop) {
    /* Wait for lines; end after a while without any. */
    if (s->length == 0) {
      struct timespec deadline;
      monotonic_after(&deadline, LOG_IDLE_NS);
      while (!s->stop && s->length == 0)
        if (pthread_cond_timedwait(&s->wake_writer, &s->lock, &deadline) == ETIMEDOUT) break;
      if (s->stop || s->length == 0) break;
    }
    /* A small batch waits a moment for more. */
    if (s->length < LOG_BATCH_BYTES) {
      struct timespec deadline;
      monotonic_after(&deadline, LOG_DELAY_NS);
      while (!s->stop && s->length < LOG_BATCH_BYTES)
        if (pthread_cond_timedwait(&s->wake_writer, &s->lock, &deadline) == ETIMEDOUT) break;
      if (s->stop) break;
    }
    if (!may_write()) break; /* the exit flush has it */
    if (s->writing) {
      pthread_cond_wait(&s->progress, &s->lock); /* a flush is writing */
      continue;
    }
    if (s->length > 0) write_batch(s);
  }
  /* The last touch of s: destroy frees it once it sees this. */
  s->writer_running = false;
  pthread_cond_broadcast(&s->progress);
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

/* Start a writer, s->writer_running already set (lock not held). It runs
 * with every signal blocked, so the application's handlers never run on
 * it. On failure the lines wait for the next start, a flush, destroy or
 * exit. */
static void start_writer(log_state *s) {
  pthread_attr_t attr;
  sigset_t all, old;
  pthread_t writer;
  int rc = pthread_attr_init(&attr);
  if (rc == 0) {
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&writer, &attr, writer_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
  }
  if (rc != 0) {
    pthread_mutex_lock(&s->lock);
    s->writer_running = false;
    pthread_cond_broadcast(&s->progress);
    pthread_mutex_unlock(&s->lock);
  }
}

static void append(log_state *s, const char *line, size_t n) {
  pthread_mutex_lock(&s->lock);
  if (s->length + n > s->capacity) {
    size_t capacity = s->capacity ? s->capacity * 2 : 4 * LOG_BATCH_BYTES;
    while (capacity < s->length + n) capacity *= 2;
    char *grown = mri_host_realloc(s->buffer, capacity);
    if (grown == NULL) {
      s->lost_lines++;
      pthread_mutex_unlock(&s->lock);
      return;
    }
    s->buffer = grown;
    s->capacity = capacity;
  }
  size_t before = s->length;
  memcpy(s->buffer + s->length, line, n);
  s->length += n;
  s->appended += n;
  bool start = false;
  if (MRI_UNLIKELY(atomic_load_explicit(&exiting, memory_order_relaxed))) {
    /* Past the exit flush only the exiting thread writes, and at once. */
    if (may_write() && !s->writing) write_batch(s);
  } else if (s->writer_running) {
    /* The writer sleeps while the buffer is empty; it keeps its own time
     * once something is there, and needs a nudge for a full batch. */
    if (before == 0 || s->length >= LOG_BATCH_BYTES) pthread_cond_signal(&s->wake_writer);
  } else if (before == 0 || before / LOG_BATCH_BYTES != s->length / LOG_BATCH_BYTES) {
    /* No writer (it ended when idle, or could not start): start one, and
     * try again only every batch if that fails. */
    s->writer_running = start = !s->stop;
  }
  pthread_mutex_unlock(&s->lock);
  if (MRI_UNLIKELY(start)) start_writer(s);
}

static void log_event(log_state *s, const char *action, const void *ptr, size_t bytes,
                      mr_stream stream) {
  char when[48], line[LOG_LINE_MAX];
  clock_text(when, sizeof when);
  int n = snprintf(line, sizeof line, "%ld,%s,%s,0x%" PRIxPTR ",%zu,0x%" PRIxPTR "\n", thread_id(),
                   when, action, (uintptr_t)ptr, bytes, (uintptr_t)stream);
  if (n > 0) append(s, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* At exit or destroy nobody is left to hear about it but the operator.
 * Once per log. Lock held or unneeded. */
static void report_incomplete(log_state *s, const char *why) {
  if (why == NULL && s->write_errno != 0) why = strerror(s->write_errno);
  if (why == NULL && s->lost_lines != 0) why = "lines lost, out of host memory";
  if (why == NULL || s->reported) return;
  fprintf(stderr, "mrctx: %s: the log is incomplete: %s\n", s->description, why);
  s->reported = true;
}

/* ---- exit and fork ------------------------------------------------------------ */

static bool lock_before(pthread_mutex_t *lock, const struct timespec *deadline) {
  for (;;) {
    if (pthread_mutex_trylock(lock) == 0) return true;
    if (is_past(deadline)) return false;
    struct timespec pause = {0, 100000L};
    nanosleep(&pause, NULL);
  }
}

/* Write every live log at process exit (and when the library is unloaded).
 * A destructor rather than atexit: it runs after the application's atexit
 * handlers and static destructors, which may still log. */
__attribute__((destructor)) static void log_flush_at_exit(void) {
  exit_thread = pthread_self();
  atomic_store_explicit(&exiting, true, memory_order_release);
  struct timespec deadline;
  monotonic_after(&deadline, LOG_EXIT_WAIT_NS);
  if (!lock_before(&registry_lock, &deadline)) {
    fprintf(stderr, "mrctx: log: the logs may be incomplete: still busy after %ld s at exit\n",
            LOG_EXIT_WAIT_NS / 1000000000L);
    atomic_store(&exit_flushed, true);
    return;
  }
  for (log_state *s = registry; s != NULL; s = s->next) {
    if (!lock_before(&s->lock, &deadline)) {
      fprintf(stderr, "mrctx: %s: the log is incomplete: still busy after %ld s at exit\n",
              s->description, LOG_EXIT_WAIT_NS / 1000000000L);
      continue;
    }
    pthread_cond_signal(&s->wake_writer); /* an idle writer may end now */
    uint64_t target = s->appended;        /* later lines could keep it busy forever */
    while (s->writing && pthread_cond_timedwait(&s->progress, &s->lock, &deadline) != ETIMEDOUT)
      continue;
    if (s->writing) {
      report_incomplete(s, "a write still in progress at exit");
    } else {
      if (s->written < target && s->length > 0) write_batch(s);
      report_incomplete(s, NULL);
    }
    pthread_mutex_unlock(&s->lock);
  }
  atomic_store(&exit_flushed, true);
  pthread_mutex_unlock(&registry_lock);
}

static void init_conds(log_state *s) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&s->wake_writer, &attr);
  pthread_cond_init(&s->progress, &attr);
  pthread_condattr_destroy(&attr);
}

/* fork() copies every log in a consistent state: the library's fork
 * handlers (core/fork.h) hold registry_lock and every log's lock across it
 * (registry_lock first: the exit flush takes logs' locks under it; nothing
 * is taken under a log's lock). The child has no writer and nobody waiting;
 * the lines not yet written belong to the parent, which writes them. */
static void registry_fork_lock(void *obj) { mri_fork_lock_mutex(&registry_lock); }
static void registry_fork_unlock(void *obj) { pthread_mutex_unlock(&registry_lock); }
static void registry_fork_child(void *obj) { pthread_mutex_init(&registry_lock, NULL); }
static mri_fork_lockable registry_fork = {.rank = MRI_FORK_RANK_REGISTRY,
                                          .lock = registry_fork_lock,
                                          .unlock = registry_fork_unlock,
                                          .child = registry_fork_child};
__attribute__((constructor)) static void registry_fork_register(void) {
  mri_fork_register(&registry_fork);
}

static void log_fork_lock(void *obj) { mri_fork_lock_mutex(&((log_state *)obj)->lock); }
static void log_fork_unlock(void *obj) { pthread_mutex_unlock(&((log_state *)obj)->lock); }
static void log_fork_child(void *obj) {
  log_state *s = obj;
  /* Fresh synchronization objects: the parent's threads waiting on them
   * do not exist here. The lines buffered or being written are the
   * parent's to write; this copy of a batch in flight has no owner. */
  pthread_mutex_init(&s->lock, NULL);
  init_conds(s);
  free(s->in_flight);
  s->in_flight = NULL;
  s->writing = s->writer_running = false;
  s->length = 0;
  s->written = s->appended;
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

/* Write everything appended before the call, on the calling thread. */
static mr_status log_flush(log_state *s) {
  pthread_mutex_lock(&s->lock);
  write_until(s, s->appended);
  int error = s->write_errno;
  uint64_t lost = s->lost_lines;
  pthread_mutex_unlock(&s->lock);
  if (error != 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: writing '%s' failed: %s", s->description,
                     s->path, strerror(error));
  if (lost != 0)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: %llu lines were lost: no host memory to hold them",
                     s->description, (unsigned long long)lost);
  return MR_OK;
}

/* Close the file and free everything. No writer runs; s is out of the
 * registry (or was never in it). */
static void log_free(log_state *s) {
  mri_fork_unregister(&s->fork);
  if (s->fd >= 0 && close(s->fd) != 0 && s->write_errno == 0) s->write_errno = errno;
  free(s->buffer);
  free(s->spare);
  pthread_cond_destroy(&s->wake_writer);
  pthread_cond_destroy(&s->progress);
  pthread_mutex_destroy(&s->lock);
  free(s->path);
  mri_adaptor_free(s);
}

static void log_destroy(void *self) {
  log_state *s = self;
  pthread_mutex_lock(&s->lock);
  s->stop = true;
  pthread_cond_signal(&s->wake_writer);
  while (s->writer_running) pthread_cond_wait(&s->progress, &s->lock);
  write_until(s, s->appended);
  pthread_mutex_unlock(&s->lock);
  if (!may_write()) {
    /* Another thread is exiting the process, and its exit flush writes
     * what is left: the log must stay until then (the file may be opened
     * again once this returns, and truncated). Bounded, like every wait at
     * exit; the exit flush holds registry_lock while it works. */
    struct timespec deadline;
    monotonic_after(&deadline, LOG_EXIT_WAIT_NS);
    while (!atomic_load(&exit_flushed) && !is_past(&deadline)) {
      struct timespec pause = {0, 1000000L};
      nanosleep(&pause, NULL);
    }
  }
  pthread_mutex_lock(&registry_lock);
  if (s->prev != NULL)
    s->prev->next = s->next;
  else
    registry = s->next;
  if (s->next != NULL) s->next->prev = s->prev;
  pthread_mutex_unlock(&registry_lock);
  int close_error = s->fd >= 0 && close(s->fd) != 0 ? errno : 0;
  s->fd = -1;
  if (s->write_errno == 0) s->write_errno = close_error;
  report_incomplete(s, NULL);
  log_free(s);
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

/* True if a live log writes the file `mine` describes; registry_lock held. */
static bool file_in_use(const struct stat *mine) {
  for (log_state *other = registry; other != NULL; other = other->next) {
    struct stat theirs;
    if (other->fd >= 0 && fstat(other->fd, &theirs) == 0 && theirs.st_dev == mine->st_dev &&
        theirs.st_ino == mine->st_ino)
      return true;
  }
  return false;
}

/* Open the log's file for appending. A file that another live log of this
 * process writes (a context makes one log per device from one spec) is
 * shared: every batch is one append of whole lines, so the logs' lines
 * never tear each other. Any other path is an output as
 * core/file_write.h says: a regular file there is replaced by a new one
 * holding the header, renamed over it (never truncated in place, so its
 * other hard links keep their contents); a FIFO or pipe with a reader, or
 * a character device, is written straight to and stays; a link to a
 * file, a directory, a FIFO with no reader are refused. The open never
 * waits: a FIFO with no reader would hold creation (and so context
 * creation) forever. registry_lock held. */
static mr_status open_file(log_state *s, const char *path) {
  struct stat there;
  if (lstat(path, &there) == 0 && S_ISREG(there.st_mode) && file_in_use(&there)) {
    s->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
    if (s->fd < 0)
      return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: cannot open '%s' for writing: %s",
                       s->description, path, strerror(errno));
    return MR_OK;
  }
  mri_output out;
  char why[MRI_ERROR_CAPACITY];
  int error = mri_output_open(&out, path, MRI_OUTPUT_APPEND, NULL, 0, why, sizeof why);
  if (error != 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: cannot open '%s' for writing: %s",
                     s->description, path, why);
  s->fd = out.fd;
  /* Two logs on one FIFO or device share it too, under one header. */
  if (out.direct && fstat(out.fd, &there) == 0 && file_in_use(&there)) return MR_OK;
  error = write_all(out.fd, LOG_HEADER, sizeof LOG_HEADER - 1);
  if (error != 0) {
    snprintf(why, sizeof why, "%s", strerror(error));
    mri_output_abort(&out);
  } else {
    error = mri_output_commit(&out, MRI_OUTPUT_KEEP_OPEN, why, sizeof why);
  }
  if (error != 0) {
    s->fd = -1; /* closed by the abort */
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: writing '%s' failed: %s", s->description, path,
                     why);
  }
  return MR_OK;
}

/* Only described (mrctx resolve): what can be known without touching the
 * path, so that resolve refuses what creation would -- a directory for the
 * file, a directory that does not exist or that this process cannot write
 * into. Nothing is created, opened or changed. Whether the file itself
 * could then be replaced is left to creation (a link, a FIFO with no reader). */
static mr_status check_writable(const char *what, const char *path) {
  struct stat there;
  if (stat(path, &there) == 0 && S_ISDIR(there.st_mode))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: cannot open '%s' for writing: it is a directory",
                     what, path);
  char *dir = mri_strdup(strchr(path, '/') != NULL ? path : ".");
  if (dir == NULL) return MR_ERR_OUT_OF_MEMORY;
  char *slash = strrchr(dir, '/');
  if (slash != NULL) slash[slash == dir ? 1 : 0] = '\0'; /* "/x.csv": the directory "/" */
  mr_status st = MR_OK;
  if (stat(dir, &there) != 0)
    st = mri_error(MR_ERR_INVALID_ARGUMENT, "%s: cannot open '%s' for writing: directory '%s': %s",
                   what, path, dir, strerror(errno));
  else if (!S_ISDIR(there.st_mode))
    st = mri_error(MR_ERR_INVALID_ARGUMENT,
                   "%s: cannot open '%s' for writing: '%s' is not a directory", what, path, dir);
  else if (access(dir, W_OK | X_OK) != 0)
    st = mri_error(MR_ERR_INVALID_ARGUMENT,
                   "%s: cannot open '%s' for writing: directory '%s' is not writable: %s", what,
                   path, dir, strerror(errno));
  free(dir);
  return st;
}

mr_status mr_log_resource_create(mr_resource *upstream, const char *path, mr_resource **out) {
  mr_status st = mri_adaptor_check(&log_ops, upstream, out);
  if (st != MR_OK) return st;
  if (path == NULL || path[0] == '\0')
    return mri_error(MR_ERR_INVALID_ARGUMENT, "log(%s): no file given",
                     mr_resource_describe(upstream));
  /* The description is spec text: a path that is not a bare word is quoted,
   * so it parses back (one with a control character cannot be written). */
  char what[MRI_ERROR_CAPACITY], *file = NULL;
  snprintf(what, sizeof what, "log(%s)", mr_resource_describe(upstream));
  st = mri_spec_quote(what, path, &file);
  if (st != MR_OK) return st;
  log_state *s = mri_adaptor_alloc(sizeof *s, upstream, "log(%s, file=%s)",
                                   mr_resource_describe(upstream), file);
  free(file);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  /* Only described (mrctx resolve): the file is left as it is, but a path
   * creation would refuse is refused now. */
  if (mri_describe_only()) {
    st = check_writable(s->description, path);
    if (st != MR_OK) {
      mri_adaptor_free(s);
      return st;
    }
    return mri_adaptor_describe_only(s, MRI_ADAPTOR_PASSES, out);
  }
  s->fd = -1;
  pthread_mutex_init(&s->lock, NULL);
  init_conds(s);
  s->fork = (mri_fork_lockable){.rank = MRI_FORK_RANK_LEAF,
                                .lock = log_fork_lock,
                                .unlock = log_fork_unlock,
                                .child = log_fork_child,
                                .obj = s};
  mri_fork_register(&s->fork);
  s->path = mri_strdup(path);
  st = s->path != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY;
  /* The registry stays locked from the open to the insertion, so of two
   * logs created at once for one file, exactly one replaces it. */
  pthread_mutex_lock(&registry_lock);
  if (st == MR_OK) st = open_file(s, path);
  if (st != MR_OK) {
    pthread_mutex_unlock(&registry_lock);
    /* Creation failed: the file holds at most a header; no need to say so. */
    log_free(s);
    return st;
  }
  /* The log is whole now: should creating the resource still fail, it is
   * destroyed as an unused log is. */
  s->next = registry;
  if (registry != NULL) registry->prev = s;
  registry = s;
  pthread_mutex_unlock(&registry_lock);
  return mri_adaptor_create(&log_ops, s, MRI_ADAPTOR_PASSES, MR_OK, out);
}

bool mri_is_log(const mr_resource *mr) { return mr_resource_state(mr, &log_ops) != NULL; }

mr_status mr_log_resource_flush(mr_resource *mr) {
  log_state *s = mr_resource_state(mr, &log_ops);
  if (s == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_log_resource_flush: %s is not a log resource",
                     mr_resource_describe(mr));
  return log_flush(s);
}
