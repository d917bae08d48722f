/*
 * oom.c: what happens when an allocation through a context runs out of
 * memory (snapshot.h): the snapshot file MRCTX_OOM_SNAPSHOT names, and the
 * application's observer.
 *
 * It runs on the allocating thread after the tag's chain gave up (its
 * retry included), holding no mrctx lock. Dumps are written one at a time
 * (dump_lock); a thread that runs out of memory again while it reports
 * (in its observer, say) reports nothing more (tls_reporting). The snapshot
 * reads counters and driver pool attributes and allocates host memory
 * only. Whatever happens here, the allocation's own status and message
 * stand: the message is saved first and restored last.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context/context_internal.h"
#include "context/snapshot_internal.h"
#include "core/reclaim.h"
#include "core/variables.h"

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static bool env_read;
static char *path_template; /* MRCTX_OOM_SNAPSHOT, NULL if unset or empty */

static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t observer_lock = PTHREAD_MUTEX_INITIALIZER;
static mr_oom_observer observer;
static void *observer_user;

/* Across fork() (core/fork.h): dump_lock is held while a snapshot is
 * taken, so it comes first; nothing is taken under the other two. */
static mri_fork_lockable dump_fork, env_fork, observer_fork;
__attribute__((constructor)) static void oom_fork_register(void) {
  mri_fork_register_mutex(&dump_fork, &dump_lock, MRI_FORK_RANK_OOM);
  mri_fork_register_mutex(&env_fork, &env_lock, MRI_FORK_RANK_LEAF);
  mri_fork_register_mutex(&observer_fork, &observer_lock, MRI_FORK_RANK_LEAF);
}

static _Thread_local bool tls_reporting;

/* The path template, read from the environment the first time; false if
 * there is none (or it does not fit `cap`). */
static bool get_template(char *out, size_t cap) {
  pthread_mutex_lock(&env_lock);
  if (!env_read) {
    const char *value = mri_variable_get(MRI_VAR_OOM_SNAPSHOT);
    if (value != NULL && value[0] != '\0') {
      path_template = mri_host_strdup(value);
      if (path_template == NULL)
        fprintf(stderr, "mrctx: out of host memory reading MRCTX_OOM_SNAPSHOT: no "
                        "out-of-memory snapshot written\n");
    }
    env_read = true;
  }
  bool found = path_template != NULL && strlen(path_template) < cap;
  if (found) memcpy(out, path_template, strlen(path_template) + 1);
  pthread_mutex_unlock(&env_lock);
  return found;
}

void mri_oom_forget_env(void) {
  pthread_mutex_lock(&env_lock);
  free(path_template);
  path_template = NULL;
  env_read = false;
  pthread_mutex_unlock(&env_lock);
}

void mr_set_oom_observer(mr_oom_observer fn, void *user) {
  pthread_mutex_lock(&observer_lock);
  observer = fn;
  observer_user = user;
  pthread_mutex_unlock(&observer_lock);
}

/* The snapshot as JSON in memory (malloc'd); NULL with the reason in
 * `why` on failure. */
static char *render(const mri_snap_oom *oom, size_t *length, char *why, size_t cap) {
  mr_snapshot *snap = NULL;
  mr_status st = mri_snapshot_take(NULL, oom, true, &snap);
  if (st != MR_OK) {
    snprintf(why, cap, "%s", mr_last_error());
    return NULL;
  }
  char *text = NULL;
  FILE *memory = open_memstream(&text, length);
  if (memory == NULL) {
    mr_snapshot_destroy(snap);
    snprintf(why, cap, "out of host memory");
    return NULL;
  }
  st = mr_snapshot_write_json(snap, memory);
  snprintf(why, cap, "%s", st != MR_OK ? mr_last_error() : "out of host memory");
  bool closed = fclose(memory) == 0;
  mr_snapshot_destroy(snap);
  if (st != MR_OK || !closed) {
    free(text);
    return NULL;
  }
  return text;
}

/* `text` written to `path` whole (core/file_write.h: a regular file is
 * replaced through a new one renamed over it, a FIFO with a reader or a
 * character device is written straight to, anything else is refused; a
 * failed write is reported, it does not end the process). dump_lock held.
 * On failure, says why on stderr. */
static bool write_output(const char *path, const char *text, size_t length, const char *what) {
  char why[MRI_ERROR_CAPACITY];
  if (mri_write_whole_file(path, text, length, why, sizeof why) == 0) return true;
  fprintf(stderr, "mrctx: cannot write the %s to '%s': %s\n", what, path, why);
  return false;
}

