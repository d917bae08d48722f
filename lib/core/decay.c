/*
 * decay.c: idle memory goes back by itself (core/decay.h says the rules):
 * the idle times (MRCTX_IDLE_TIME, a resource's idle=), the tick and the
 * thread that runs it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "core/decay.h"
#include "core/fork.h"
#include "core/variables.h"

/* A tick no closer to the previous one than this, whatever the idle time. */
#define MIN_PERIOD_NS UINT64_C(1000000)

/* ---- durations ------------------------------------------------------------ */

static const struct {
  const char *name;
  uint64_t ns;
} units[] = {
    {"ns", 1},
    {"us", UINT64_C(1000)},
    {"ms", UINT64_C(1000000)},
    {"s", UINT64_C(1000000000)},
    {"m", UINT64_C(60000000000)},
    {"h", UINT64_C(3600000000000)},
};

mr_status mri_duration_parse(const char *text, const char *what, uint64_t *ns) {
  *ns = 0;
  if (text == NULL || text[0] == '\0')
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s is empty: give a duration such as 10s or 500ms (0 or off: never)", what);
  if (strcmp(text, "0") == 0 || strcmp(text, "off") == 0 || strcmp(text, "never") == 0)
    return MR_OK;
  const char *p = text;
  uint64_t value = 0;
  bool digits = false;
  for (; *p >= '0' && *p <= '9'; p++) {
    digits = true;
    if (value > (UINT64_MAX - 9) / 10) {
      value = UINT64_MAX;
      break;
    }
    value = value * 10 + (uint64_t)(*p - '0');
  }
  while (*p >= '0' && *p <= '9') p++;
  if (!digits)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s=%s is not a duration: give digits and a unit, such as 10s, 500ms, 2m or "
                     "1h (0 or off: never)",
                     what, text);
  for (size_t i = 0; i < MRI_ARRAY_SIZE(units); i++) {
    if (strcmp(p, units[i].name) != 0) continue;
    if (value != 0 && (value == UINT64_MAX || value > (UINT64_MAX - 1) / units[i].ns))
      return mri_error(MR_ERR_INVALID_ARGUMENT, "%s=%s is too long (at most about 584 years)", what,
                       text);
    *ns = value * units[i].ns;
    return MR_OK;
  }
  if (*p == '\0')
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s=%s has no unit: write %ss, %sms, ... (us, ms, s, m, h; 0 or off: never)",
                     what, text, text, text);
  return mri_error(MR_ERR_INVALID_ARGUMENT,
                   "%s=%s: unknown unit \"%s\" (us, ms, s, m, h; 0 or off: never)", what, text, p);
}

void mri_duration_format(uint64_t ns, char *buf, size_t cap) {
  if (ns == 0) {
    snprintf(buf, cap, "off");
    return;
  }
  size_t i = MRI_ARRAY_SIZE(units) - 1;
  while (i > 0 && ns % units[i].ns != 0) i--;
  snprintf(buf, cap, "%llu%s", (unsigned long long)(ns / units[i].ns), units[i].name);
}

/* ---- idle times ------------------------------------------------------------ */

/* UINT64_MAX: not read yet. */
static _Atomic uint64_t process_idle = UINT64_MAX;

static mr_status read_idle_variable(uint64_t *ns) {
  const char *text = mri_variable_get(MRI_VAR_IDLE_TIME);
  *ns = MRI_IDLE_TIME_DEFAULT_NS;
  if (text == NULL || text[0] == '\0') return MR_OK;
  uint64_t parsed;
  mr_status st = mri_duration_parse(text, "MRCTX_IDLE_TIME", &parsed);
  if (st == MR_OK) *ns = parsed == UINT64_MAX ? UINT64_MAX - 1 : parsed;
  return st;
}

mr_status mri_idle_time_reread(void) {
  uint64_t ns;
  mr_status st = read_idle_variable(&ns);
  atomic_store_explicit(&process_idle, ns, memory_order_relaxed);
  return st;
}

static void read_once(void) {
  uint64_t ns;
  if (read_idle_variable(&ns) != MR_OK) {
    char def[32];
    mri_duration_format(MRI_IDLE_TIME_DEFAULT_NS, def, sizeof def);
    fprintf(stderr, "mrctx: %s; idle memory goes back after %s, the default\n", mr_last_error(),
            def);
  }
  atomic_store_explicit(&process_idle, ns, memory_order_relaxed);
}

uint64_t mri_idle_time_process(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  uint64_t ns = atomic_load_explicit(&process_idle, memory_order_relaxed);
  if (MRI_LIKELY(ns != UINT64_MAX)) return ns;
  pthread_once(&once, read_once);
  return atomic_load_explicit(&process_idle, memory_order_relaxed);
}

