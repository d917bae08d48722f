/*
 * reclaim_report.c: what the process-wide reclaim did, for people
 * (core/reclaim.h, "what reclaims did"): the labels that name a keeping
 * resource by the library:tag whose chain holds it, the figures snapshots
 * and print_stats show, MRCTX_VERBOSE's line for each reclaim, and what an
 * allocation that still fails says of the idle memory elsewhere.
 *
 * Nothing here is on an allocation path: labels are set when a context
 * builds its chains, the rest runs after a reclaim or when someone asks.
 * The walks take the registry's lock (reclaim.c), as a reclaim does.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/reclaim.h"
#include "core/variables.h"

/* ---- labels and figures ----------------------------------------------------------- */

/* Whether `r` is one of `mr`'s reclaimers: its own, or a bin's class's,
 * which names the bin as its group. */
static bool belongs(const mri_reclaimer *r, const mr_resource *mr) {
  return (r->group != NULL ? r->group : r->obj) == mr->self;
}

typedef struct labelling {
  const mr_resource *mr;
  const char *label;
} labelling;

static void label_one(void *user, mri_reclaimer *r) {
  labelling *l = user;
  if (belongs(r, l->mr) && r->label[0] == '\0') snprintf(r->label, sizeof r->label, "%s", l->label);
}

void mri_reclaimer_label(const mr_resource *mr, const char *label) {
  if (mr == NULL || label == NULL) return;
  labelling l = {mr, label};
  mri_reclaimer_walk_locked(label_one, &l);
}

static mri_reclaim_figures figures(const mri_reclaimer *r) {
  return (mri_reclaim_figures){
      .what = r->what != NULL ? r->what : "",
      .label = r->label,
      .device = r->device,
      .pool = r->pool,
      .keep = atomic_load_explicit(&r->keep, memory_order_relaxed),
      .idle_bytes = r->idle != NULL ? r->idle(r->obj) : 0,
      .reclaims = atomic_load_explicit(&r->reclaims, memory_order_relaxed),
      .reclaimed_bytes = atomic_load_explicit(&r->reclaimed_bytes, memory_order_relaxed),
      .reclaim_ns = atomic_load_explicit(&r->reclaim_ns, memory_order_relaxed)};
}

typedef struct summing {
  const mr_resource *mr;
  mri_reclaim_figures sum;
  bool found;
} summing;

static void sum_one(void *user, mri_reclaimer *r) {
  summing *s = user;
  if (!belongs(r, s->mr)) return;
  mri_reclaim_figures f = figures(r);
  if (!s->found) {
    s->sum = f;
    s->sum.what = s->mr->description;
    s->sum.label = "";
    s->found = true;
    return;
  }
  s->sum.keep = s->sum.keep || f.keep;
  s->sum.idle_bytes += f.idle_bytes;
  s->sum.reclaims += f.reclaims;
  s->sum.reclaimed_bytes += f.reclaimed_bytes;
  s->sum.reclaim_ns += f.reclaim_ns;
}

bool mri_reclaim_figures_of(const mr_resource *mr, mri_reclaim_figures *out) {
  summing s = {.mr = mr};
  if (mr != NULL) mri_reclaimer_walk_locked(sum_one, &s);
  *out = s.sum;
  return s.found;
}

typedef struct visiting {
  void (*fn)(void *user, const mri_reclaim_figures *f);
  void *user;
} visiting;

static void visit_one(void *user, mri_reclaimer *r) {
  visiting *v = user;
  mri_reclaim_figures f = figures(r);
  v->fn(v->user, &f);
}

void mri_reclaimer_foreach(void (*fn)(void *user, const mri_reclaim_figures *f), void *user) {
  visiting v = {fn, user};
  mri_reclaimer_walk_locked(visit_one, &v);
}

/* ---- MRCTX_VERBOSE ---------------------------------------------------------------- */

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static bool env_read, verbose;

/* Across fork() (core/fork.h): nothing is taken under it. */
static mri_fork_lockable env_fork;
__attribute__((constructor)) static void env_fork_register(void) {
  mri_fork_register_mutex(&env_fork, &env_lock, MRI_FORK_RANK_LEAF);
}

