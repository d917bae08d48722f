/*
 * plot_snapshots.c: `mrctx plot` from a series of snapshot files (JSON,
 * as MRCTX_OOM_SNAPSHOT, mr_snapshot_write_json or Python's
 * mrctx.write_snapshot wrote them).
 *
 * Each snapshot gives every tag's bytes in use at one moment; the series,
 * ordered by the snapshots' times, becomes one layer per "library:tag"
 * (its devices summed), each a run of synthetic events (the change since
 * the previous snapshot), so the chart is drawn exactly as from logs. A
 * dump at out-of-memory marks a failed allocation on its tag's layer.
 * Between two snapshots nothing is known: the chart holds each value until
 * the next one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mrctx/mrctx.h>

#include "commands.h"
#include "plot.h"

typedef struct series_point {
  uint64_t time_unix_ns;
  uint64_t *bytes; /* per layer, the devices summed */
  bool out_of_memory;
  size_t oom_layer; /* with out_of_memory */
  uint64_t oom_bytes;
} series_point;

typedef struct series {
  char **names;             /* "library:tag", whole, in order of first appearance */
  char **libraries, **tags; /* each layer's, apart: the name alone is
                               ambiguous when a name holds ':' */
  size_t count, capacity;
  series_point *points;
  size_t point_count;
  bool failed;       /* out of host memory */
  size_t overflowed; /* a layer whose devices together hold more than
                        2^64 - 1 bytes, or SIZE_MAX */
} series;

static size_t layer_of(series *s, const char *library, const char *tag) {
  for (size_t i = 0; i < s->count; i++)
    if (strcmp(s->libraries[i], library) == 0 && strcmp(s->tags[i], tag) == 0) return i;
  if (s->count == s->capacity) {
    size_t capacity = s->capacity ? 2 * s->capacity : 16;
    char **names = realloc(s->names, capacity * sizeof *names);
    if (names != NULL) s->names = names;
    char **libraries = names != NULL ? realloc(s->libraries, capacity * sizeof *libraries) : NULL;
    if (libraries != NULL) s->libraries = libraries;
    char **tags = libraries != NULL ? realloc(s->tags, capacity * sizeof *tags) : NULL;
    if (tags == NULL) return SIZE_MAX;
    s->tags = tags;
    s->capacity = capacity;
  }
  /* Every point so far gets the new layer, at 0. */
  for (size_t p = 0; p < s->point_count; p++) {
    uint64_t *grown = realloc(s->points[p].bytes, (s->count + 1) * sizeof *grown);
    if (grown == NULL) return SIZE_MAX;
    grown[s->count] = 0;
    s->points[p].bytes = grown;
  }
  size_t length = strlen(library) + 1 + strlen(tag) + 1;
  char *name = malloc(length);
  char *library_copy = strdup(library), *tag_copy = strdup(tag);
  if (name == NULL || library_copy == NULL || tag_copy == NULL) {
    free(name);
    free(library_copy);
    free(tag_copy);
    return SIZE_MAX;
  }
  snprintf(name, length, "%s:%s", library, tag);
  s->names[s->count] = name;
  s->libraries[s->count] = library_copy;
  s->tags[s->count] = tag_copy;
  return s->count++;
}

typedef struct visit {
  series *s;
  series_point *point;
} visit;

static void add_tag(void *user, const mr_snapshot_tag_entry *entry) {
  visit *v = user;
  size_t l = layer_of(v->s, entry->library, entry->tag);
  if (l == SIZE_MAX) {
    v->s->failed = true;
    return;
  }
  /* A file may claim any counts: a tag's devices together cannot hold
   * more than 2^64 - 1 bytes. */
  if (__builtin_add_overflow(v->point->bytes[l], entry->stats->current_bytes,
                             &v->point->bytes[l]) &&
      v->s->overflowed == SIZE_MAX)
    v->s->overflowed = l;
}

static char *read_whole(const char *path, size_t *length, char *why, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(why, cap, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  char *text = NULL;
  bool read = mrctx_read_all(f, MRCTX_SNAPSHOT_MAX, &text, length);
  int read_errno = errno;
  fclose(f);
  if (!read) {
    snprintf(why, cap, "%s: cannot read: %s", path,
             read_errno == EFBIG ? "larger than 256 MiB, which no snapshot is"
                                 : strerror(read_errno));
    return NULL;
  }
  return text;
}

bool plot_is_snapshot(const char *path) {
  size_t n = strlen(path);
  if (n >= 4 && strcmp(path + n - 4, ".csv") == 0) return false; /* a log, even a bad one */
  FILE *f = fopen(path, "rb");
  if (f == NULL) return false;
  int c;
  do c = fgetc(f);
  while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xEF || c == 0xBB || c == 0xBF);
  fclose(f);
  return c == '{';
}