uint64_t mri_reclaimer_idle_time(const mri_reclaimer *r) {
  uint64_t own = atomic_load_explicit(&r->idle_time, memory_order_relaxed);
  if (own == MRI_IDLE_NEVER) return 0;
  return own != MRI_IDLE_PROCESS ? own : mri_idle_time_process();
}

static uint64_t period_of(uint64_t idle) {
  uint64_t period = idle / MRI_DECAY_TICKS;
  return period < MIN_PERIOD_NS ? MIN_PERIOD_NS : period;
}

/* ---- the tick --------------------------------------------------------------- */

#define DEVICE_SLOTS 65 /* host (-1) and devices 0..63 */

typedef struct tick_state {
  uint64_t now;
  uint64_t period;            /* the shortest of the decaying reclaimers'; UINT64_MAX: none */
  bool pools;                 /* this walk's: driver pools, after the adaptors */
  size_t given[DEVICE_SLOTS]; /* what adaptors gave their pools this tick */
  uint64_t released;
} tick_state;

static _Atomic uint64_t total_released;

static size_t *given_slot(tick_state *t, int device) {
  return device >= -1 && device + 1 < DEVICE_SLOTS ? &t->given[device + 1] : NULL;
}

static void tick_one(void *user, mri_reclaimer *r) {
  tick_state *t = user;
  if (r->pool != t->pools) return;
  uint64_t idle = mri_reclaimer_idle_time(r);
  if (idle == 0 || atomic_load_explicit(&r->keep, memory_order_relaxed)) {
    r->decay_start = 0; /* a window starts again when it decays again */
    return;
  }
  uint64_t period = period_of(idle);
  if (period < t->period) t->period = period;
  /* A clock behind a window's start (a test's) starts it again. */
  if (t->now < r->decay_start) r->decay_start = 0;
  bool due = r->decay_start != 0 && t->now - r->decay_start >= idle;
  size_t released = 0;
  mr_status st = MR_OK;
  uint64_t start = mri_monotonic_ns();
  if (r->release_window != NULL) {
    /* It tracks its low-water mark itself: once per window. */
    if (due || r->decay_start == 0) {
      st = r->release_window(r->obj, due, &released);
      r->decay_start = t->now;
    }
  } else {
    size_t sample = r->idle != NULL ? r->idle(r->obj) : 0;
    size_t goal = 0;
    if (r->decay_start == 0) {
      r->decay_start = t->now;
      r->decay_low = sample;
    } else if (sample < r->decay_low) {
      r->decay_low = sample;
    }
    if (due) goal = r->decay_low;
    /* A pool also gets at once what its device's adaptors gave it. */
    size_t *given = t->pools ? given_slot(t, r->device) : NULL;
    if (given != NULL) goal += *given;
    if (goal > 0) {
      mri_release_idle_fn release = r->release_nowait != NULL ? r->release_nowait : r->release;
      st = release(r->obj, goal, &released);
    }
    if (due) {
      r->decay_start = t->now;
      r->decay_low = sample > released ? sample - released : 0;
    }
  }
  (void)st; /* a failed release leaves its memory where it was: the next window tries again */
  if (released == 0) return;
  atomic_fetch_add_explicit(&r->reclaims, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&r->reclaimed_bytes, released, memory_order_relaxed);
  atomic_fetch_add_explicit(&r->reclaim_ns, mri_monotonic_ns() - start, memory_order_relaxed);
  t->released += released;
  size_t *given = !t->pools ? given_slot(t, r->device) : NULL;
  if (given != NULL) *given += released;
}

static _Atomic(mri_capture_relax_fn) capture_relax;
static _Atomic(mri_capture_restore_fn) capture_restore;

void mri_decay_set_capture_hooks(mri_capture_relax_fn relax, mri_capture_restore_fn restore) {
  atomic_store_explicit(&capture_restore, restore, memory_order_relaxed);
  atomic_store_explicit(&capture_relax, relax, memory_order_release);
}

uint64_t mri_decay_tick(uint64_t now_ns) {
  /* Relaxed capture mode for the tick (decay.h, "Graph capture"). */
  mri_capture_relax_fn relax = atomic_load_explicit(&capture_relax, memory_order_acquire);
  int saved = relax != NULL ? relax() : -1;
  tick_state t;
  memset(&t, 0, sizeof t);
  t.now = now_ns != 0 ? now_ns : 1; /* 0 marks a window not started */
  t.period = UINT64_MAX;
  mri_reclaimer_walk_locked(tick_one, &t);
  t.pools = true;
  mri_reclaimer_walk_locked(tick_one, &t);
  if (t.released > 0) atomic_fetch_add_explicit(&total_released, t.released, memory_order_relaxed);
  if (saved >= 0) atomic_load_explicit(&capture_restore, memory_order_relaxed)(saved);
  return t.period;
}