static bool is_verbose(void) {
  pthread_mutex_lock(&env_lock);
  if (!env_read) {
    verbose = mri_variable_flag(MRI_VAR_VERBOSE);
    env_read = true;
  }
  bool on = verbose;
  pthread_mutex_unlock(&env_lock);
  return on;
}

void mri_reclaim_forget_env(void) {
  pthread_mutex_lock(&env_lock);
  env_read = false;
  pthread_mutex_unlock(&env_lock);
}

/* "device 0", "every device", "host memory". */
static void device_words(int device, char *buf, size_t cap) {
  if (device == MRI_RECLAIM_ALL)
    snprintf(buf, cap, "every device");
  else if (device == MRI_RECLAIM_HOST)
    snprintf(buf, cap, "host memory");
  else
    snprintf(buf, cap, "device %d", device);
}

void mri_reclaim_log(mri_reclaim_trigger trigger, size_t bytes, const mri_reclaim_result *result) {
  if (!is_verbose()) return;
  char where[32], asked[32], released[32], kept[32];
  device_words(result->device, where, sizeof where);
  mri_format_bytes_human(bytes, asked, sizeof asked);
  mri_format_bytes_human(result->released, released, sizeof released);
  mri_format_bytes_human(result->kept, kept, sizeof kept);
  char why[96];
  switch (trigger) {
  case MRI_RECLAIM_ON_OOM:
    snprintf(why, sizeof why, "out of memory on %s for %s", where, asked);
    break;
  case MRI_RECLAIM_ON_REQUEST:
    if (bytes == 0)
      snprintf(why, sizeof why, "release_idle on %s, everything", where);
    else
      snprintf(why, sizeof why, "release_idle on %s, %s asked", where, asked);
    break;
  default:
    snprintf(why, sizeof why, "reason %d on %s", (int)trigger, where);
    break;
  }
  /* One fprintf: the line of a reclaim does not mix with other threads'. */
  fprintf(stderr,
          "mrctx: reclaim (%s): took back %s from %zu resource%s in %.3f ms; %s stays idle%s%s\n",
          why, released, result->resources, result->resources == 1 ? "" : "s",
          (double)result->ns / 1e6, kept, result->status != MR_OK ? "; a release failed: " : "",
          result->status != MR_OK ? mr_status_name(result->status) : "");
}

/* ---- an allocation that still fails ----------------------------------------------- */

/* The calling thread's record of its last failed allocation's reclaims,
 * under a thread key rather than in TLS: the library keeps its static TLS
 * small enough to be dlopen'ed (unit.core.tls_dlopen), and only a thread
 * that ran out needs one. The key's destructor frees it at thread exit. */
typedef struct failure_record {
  bool noted;
  mri_reclaim_result result;
} failure_record;

static pthread_once_t failure_once = PTHREAD_ONCE_INIT;
static pthread_key_t failure_key;
static bool failure_key_made;

static void failure_key_make(void) {
  failure_key_made = pthread_key_create(&failure_key, free) == 0;
}

/* This thread's record; with `make`, made if missing (NULL if host memory
 * ran out: the failure's report then names no earlier attempt). */
static failure_record *failure_of_thread(bool make) {
  pthread_once(&failure_once, failure_key_make);
  if (!failure_key_made) return NULL;
  failure_record *f = pthread_getspecific(failure_key);
  if (f == NULL && make) {
    f = calloc(1, sizeof *f);
    if (f != NULL && pthread_setspecific(failure_key, f) != 0) {
      free(f);
      f = NULL;
    }
  }
  return f;
}

void mri_reclaim_note_failure(const mri_reclaim_result *result) {
  failure_record *f = failure_of_thread(true);
  if (f == NULL) return;
  mri_reclaim_result *failure = &f->result;
  /* The next reclaim after the one noted (or the same one, shared): the
   * same allocation's next attempt, as a retry adaptor makes them. */
  bool next = f->noted && failure->device == result->device &&
              (result->first_generation == failure->generation + 1 ||
               result->generation == failure->generation);
  if (!next) {
    *failure = *result;
    f->noted = true;
    return;
  }
  failure->released += result->released;
  failure->resources += result->resources;
  failure->ns += result->ns;
  failure->kept = result->kept;
  failure->generation = result->generation;
  failure->shared = failure->shared && result->shared;
  if (failure->status == MR_OK) failure->status = result->status;
}