/* Write the snapshot to `path` (dump_lock held); on failure, say why on
 * stderr. */
static bool write_dump(const char *path, const mri_snap_oom *oom) {
  static const char what[] = "out-of-memory snapshot";
  char why[MRI_ERROR_CAPACITY];
  size_t length = 0;
  char *text = render(oom, &length, why, sizeof why);
  if (text == NULL) {
    fprintf(stderr, "mrctx: %s not written to '%s': %s\n", what, path, why);
    return false;
  }
  bool written = write_output(path, text, length, what);
  free(text);
  return written;
}

bool mri_write_file_replacing(const char *path, const char *text, size_t length, const char *what) {
  pthread_mutex_lock(&dump_lock);
  bool written = write_output(path, text, length, what);
  pthread_mutex_unlock(&dump_lock);
  return written;
}

void mri_oom_report(const char *library, const char *tag, int device, size_t bytes,
                    mr_stream stream) {
  if (tls_reporting) return;
  tls_reporting = true;
  char message[MRI_ERROR_CAPACITY];
  snprintf(message, sizeof message, "%s", mr_last_error());
  /* The process-wide reclaim ran and did not help: say where memory was
   * idle besides this tag (what the reclaim took back from the others,
   * and what stays: keep=yes, or work still queued on their streams). */
  mri_reclaim_result reclaim;
  bool reclaimed = mri_reclaim_take_failure(&reclaim);
  if (reclaimed) {
    char self[MRI_RECLAIM_LABEL_CAP], elsewhere[768], where[32];
    snprintf(self, sizeof self, "%s:%s", library, tag);
    if (reclaim.device == MRI_RECLAIM_HOST)
      snprintf(where, sizeof where, "in host memory");
    else
      snprintf(where, sizeof where, "on device %d", reclaim.device);
    size_t used = strlen(message);
    if (mri_reclaim_idle_elsewhere(&reclaim, self, 4, elsewhere, sizeof elsewhere))
      snprintf(message + used, sizeof message - used,
               "; idle %s in other libraries' tags before the reclaim, most first: %s", where,
               elsewhere);
    else
      snprintf(message + used, sizeof message - used,
               "; no other library's tag held idle memory %s", where);
  }

  char template[PATH_MAX], path[PATH_MAX];
  const char *written = NULL;
  if (get_template(template, sizeof template)) {
    if (!mri_expand_path(template, path, sizeof path)) {
      fprintf(stderr,
              "mrctx: MRCTX_OOM_SNAPSHOT names a path longer than %d bytes: no "
              "out-of-memory snapshot written\n",
              PATH_MAX - 1);
    } else {
      mri_snap_oom oom = {.library = (char *)library,
                          .tag = (char *)tag,
                          .device = device,
                          .bytes = bytes,
                          .stream = (uint64_t)(uintptr_t)stream,
                          .message = message,
                          .has_reclaim = reclaimed,
                          .reclaim_shared = reclaimed && reclaim.shared,
                          .reclaim_released = reclaimed ? reclaim.released : 0,
                          .reclaim_resources = reclaimed ? reclaim.resources : 0,
                          .reclaim_kept = reclaimed ? reclaim.kept : 0,
                          .reclaim_ns = reclaimed ? reclaim.ns : 0};
      pthread_mutex_lock(&dump_lock);
      if (write_dump(path, &oom)) written = path;
      pthread_mutex_unlock(&dump_lock);
      /* Say where, so that whoever reads the error finds the dump. */
      if (written != NULL)
        fprintf(stderr,
                "mrctx: out of memory in %s:%s on device %d: snapshot written to '%s' "
                "(mrctx snapshot %s shows it)\n",
                library, tag, device, path, path);
    }
  }

  pthread_mutex_lock(&observer_lock);
  mr_oom_observer fn = observer;
  void *user = observer_user;
  pthread_mutex_unlock(&observer_lock);
  if (fn != NULL) {
    mr_oom_event event = {.size = sizeof event,
                          .library = library,
                          .tag = tag,
                          .device = device,
                          .bytes = bytes,
                          .stream = stream,
                          .message = message,
                          .snapshot_path = written};
    fn(user, &event);
  }

  mri_error(MR_ERR_OUT_OF_MEMORY, "%s", message);
  tls_reporting = false;
}