/* One snapshot file into s. */
static bool read_point(series *s, const char *path, char *why, size_t cap) {
  size_t length = 0;
  char *text = read_whole(path, &length, why, cap);
  if (text == NULL) return false;
  mr_snapshot *snap = NULL;
  mr_status st = mr_snapshot_read(text, length, &snap);
  free(text);
  if (st != MR_OK) {
    snprintf(why, cap, "%s: not a snapshot: %s", path, mr_last_error());
    return false;
  }
  mr_snapshot_info info = {.size = sizeof info};
  series_point *grown = realloc(s->points, (s->point_count + 1) * sizeof *grown);
  bool ok = grown != NULL && mr_snapshot_get_info(snap, &info) == MR_OK;
  if (ok) {
    s->points = grown;
    series_point *p = &s->points[s->point_count];
    *p = (series_point){.time_unix_ns = info.time_unix_ns,
                        .bytes = calloc(s->count ? s->count : 1, sizeof *p->bytes)};
    ok = p->bytes != NULL;
    if (ok) {
      s->point_count++;
      visit v = {.s = s, .point = p};
      ok = mr_snapshot_foreach_tag(snap, add_tag, &v) == MR_OK && !s->failed &&
           s->overflowed == SIZE_MAX;
      if (ok && info.out_of_memory) {
        p->out_of_memory = true;
        p->oom_bytes = info.oom_bytes;
        p->oom_layer = layer_of(s, info.oom_library, info.oom_tag);
        ok = p->oom_layer != SIZE_MAX;
      }
    }
  } else if (grown != NULL) {
    s->points = grown;
  }
  mr_snapshot_destroy(snap);
  char name[512];
  if (!ok && s->overflowed != SIZE_MAX)
    snprintf(why, cap,
             "%s: %s holds more than 2^64 - 1 bytes on its devices together, which no process "
             "can",
             path, mri_printable(s->names[s->overflowed], name, sizeof name));
  else if (!ok)
    snprintf(why, cap, "%s: out of memory", path);
  return ok;
}

static int by_time(const void *a, const void *b) {
  const series_point *x = a, *y = b;
  return x->time_unix_ns < y->time_unix_ns ? -1 : x->time_unix_ns > y->time_unix_ns;
}

/* Layer l of the series as a log: an event per change, the first at 0. */
static bool layer_log(const series *s, size_t l, replay_log *log) {
  memset(log, 0, sizeof *log);
  log->events = calloc(2 * s->point_count, sizeof *log->events);
  if (log->events == NULL) return false;
  uint64_t start = s->points[0].time_unix_ns, live = 0;
  /* Seconds of the (UTC) day, as a log's clock: every layer shares it. */
  log->start_clock = (double)(start % (86400ull * 1000000000ull)) / 1e9;
  for (size_t p = 0; p < s->point_count; p++) {
    const series_point *pt = &s->points[p];
    double t = (double)(pt->time_unix_ns - start) / 1e9;
    uint64_t now = pt->bytes[l];
    if (now != live) {
      log->events[log->event_count++] =
          (replay_event){.time = t,
                         .size = now > live ? now - live : live - now,
                         .action = now > live ? REPLAY_ALLOCATE : REPLAY_FREE};
      live = now;
      if (live > log->peak_bytes) {
        log->peak_bytes = live;
        log->peak_time = t;
      }
    }
    if (pt->out_of_memory && pt->oom_layer == l) {
      log->events[log->event_count++] =
          (replay_event){.time = t, .size = pt->oom_bytes, .action = REPLAY_ALLOCATE_FAILURE};
      log->failures++;
    }
  }
  log->live_bytes = live;
  /* A layer that never held memory still starts where the series does. */
  if (log->event_count == 0)
    log->events[log->event_count++] = (replay_event){.time = 0, .size = 0, .action = REPLAY_FREE};
  return true;
}

bool plot_read_snapshots(char **paths, size_t count, plot *p, char *why, size_t cap) {
  series s = {.overflowed = SIZE_MAX};
  bool ok = true;
  for (size_t i = 0; i < count && ok; i++) ok = read_point(&s, paths[i], why, cap);
  if (ok) {
    qsort(s.points, s.point_count, sizeof *s.points, by_time);
    p->layers = calloc(s.count ? s.count : 1, sizeof *p->layers);
    ok = p->layers != NULL;
    for (size_t l = 0; ok && l < s.count; l++) {
      ok = layer_log(&s, l, &p->layers[l].log);
      if (ok) {
        p->layers[l].name = s.names[l];
        s.names[l] = NULL;
        p->layer_count++;
      }
    }
    p->snapshot_count = s.point_count;
    if (!ok)
      snprintf(why, cap, "out of memory");
    else if (s.count == 0) {
      snprintf(why, cap, "%s: the snapshot%s record%s no context", paths[0], count == 1 ? "" : "s",
               count == 1 ? "s" : "");
      ok = false;
    }
  }
  for (size_t i = 0; i < s.count; i++) {
    free(s.names[i]);
    free(s.libraries[i]);
    free(s.tags[i]);
  }
  free(s.names);
  free(s.libraries);
  free(s.tags);
  for (size_t i = 0; i < s.point_count; i++) free(s.points[i].bytes);
  free(s.points);
  return ok;
}