bool mri_reclaim_take_failure(mri_reclaim_result *out) {
  failure_record *f = failure_of_thread(false);
  if (f == NULL || !f->noted) return false;
  *out = f->result;
  f->noted = false;
  return true;
}

/* The idle memory of one library:tag (or of an unlabelled resource, by
 * its description) before the reclaim. */
typedef struct holder {
  char name[MRI_RECLAIM_LABEL_CAP];
  uint64_t took, stays;
  bool keep;
} holder;

#define MAX_HOLDERS 32

typedef struct gathering {
  const mri_reclaim_result *result;
  const char *exclude;
  holder holders[MAX_HOLDERS];
  size_t count;
  size_t more;         /* holders past MAX_HOLDERS */
  uint64_t more_bytes; /* and what they held */
} gathering;

static void gather_one(void *user, mri_reclaimer *r) {
  gathering *g = user;
  int device = g->result->device;
  if (device != MRI_RECLAIM_ALL && r->device != device) return;
  const char *name = r->label[0] != '\0' ? r->label : r->what != NULL ? r->what : "?";
  if (g->exclude != NULL && strcmp(name, g->exclude) == 0) return;
  uint64_t took = r->last_generation >= g->result->first_generation ? r->last_released : 0;
  uint64_t stays = r->idle != NULL ? r->idle(r->obj) : 0;
  if (took + stays == 0) return;
  holder *h = NULL;
  for (size_t i = 0; i < g->count && h == NULL; i++)
    if (strcmp(g->holders[i].name, name) == 0) h = &g->holders[i];
  if (h == NULL && g->count == MAX_HOLDERS) {
    g->more++;
    g->more_bytes += took + stays;
    return;
  }
  if (h == NULL) {
    h = &g->holders[g->count++];
    *h = (holder){0};
    snprintf(h->name, sizeof h->name, "%s", name);
  }
  h->took += took;
  h->stays += stays;
  h->keep = h->keep || (stays > 0 && atomic_load_explicit(&r->keep, memory_order_relaxed));
}

static int by_bytes(const void *a, const void *b) {
  const holder *x = a, *y = b;
  uint64_t bx = x->took + x->stays, by = y->took + y->stays;
  if (bx != by) return bx > by ? -1 : 1;
  return strcmp(x->name, y->name);
}

bool mri_reclaim_idle_elsewhere(const mri_reclaim_result *result, const char *exclude, size_t most,
                                char *buf, size_t cap) {
  buf[0] = '\0';
  gathering *g = mri_calloc(1, sizeof *g); /* ~5 KiB: not on the failing thread's stack */
  if (g == NULL) return false;
  g->result = result;
  g->exclude = exclude;
  mri_reclaimer_walk_locked(gather_one, g);
  qsort(g->holders, g->count, sizeof *g->holders, by_bytes);
  size_t n = 0;
  for (size_t i = 0; i < g->count && n < cap; i++) {
    if (i == most) {
      uint64_t rest = g->more_bytes;
      for (size_t j = i; j < g->count; j++) rest += g->holders[j].took + g->holders[j].stays;
      char bytes[32];
      mri_format_bytes_human(rest, bytes, sizeof bytes);
      snprintf(buf + n, cap - n, ", %zu more with %s", g->count - i + g->more, bytes);
      break;
    }
    const holder *h = &g->holders[i];
    char held[32], took[32], stays[32];
    mri_format_bytes_human(h->took + h->stays, held, sizeof held);
    mri_format_bytes_human(h->took, took, sizeof took);
    mri_format_bytes_human(h->stays, stays, sizeof stays);
    int w;
    if (h->stays == 0)
      w = snprintf(buf + n, cap - n, "%s%s %s (taken back)", i > 0 ? ", " : "", h->name, held);
    else if (h->took == 0)
      w = snprintf(buf + n, cap - n, "%s%s %s (stays idle%s)", i > 0 ? ", " : "", h->name, held,
                   h->keep ? ": keep=yes" : "");
    else
      w = snprintf(buf + n, cap - n, "%s%s %s (%s taken back, %s stays idle%s)", i > 0 ? ", " : "",
                   h->name, held, took, stays, h->keep ? ": keep=yes" : "");
    if (w < 0) break;
    n += (size_t)w;
  }
  bool any = g->count > 0 || g->more > 0;
  free(g);
  return any;
}