uint64_t mri_decay_released(void) {
  return atomic_load_explicit(&total_released, memory_order_relaxed);
}

/* ---- the thread ---------------------------------------------------------------- */

/* `control` orders starts and stops (a stop joins); `lock` guards the
 * thread's state and is what it sleeps on. Neither is held across a tick,
 * and neither is taken with the registry's lock held (register calls in
 * after giving it up), so a tick's wait for the registry cannot close a
 * cycle. Not taken at fork: the child makes both anew (it has no thread). */
static pthread_mutex_t control = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_cond_t ticked;
static bool running, stopping, wake_pending, manual, at_exit_set, exiting;
static uint64_t sleep_period = UINT64_MAX; /* the thread's current one */
static pthread_t thread;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static mri_fork_lockable fork_entry;

static void init_conds(void) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&wake, &attr);
  pthread_condattr_destroy(&attr);
  pthread_cond_init(&ticked, NULL);
}

static void fork_nothing(void *obj) { (void)obj; }

/* The child: no thread; the next registration starts one. */
static void fork_child(void *obj) {
  (void)obj;
  pthread_mutex_init(&control, NULL);
  pthread_mutex_init(&lock, NULL);
  init_conds();
  running = false;
  stopping = false;
  wake_pending = false;
  sleep_period = UINT64_MAX;
}

static void init(void) {
  init_conds();
  fork_entry = (mri_fork_lockable){.rank = MRI_FORK_RANK_LEAF,
                                   .lock = fork_nothing,
                                   .unlock = fork_nothing,
                                   .child = fork_child};
  mri_fork_register(&fork_entry);
}

static void *decay_main(void *arg) {
  (void)arg;
  uint64_t next = 0; /* the first tick at once: it starts the windows */
  pthread_mutex_lock(&lock);
  while (!stopping) {
    uint64_t now = mri_monotonic_ns();
    if (!wake_pending && (next == UINT64_MAX || now < next)) {
      if (next == UINT64_MAX) {
        pthread_cond_wait(&wake, &lock);
      } else {
        struct timespec at = {.tv_sec = (time_t)(next / 1000000000u),
                              .tv_nsec = (long)(next % 1000000000u)};
        pthread_cond_timedwait(&wake, &lock, &at);
      }
      continue;
    }
    wake_pending = false;
    pthread_mutex_unlock(&lock);
    uint64_t period = mri_decay_tick(mri_monotonic_ns());
    pthread_mutex_lock(&lock);
    sleep_period = period;
    next = period == UINT64_MAX ? UINT64_MAX : mri_monotonic_ns() + period;
    pthread_cond_broadcast(&ticked);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* For good: a resource made by a later exit handler starts no thread. */
static void stop_at_exit(void) {
  pthread_mutex_lock(&lock);
  exiting = true;
  pthread_mutex_unlock(&lock);
  mri_decay_stop();
}

/* Start the thread, or wake it if `period` is shorter than its sleep. */
static void ensure(uint64_t period) {
  pthread_once(&init_once, init);
  pthread_mutex_lock(&control);
  pthread_mutex_lock(&lock);
  if (manual || exiting) {
    /* tests tick by hand; at exit nothing decays any more */
  } else if (!running) {
    /* Exit stops the thread before the driver's own exit handlers (the
     * driver was loaded, and registered them, before any reclaimer). */
    if (!at_exit_set) at_exit_set = atexit(stop_at_exit) == 0;
    sleep_period = UINT64_MAX;
    wake_pending = false;
    stopping = false;
    running = at_exit_set && pthread_create(&thread, NULL, decay_main, NULL) == 0;
    if (!running)
      fprintf(stderr,
              "mrctx: could not start the thread that gives idle memory back (%s); "
              "idle memory stays until mr_release_idle or an allocation runs out\n",
              at_exit_set ? strerror(errno) : "atexit refused");
  } else if (period < sleep_period) {
    wake_pending = true;
    pthread_cond_signal(&wake);
  }
  pthread_mutex_unlock(&lock);
  pthread_mutex_unlock(&control);
}

void mri_decay_registered(const mri_reclaimer *r) {
  uint64_t idle = mri_reclaimer_idle_time(r);
  if (idle == 0 || atomic_load_explicit(&r->keep, memory_order_relaxed)) return;
  ensure(period_of(idle));
}

void mri_decay_stop(void) {
  pthread_once(&init_once, init);
  pthread_mutex_lock(&control);
  pthread_mutex_lock(&lock);
  bool join = running && !pthread_equal(thread, pthread_self());
  if (join) {
    stopping = true;
    pthread_cond_signal(&wake);
  }
  pthread_mutex_unlock(&lock);
  if (join) pthread_join(thread, NULL);
  pthread_mutex_lock(&lock);
  if (join) {
    running = false;
    stopping = false;
  }
  pthread_cond_broadcast(&ticked);
  pthread_mutex_unlock(&lock);
  pthread_mutex_unlock(&control);
}

void mri_decay_manual(bool on) {
  pthread_once(&init_once, init);
  pthread_mutex_lock(&lock);
  manual = on;
  pthread_mutex_unlock(&lock);
  if (on) mri_decay_stop();
}

bool mri_decay_running(void) {
  pthread_once(&init_once, init);
  pthread_mutex_lock(&lock);
  bool on = running;
  pthread_mutex_unlock(&lock);
  return on;
}

bool mri_decay_wait_released(uint64_t bytes) {
  pthread_once(&init_once, init);
  pthread_mutex_lock(&lock);
  while (mri_decay_released() < bytes && running) pthread_cond_wait(&ticked, &lock);
  bool reached = mri_decay_released() >= bytes;
  pthread_mutex_unlock(&lock);
  return reached;
}

/* ---- a resource's idle time ------------------------------------------------------ */

/* `description` with its top-level ", idle=..." replaced by `mark` (NULL:
 * removed); a new mark goes before a closing ", keep=yes", which
 * mr_resource_keep_idle expects last. NULL if host memory ran out. */
static char *idle_description(const char *description, const char *mark) {
  size_t length = strlen(description);
  size_t cut = length, cut_end = length;
  int depth = 0;
  for (size_t i = 0; i < length; i++) {
    char c = description[i];
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (depth == 1 && c == ',' && strncmp(description + i, ", idle=", 7) == 0) {
      cut = i;
      size_t j = i + 1;
      int inner = 0;
      for (; j < length; j++) {
        if (description[j] == '(') inner++;
        if (description[j] == ')' && inner-- == 0) break;
        if (description[j] == ',' && inner == 0) break;
      }
      cut_end = j;
      break;
    }
  }
  char *without = cut < length
                      ? mri_asprintf("%.*s%s", (int)cut, description, description + cut_end)
                      : mri_strdup(description);
  if (without == NULL || mark == NULL) return without;
  static const char keep[] = ", keep=yes)";
  size_t n = strlen(without), k = sizeof keep - 1;
  size_t at = n >= k && strcmp(without + n - k, keep) == 0 ? n - k : n - 1;
  char *marked = mri_asprintf("%.*s, idle=%s%s", (int)at, without, mark, without + at);
  free(without);
  return marked;
}

typedef struct set_idle {
  const void *self;
  uint64_t value;
  size_t found;
  uint64_t shortest;
} set_idle;

static void set_one(void *user, mri_reclaimer *r) {
  set_idle *s = user;
  if ((r->group != NULL ? r->group : r->obj) != s->self) return;
  atomic_store_explicit(&r->idle_time, s->value, memory_order_relaxed);
  r->decay_start = 0;
  s->found++;
  uint64_t idle = mri_reclaimer_idle_time(r);
  if (idle != 0 && period_of(idle) < s->shortest) s->shortest = period_of(idle);
}

mr_status mr_resource_set_idle_time(mr_resource *mr, uint64_t idle_ns) {
  if (mr == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_set_idle_time: resource is NULL");
  size_t length = strlen(mr->description);
  if (length == 0 || mr->description[length - 1] != ')')
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_resource_set_idle_time: %s keeps no idle memory of its own (idle= "
                     "applies to cache, arena, fixed and bin)",
                     mr->description);
  set_idle s = {.self = mr->self,
                .value = idle_ns == MR_IDLE_TIME_PROCESS ? MRI_IDLE_PROCESS
                         : idle_ns == 0                  ? MRI_IDLE_NEVER
                                                         : idle_ns,
                .shortest = UINT64_MAX};
  mri_reclaimer_walk_locked(set_one, &s);
  if (s.found == 0 && !mri_describe_only())
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_resource_set_idle_time: %s keeps no idle memory of its own (idle= "
                     "applies to cache, arena, fixed and bin)",
                     mr->description);
  char mark[32];
  if (idle_ns != MR_IDLE_TIME_PROCESS) mri_duration_format(idle_ns, mark, sizeof mark);
  char *description =
      idle_description(mr->description, idle_ns == MR_IDLE_TIME_PROCESS ? NULL : mark);
  if (description == NULL) return MR_ERR_OUT_OF_MEMORY;
  mri_reclaimer_rename(mr->self, mr->description, description);
  free(mr->description);
  mr->description = description;
  if (s.shortest != UINT64_MAX) ensure(s.shortest);
  return MR_OK;
}
