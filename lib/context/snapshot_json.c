/*
 * snapshot_json.c: a snapshot as JSON, both ways: schema "mrctx-snapshot",
 * version 1 (docs/observability.md describes every member).
 *
 * The writer and the reader below are the schema: each member the writer
 * puts out, the reader takes back into the same field, so a snapshot read
 * from a file writes the same bytes again. The reader ignores members it
 * does not know (a later version-1 writer may add some) and requires the
 * rest; what is wrong is named by its path in the document
 * (contexts[0].tags[1].devices[0].stats.peak_bytes) and its line and column.
 * Pointers and streams are written as hexadecimal strings ("0x7f00..."),
 * byte counts as integers.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "context/json.h"
#include "context/snapshot_internal.h"

/* ---- writing -------------------------------------------------------------------- */

static void put_key(FILE *out, int indent, const char *key) {
  fprintf(out, "%*s\"%s\": ", indent, "", key);
}

static void put_u64(FILE *out, int indent, const char *key, uint64_t value, bool last) {
  put_key(out, indent, key);
  fprintf(out, "%" PRIu64 "%s\n", value, last ? "" : ",");
}

static void put_int(FILE *out, int indent, const char *key, int64_t value, bool last) {
  put_key(out, indent, key);
  fprintf(out, "%" PRId64 "%s\n", value, last ? "" : ",");
}

static void put_str(FILE *out, int indent, const char *key, const char *value, bool last) {
  put_key(out, indent, key);
  mri_json_write_string(out, value);
  fprintf(out, "%s\n", last ? "" : ",");
}

static void put_hex(FILE *out, int indent, const char *key, uint64_t value, bool last) {
  put_key(out, indent, key);
  fprintf(out, "\"0x%" PRIx64 "\"%s\n", value, last ? "" : ",");
}

static void write_stats(FILE *out, int indent, const mr_stats *s) {
  put_key(out, indent, "stats");
  fputs("{", out);
  const char *sep = "";
#define MRI_PUT_STAT_(field, description)                    \
  fprintf(out, "%s\"" #field "\": %" PRIu64, sep, s->field); \
  sep = ", ";
  MR_STATS_FIELDS(MRI_PUT_STAT_)
#undef MRI_PUT_STAT_
  fputs("}", out);
}

/* The fields of mr_cache_stats a snapshot holds, in order. */
#define MRI_SNAP_CACHE_FIELDS(X) \
  X(hits) X(misses) X(cross_stream) X(bypassed) X(cached_bytes) X(cached_blocks) X(trims)

static void write_cache(FILE *out, int indent, const mr_cache_stats *c) {
  put_key(out, indent, "cache");
  fputs("{", out);
  const char *sep = "";
#define MRI_PUT_CACHE_(field)                                \
  fprintf(out, "%s\"" #field "\": %" PRIu64, sep, c->field); \
  sep = ", ";
  MRI_SNAP_CACHE_FIELDS(MRI_PUT_CACHE_)
#undef MRI_PUT_CACHE_
  fputs("}", out);
}

static void write_track(FILE *out, int indent, const mri_snap_slot *s) {
  put_key(out, indent, "track");
  fprintf(out, "{\n");
  put_u64(out, indent + 2, "live_count", s->track_live_count, false);
  put_u64(out, indent + 2, "live_bytes", s->track_live_bytes, false);
  put_key(out, indent + 2, "largest");
  fputs("[", out);
  for (size_t i = 0; i < s->block_count; i++) {
    const mri_snap_block *b = &s->blocks[i];
    fprintf(out,
            "%s\n%*s{\"ptr\": \"0x%" PRIx64 "\", \"bytes\": %" PRIu64 ", \"alignment\": %" PRIu64
            ", \"stream\": \"0x%" PRIx64 "\", \"age_ns\": %" PRIu64,
            i > 0 ? "," : "", indent + 4, "", b->ptr, b->bytes, b->alignment, b->stream, b->age_ns);
    /* The call site, where the tracker keeps stacks: a member a reader of
     * version 1 that does not know it skips. */
    if (b->frames != NULL) {
      fputs(", \"frames\": [", out);
      for (size_t f = 0; f < b->frame_count; f++) {
        if (f > 0) fputs(", ", out);
        mri_json_write_string(out, b->frames[f]);
      }
      fputs("]", out);
    }
    fputs("}", out);
  }
  if (s->block_count > 0) fprintf(out, "\n%*s", indent + 2, "");
  fprintf(out, "]\n%*s}", indent, "");
}

/* One keeping resource, on one line; `owner` and `device` for the
 * process's list only. */
static void write_idle_entry(FILE *out, const mri_snap_idle *i, bool process) {
  fputs("{\"resource\": ", out);
  mri_json_write_string(out, i->resource);
  if (process && i->owner != NULL) {
    fputs(", \"owner\": ", out);
    mri_json_write_string(out, i->owner);
  }
  if (process) fprintf(out, ", \"device\": %d", i->device);
  fprintf(out,
          ", \"keep\": %s, \"idle_bytes\": %" PRIu64 ", \"reclaims\": %" PRIu64
          ", \"reclaimed_bytes\": %" PRIu64 ", \"reclaim_ns\": %" PRIu64 "}",
          i->keep ? "true" : "false", i->idle_bytes, i->reclaims, i->reclaimed_bytes,
          i->reclaim_ns);
}

/* The chain's keeping resources: their sums, then each (a member a reader
 * of version 1 that does not know it skips). */
static void write_slot_idle(FILE *out, int indent, const mri_snap_slot *s) {
  uint64_t idle = 0, reclaims = 0, bytes = 0, ns = 0;
  for (size_t i = 0; i < s->idle_count; i++) {
    idle += s->idle[i].idle_bytes;
    reclaims += s->idle[i].reclaims;
    bytes += s->idle[i].reclaimed_bytes;
    ns += s->idle[i].reclaim_ns;
  }
  put_key(out, indent, "idle");
  fprintf(out,
          "{\"idle_bytes\": %" PRIu64 ", \"reclaims\": %" PRIu64 ", \"reclaimed_bytes\": %" PRIu64
          ", \"reclaim_ns\": %" PRIu64 ",\n%*s\"resources\": [",
          idle, reclaims, bytes, ns, indent + 2, "");
  for (size_t i = 0; i < s->idle_count; i++) {
    fprintf(out, "%s\n%*s", i > 0 ? "," : "", indent + 4, "");
    write_idle_entry(out, &s->idle[i], false);
  }
  fprintf(out, "\n%*s]}", indent + 2, "");
}

static void write_slot(FILE *out, int indent, const mri_snap_slot *s, bool last) {
  fprintf(out, "%*s{\n", indent, "");
  int in = indent + 2;
  put_int(out, in, "device", s->device, false);
  put_str(out, in, "spec", s->spec, false);
  put_str(out, in, "origin", s->origin, false);
  if (s->status != NULL) {
    put_str(out, in, "status", s->status, false);
    put_str(out, in, "reason", s->reason, false);
  }
  if (s->shares != NULL) put_str(out, in, "shares", s->shares, false);
  write_stats(out, in, &s->stats);
  if (s->has_cache) {
    fputs(",\n", out);
    write_cache(out, in, &s->cache);
  }
  if (s->has_track) {
    fputs(",\n", out);
    write_track(out, in, s);
  }
  if (s->idle_count > 0) {
    fputs(",\n", out);
    write_slot_idle(out, in, s);
  }
  fprintf(out, "\n%*s}%s\n", indent, "", last ? "" : ",");
}

static void write_context(FILE *out, const mri_snap_context *c, bool last) {
  fprintf(out, "    {\n");
  put_u64(out, 6, "id", c->id, false);
  /* Destroyed before the snapshot (MRCTX_STATS_AT_EXIT): how many contexts
   * the record stands for. Absent: live. */
  if (c->destroyed > 0) put_u64(out, 6, "destroyed", c->destroyed, false);
  put_str(out, 6, "library", c->library, false);
  put_int(out, 6, "device_count", c->device_count, false);
  put_key(out, 6, "tags");
  fputs("[\n", out);
  for (size_t t = 0; t < c->tag_count; t++) {
    const mri_snap_tag *tag = &c->tags[t];
    fprintf(out, "        {\n");
    put_str(out, 10, "tag", tag->name, false);
    put_key(out, 10, "devices");
    fputs("[\n", out);
    for (size_t d = 0; d < tag->slot_count; d++)
      write_slot(out, 12, &tag->slots[d], d + 1 == tag->slot_count);
    fprintf(out, "          ]\n        }%s\n", t + 1 == c->tag_count ? "" : ",");
  }
  fprintf(out, "      ]\n    }%s\n", last ? "" : ",");
}

static void write_pool(FILE *out, const mri_snap_pool *p, bool last) {
  fprintf(out, "    {\"pool\": ");
  mri_json_write_string(out, p->which);
  if (p->owner != NULL) {
    fprintf(out, ", \"owner\": ");
    mri_json_write_string(out, p->owner);
  }
  fprintf(out,
          ", \"kind\": \"%s\", \"device\": %d, \"is_default\": %s, \"is_current\": %s, "
          "\"release_threshold\": %" PRIu64 ", \"reserved_bytes\": %" PRIu64
          ", \"reserved_high\": %" PRIu64 ", \"used_bytes\": %" PRIu64 ", \"used_high\": %" PRIu64
          "}%s\n",
          mr_pool_kind_name(p->info.kind), p->info.device, p->info.is_default ? "true" : "false",
          p->info.is_current ? "true" : "false", p->info.release_threshold, p->info.reserved_bytes,
          p->info.reserved_high, p->info.used_bytes, p->info.used_high, last ? "" : ",");
}

mr_status mr_snapshot_write_json(const mr_snapshot *snap, FILE *out) {
  if (snap == NULL || out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_write_json: NULL argument");
  char time[64];
  mri_format_time_utc(snap->time_unix_ns, time, sizeof time);
  fputs("{\n", out);
  put_str(out, 2, "schema", MR_SNAPSHOT_SCHEMA, false);
  put_int(out, 2, "version", MR_SNAPSHOT_VERSION, false);
  put_str(out, 2, "mrctx_version", snap->mrctx_version, false);
  put_int(out, 2, "pid", snap->pid, false);
  /* Where it was taken, as far as known: members a reader of version 1
   * that does not know them skips. */
  if (snap->host != NULL) put_str(out, 2, "host", snap->host, false);
  if (snap->rank >= 0) put_int(out, 2, "rank", snap->rank, false);
  if (snap->local_rank >= 0) put_int(out, 2, "local_rank", snap->local_rank, false);
  if (snap->world_size >= 0) put_int(out, 2, "world_size", snap->world_size, false);
  put_u64(out, 2, "time_unix_ns", snap->time_unix_ns, false);
  put_str(out, 2, "time", time, false);
  put_str(out, 2, "trigger", snap->has_oom ? "out_of_memory" : "request", false);
  if (snap->has_oom) {
    const mri_snap_oom *o = &snap->oom;
    fputs("  \"out_of_memory\": {\n", out);
    put_str(out, 4, "library", o->library, false);
    put_str(out, 4, "tag", o->tag, false);
    put_int(out, 4, "device", o->device, false);
    put_u64(out, 4, "bytes", o->bytes, false);
    put_hex(out, 4, "stream", o->stream, false);
    /* The process-wide reclaim that did not help (absent: none ran). */
    if (o->has_reclaim)
      fprintf(out,
              "    \"reclaim\": {\"shared\": %s, \"released_bytes\": %" PRIu64
              ", \"resources\": %" PRIu64 ", \"kept_bytes\": %" PRIu64 ", \"ns\": %" PRIu64 "},\n",
              o->reclaim_shared ? "true" : "false", o->reclaim_released, o->reclaim_resources,
              o->reclaim_kept, o->reclaim_ns);
    put_str(out, 4, "message", o->message, true);
    fputs("  },\n", out);
  }
  if (snap->destroyed_not_kept > 0)
    put_u64(out, 2, "destroyed_not_kept", snap->destroyed_not_kept, false);
  fputs("  \"contexts\": [\n", out);
  for (size_t i = 0; i < snap->context_count; i++)
    write_context(out, &snap->contexts[i], i + 1 == snap->context_count);
  fputs("  ],\n  \"pools\": [\n", out);
  for (size_t i = 0; i < snap->pool_count; i++)
    write_pool(out, &snap->pools[i], i + 1 == snap->pool_count);
  fputs("  ]", out);
  /* The devices whose memory was read; absent when none was. */
  if (snap->device_count > 0) {
    fputs(",\n  \"devices\": [\n", out);
    for (size_t i = 0; i < snap->device_count; i++) {
      const mri_snap_device *d = &snap->devices[i];
      fprintf(out,
              "    {\"device\": %d, \"free_bytes\": %" PRIu64 ", \"total_bytes\": %" PRIu64 "}%s\n",
              d->device, d->free_bytes, d->total_bytes, i + 1 == snap->device_count ? "" : ",");
    }
    fputs("  ]", out);
  }
  /* Every resource that keeps idle memory; absent when not read. */
  if (snap->has_idle) {
    fputs(",\n  \"idle_memory\": [", out);
    for (size_t i = 0; i < snap->idle_count; i++) {
      fputs(i > 0 ? ",\n    " : "\n    ", out);
      write_idle_entry(out, &snap->idle[i], true);
    }
    fputs(snap->idle_count > 0 ? "\n  ]" : "]", out);
  }
  fputs("\n}\n", out);
  if (fflush(out) != 0 || ferror(out))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_write_json: writing failed: %s",
                     strerror(errno));
  return MR_OK;
}

/* ---- reading -------------------------------------------------------------------- */

/* Where in the document the reader is, for messages: "contexts[0].tags". */
typedef struct path {
  char text[256];
  size_t length;
} path;

static size_t path_push(path *p, const char *format, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(path *p, const char *format, ...) {
  size_t mark = p->length;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(p->text + p->length, sizeof p->text - p->length, format, args);
  va_end(args);
  if (n > 0) p->length += (size_t)n;
  if (p->length >= sizeof p->text) p->length = sizeof p->text - 1;
  return mark;
}

/* A member of the value at the path. */
static size_t push_member(path *p, const char *key) {
  return path_push(p, "%s%s", p->length > 0 ? "." : "", key);
}

static void path_pop(path *p, size_t mark) {
  p->length = mark;
  p->text[mark] = '\0';
}

static mr_status bad(const path *p, const mri_json *v, const char *problem) {
  return mri_error(MR_ERR_INVALID_ARGUMENT, "snapshot JSON: %s: %s (line %d, column %d)",
                   p->length > 0 ? p->text : "the document", problem, v->line, v->column);
}

/* The member `key` of `object`, of `type` (an object's type stands for
 * its own; MRI_JSON_TRUE for either boolean). NULL and *st MR_OK when it
 * is absent and `optional`. */
static const mri_json *member(path *p, const mri_json *object, const char *key, mri_json_type type,
                              bool optional, mr_status *st) {
  *st = MR_OK;
  const mri_json *v = mri_json_member(object, key);
  if (v == NULL) {
    if (optional) return NULL;
    char problem[160];
    snprintf(problem, sizeof problem, "the member \"%s\" is missing", key);
    *st = bad(p, object, problem);
    return NULL;
  }
  bool fits = v->type == type || (type == MRI_JSON_TRUE && v->type == MRI_JSON_FALSE);
  if (!fits) {
    size_t mark = push_member(p, key);
    char problem[160];
    snprintf(problem, sizeof problem, "expected %s, found %s",
             mri_json_type_words(type == MRI_JSON_TRUE ? MRI_JSON_FALSE : type),
             mri_json_type_words(v->type));
    *st = bad(p, v, problem);
    path_pop(p, mark);
    return NULL;
  }
  return v;
}

static mr_status get_u64(path *p, const mri_json *object, const char *key, uint64_t *out) {
  mr_status st;
  const mri_json *v = member(p, object, key, MRI_JSON_NUMBER, false, &st);
  if (v == NULL) return st;
  const char *s = v->text;
  bool digits = s[0] != '\0' && s[0] != '-';
  for (const char *c = s; *c != '\0' && digits; c++) digits = *c >= '0' && *c <= '9';
  errno = 0;
  unsigned long long value = digits ? strtoull(s, NULL, 10) : 0;
  if (!digits || errno == ERANGE) {
    size_t mark = push_member(p, key);
    st = bad(p, v, "expected a whole number from 0 to 18446744073709551615");
    path_pop(p, mark);
    return st;
  }
  *out = value;
  return MR_OK;
}

static mr_status get_int(path *p, const mri_json *object, const char *key, int64_t min, int64_t max,
                         int64_t *out) {
  mr_status st;
  const mri_json *v = member(p, object, key, MRI_JSON_NUMBER, false, &st);
  if (v == NULL) return st;
  const char *s = v->text;
  bool digits = s[0] != '\0';
  for (const char *c = s[0] == '-' ? s + 1 : s; *c != '\0' && digits; c++)
    digits = *c >= '0' && *c <= '9';
  errno = 0;
  long long value = digits ? strtoll(s, NULL, 10) : 0;
  if (!digits || errno == ERANGE || value < min || value > max) {
    size_t mark = push_member(p, key);
    char problem[160];
    snprintf(problem, sizeof problem, "expected a whole number from %" PRId64 " to %" PRId64, min,
             max);
    st = bad(p, v, problem);
    path_pop(p, mark);
    return st;
  }
  *out = value;
  return MR_OK;
}

/* An optional whole number from 0 up: -1 when absent. */
static mr_status get_count_or_none(path *p, const mri_json *object, const char *key, int64_t *out) {
  *out = -1;
  if (mri_json_member(object, key) == NULL) return MR_OK;
  return get_int(p, object, key, 0, INT64_MAX, out);
}

static mr_status get_device(path *p, const mri_json *object, const char *key, int *out) {
  int64_t value;
  mr_status st = get_int(p, object, key, -1, INT_MAX, &value);
  if (st == MR_OK) *out = (int)value;
  return st;
}

/* A string member, copied. Absent and `optional`: *out stays NULL. */
static mr_status get_str(path *p, const mri_json *object, const char *key, bool optional,
                         char **out) {
  mr_status st;
  const mri_json *v = member(p, object, key, MRI_JSON_STRING, optional, &st);
  if (v == NULL) return st;
  *out = mri_strdup(v->text);
  return *out != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY;
}

static mr_status get_bool(path *p, const mri_json *object, const char *key, bool *out) {
  mr_status st;
  const mri_json *v = member(p, object, key, MRI_JSON_TRUE, false, &st);
  if (v == NULL) return st;
  *out = v->type == MRI_JSON_TRUE;
  return MR_OK;
}

/* "0x..." as written for pointers and streams. */
static mr_status get_hex(path *p, const mri_json *object, const char *key, uint64_t *out) {
  mr_status st;
  const mri_json *v = member(p, object, key, MRI_JSON_STRING, false, &st);
  if (v == NULL) return st;
  const char *s = v->text;
  bool hex = strncmp(s, "0x", 2) == 0 && s[2] != '\0' && strlen(s) <= 18;
  /* `hex` first: a string shorter than "0x" ends before s + 2. */
  for (const char *c = s + 2; hex && *c != '\0'; c++)
    hex = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F');
  if (!hex) {
    size_t mark = push_member(p, key);
    st = bad(p, v, "expected an address as a string of hexadecimal digits after \"0x\"");
    path_pop(p, mark);
    return st;
  }
  *out = strtoull(s + 2, NULL, 16);
  return MR_OK;
}

/* The elements of an array member, each an object. */
static const mri_json *get_objects(path *p, const mri_json *object, const char *key,
                                   mr_status *st) {
  const mri_json *v = member(p, object, key, MRI_JSON_ARRAY, false, st);
  if (v == NULL) return NULL;
  for (size_t i = 0; i < v->count; i++) {
    if (v->items[i].type != MRI_JSON_OBJECT) {
      size_t mark = path_push(p, "%s%s[%zu]", p->length > 0 ? "." : "", key, i);
      char problem[96];
      snprintf(problem, sizeof problem, "expected an object, found %s",
               mri_json_type_words(v->items[i].type));
      *st = bad(p, &v->items[i], problem);
      path_pop(p, mark);
      return NULL;
    }
  }
  return v;
}

static mr_status read_stats(path *p, const mri_json *slot, mr_stats *stats) {
  mr_status st;
  const mri_json *v = member(p, slot, "stats", MRI_JSON_OBJECT, false, &st);
  if (v == NULL) return st;
  size_t mark = path_push(p, ".stats");
  mr_stats_init(stats);
#define MRI_GET_STAT_(field, description) \
  if (st == MR_OK) st = get_u64(p, v, #field, &stats->field);
  MR_STATS_FIELDS(MRI_GET_STAT_)
#undef MRI_GET_STAT_
  path_pop(p, mark);
  return st;
}

static mr_status read_cache(path *p, const mri_json *slot, mri_snap_slot *s) {
  mr_status st;
  const mri_json *v = member(p, slot, "cache", MRI_JSON_OBJECT, true, &st);
  if (v == NULL) return st;
  size_t mark = path_push(p, ".cache");
  s->cache = (mr_cache_stats){.size = sizeof s->cache};
#define MRI_GET_CACHE_(field) \
  if (st == MR_OK) st = get_u64(p, v, #field, &s->cache.field);
  MRI_SNAP_CACHE_FIELDS(MRI_GET_CACHE_)
#undef MRI_GET_CACHE_
  path_pop(p, mark);
  s->has_cache = st == MR_OK;
  return st;
}

/* A block's "frames": absent (a tracker without stacks, or a snapshot
 * written before they were kept), or an array of strings. */
static mr_status read_frames(path *p, const mri_json *b, mri_snap_block *block) {
  mr_status st;
  const mri_json *v = member(p, b, "frames", MRI_JSON_ARRAY, true, &st);
  if (v == NULL) return st;
  block->frames = mri_calloc(v->count ? v->count : 1, sizeof *block->frames);
  if (block->frames == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t f = 0; f < v->count; f++) {
    if (v->items[f].type != MRI_JSON_STRING) {
      size_t mark = path_push(p, ".frames[%zu]", f);
      char problem[96];
      snprintf(problem, sizeof problem, "expected a string, found %s",
               mri_json_type_words(v->items[f].type));
      st = bad(p, &v->items[f], problem);
      path_pop(p, mark);
      return st;
    }
    block->frames[block->frame_count] = mri_strdup(v->items[f].text);
    if (block->frames[block->frame_count] == NULL) return MR_ERR_OUT_OF_MEMORY;
    block->frame_count++;
  }
  return MR_OK;
}

static mr_status read_track(path *p, const mri_json *slot, mri_snap_slot *s) {
  mr_status st;
  const mri_json *v = member(p, slot, "track", MRI_JSON_OBJECT, true, &st);
  if (v == NULL) return st;
  size_t mark = path_push(p, ".track");
  s->has_track = true;
  st = get_u64(p, v, "live_count", &s->track_live_count);
  if (st == MR_OK) st = get_u64(p, v, "live_bytes", &s->track_live_bytes);
  const mri_json *largest = st == MR_OK ? get_objects(p, v, "largest", &st) : NULL;
  if (largest != NULL && largest->count > 0) {
    s->blocks = mri_calloc(largest->count, sizeof *s->blocks);
    if (s->blocks == NULL) st = MR_ERR_OUT_OF_MEMORY;
  }
  for (size_t i = 0; largest != NULL && i < largest->count && st == MR_OK; i++) {
    const mri_json *b = &largest->items[i];
    mri_snap_block *block = &s->blocks[s->block_count++];
    size_t inner = path_push(p, ".largest[%zu]", i);
    st = get_hex(p, b, "ptr", &block->ptr);
    if (st == MR_OK) st = get_u64(p, b, "bytes", &block->bytes);
    if (st == MR_OK) st = get_u64(p, b, "alignment", &block->alignment);
    if (st == MR_OK) st = get_hex(p, b, "stream", &block->stream);
    if (st == MR_OK) st = get_u64(p, b, "age_ns", &block->age_ns);
    if (st == MR_OK) st = read_frames(p, b, block);
    path_pop(p, inner);
  }
  path_pop(p, mark);
  return st;
}

/* One keeping resource (`process`: of the process's list, with its
 * device and owner). */
static mr_status read_idle_entry(path *p, const mri_json *v, bool process, mri_snap_idle *i) {
  mr_status st = get_str(p, v, "resource", false, &i->resource);
  i->device = -1;
  if (process && st == MR_OK) st = get_str(p, v, "owner", true, &i->owner);
  if (process && st == MR_OK) st = get_device(p, v, "device", &i->device);
  if (st == MR_OK) st = get_bool(p, v, "keep", &i->keep);
  if (st == MR_OK) st = get_u64(p, v, "idle_bytes", &i->idle_bytes);
  if (st == MR_OK) st = get_u64(p, v, "reclaims", &i->reclaims);
  if (st == MR_OK) st = get_u64(p, v, "reclaimed_bytes", &i->reclaimed_bytes);
  if (st == MR_OK) st = get_u64(p, v, "reclaim_ns", &i->reclaim_ns);
  return st;
}

/* An array of keeping resources into *list (its sums, where written, are
 * the writer's: recomputed from the entries). */
static mr_status read_idle_list(path *p, const mri_json *object, const char *key, bool process,
                                mri_snap_idle **list, size_t *count) {
  mr_status st;
  const mri_json *v = get_objects(p, object, key, &st);
  if (v == NULL || v->count == 0) return st;
  *list = mri_calloc(v->count, sizeof **list);
  if (*list == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < v->count && st == MR_OK; i++) {
    size_t mark = path_push(p, "%s%s[%zu]", p->length > 0 ? "." : "", key, i);
    st = read_idle_entry(p, &v->items[i], process, &(*list)[(*count)++]);
    path_pop(p, mark);
  }
  return st;
}

static mr_status read_slot_idle(path *p, const mri_json *slot, mri_snap_slot *s) {
  mr_status st;
  const mri_json *v = member(p, slot, "idle", MRI_JSON_OBJECT, true, &st);
  if (v == NULL) return st;
  size_t mark = path_push(p, ".idle");
  st = read_idle_list(p, v, "resources", false, &s->idle, &s->idle_count);
  path_pop(p, mark);
  return st;
}

static mr_status read_slot(path *p, const mri_json *v, mri_snap_slot *s) {
  mr_status st = get_device(p, v, "device", &s->device);
  if (st == MR_OK) st = get_str(p, v, "spec", false, &s->spec);
  if (st == MR_OK) st = get_str(p, v, "origin", false, &s->origin);
  if (st == MR_OK) st = get_str(p, v, "status", true, &s->status);
  if (st == MR_OK && s->status != NULL) st = get_str(p, v, "reason", false, &s->reason);
  if (st == MR_OK) st = get_str(p, v, "shares", true, &s->shares);
  if (st == MR_OK) st = read_stats(p, v, &s->stats);
  if (st == MR_OK) st = read_cache(p, v, s);
  if (st == MR_OK) st = read_track(p, v, s);
  if (st == MR_OK) st = read_slot_idle(p, v, s);
  return st;
}

static mr_status read_tag(path *p, const mri_json *v, mri_snap_tag *tag) {
  mr_status st = get_str(p, v, "tag", false, &tag->name);
  const mri_json *devices = st == MR_OK ? get_objects(p, v, "devices", &st) : NULL;
  if (devices == NULL) return st;
  tag->slots = mri_calloc(devices->count ? devices->count : 1, sizeof *tag->slots);
  if (tag->slots == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t d = 0; d < devices->count && st == MR_OK; d++) {
    size_t mark = path_push(p, ".devices[%zu]", d);
    st = read_slot(p, &devices->items[d], &tag->slots[tag->slot_count++]);
    path_pop(p, mark);
  }
  return st;
}

static mr_status read_context(path *p, const mri_json *v, mri_snap_context *c) {
  int64_t device_count = 0;
  mr_status st = get_u64(p, v, "id", &c->id);
  if (st == MR_OK && mri_json_member(v, "destroyed") != NULL)
    st = get_u64(p, v, "destroyed", &c->destroyed);
  if (st == MR_OK) st = get_str(p, v, "library", false, &c->library);
  if (st == MR_OK) st = get_int(p, v, "device_count", 1, INT_MAX, &device_count);
  c->device_count = (int)device_count;
  const mri_json *tags = st == MR_OK ? get_objects(p, v, "tags", &st) : NULL;
  if (tags == NULL) return st;
  c->tags = mri_calloc(tags->count ? tags->count : 1, sizeof *c->tags);
  if (c->tags == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t t = 0; t < tags->count && st == MR_OK; t++) {
    size_t mark = path_push(p, ".tags[%zu]", t);
    st = read_tag(p, &tags->items[t], &c->tags[c->tag_count++]);
    path_pop(p, mark);
  }
  return st;
}

static mr_status read_pool(path *p, const mri_json *v, mri_snap_pool *pool) {
  char *kind = NULL;
  int64_t device = 0;
  mr_status st = get_str(p, v, "pool", false, &pool->which);
  if (st == MR_OK) st = get_str(p, v, "owner", true, &pool->owner);
  if (st == MR_OK) st = get_str(p, v, "kind", false, &kind);
  pool->info = (mr_pool_info){.size = sizeof pool->info};
  if (st == MR_OK) {
    if (strcmp(kind, "device") == 0) {
      pool->info.kind = MR_POOL_DEVICE;
    } else if (strcmp(kind, "pinned") == 0) {
      pool->info.kind = MR_POOL_PINNED;
    } else if (strcmp(kind, "managed") == 0) {
      pool->info.kind = MR_POOL_MANAGED;
    } else {
      size_t mark = push_member(p, "kind");
      st = bad(p, mri_json_member(v, "kind"), "expected \"device\", \"pinned\" or \"managed\"");
      path_pop(p, mark);
    }
  }
  free(kind);
  if (st == MR_OK) st = get_int(p, v, "device", -1, INT_MAX, &device);
  pool->info.device = (int)device;
  if (st == MR_OK) st = get_bool(p, v, "is_default", &pool->info.is_default);
  if (st == MR_OK) st = get_bool(p, v, "is_current", &pool->info.is_current);
  if (st == MR_OK) st = get_u64(p, v, "release_threshold", &pool->info.release_threshold);
  if (st == MR_OK) st = get_u64(p, v, "reserved_bytes", &pool->info.reserved_bytes);
  if (st == MR_OK) st = get_u64(p, v, "reserved_high", &pool->info.reserved_high);
  if (st == MR_OK) st = get_u64(p, v, "used_bytes", &pool->info.used_bytes);
  if (st == MR_OK) st = get_u64(p, v, "used_high", &pool->info.used_high);
  return st;
}

static mr_status read_devices(path *p, const mri_json *root, mr_snapshot *snap) {
  mr_status st;
  if (mri_json_member(root, "devices") == NULL) return MR_OK;
  const mri_json *devices = get_objects(p, root, "devices", &st);
  if (devices == NULL || devices->count == 0) return st;
  snap->devices = mri_calloc(devices->count, sizeof *snap->devices);
  if (snap->devices == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < devices->count && st == MR_OK; i++) {
    const mri_json *v = &devices->items[i];
    mri_snap_device *d = &snap->devices[snap->device_count++];
    size_t mark = path_push(p, "devices[%zu]", i);
    int64_t device = 0;
    st = get_int(p, v, "device", 0, INT_MAX, &device);
    d->device = (int)device;
    if (st == MR_OK) st = get_u64(p, v, "free_bytes", &d->free_bytes);
    if (st == MR_OK) st = get_u64(p, v, "total_bytes", &d->total_bytes);
    path_pop(p, mark);
  }
  return st;
}

static mr_status read_oom(path *p, const mri_json *root, mr_snapshot *snap) {
  mr_status st;
  const mri_json *v = member(p, root, "out_of_memory", MRI_JSON_OBJECT, false, &st);
  if (v == NULL) return st;
  size_t mark = path_push(p, "out_of_memory");
  mri_snap_oom *o = &snap->oom;
  snap->has_oom = true;
  st = get_str(p, v, "library", false, &o->library);
  if (st == MR_OK) st = get_str(p, v, "tag", false, &o->tag);
  if (st == MR_OK) st = get_device(p, v, "device", &o->device);
  if (st == MR_OK) st = get_u64(p, v, "bytes", &o->bytes);
  if (st == MR_OK) st = get_hex(p, v, "stream", &o->stream);
  if (st == MR_OK) st = get_str(p, v, "message", false, &o->message);
  const mri_json *r = st == MR_OK ? member(p, v, "reclaim", MRI_JSON_OBJECT, true, &st) : NULL;
  if (r != NULL) {
    size_t inner = path_push(p, ".reclaim");
    o->has_reclaim = true;
    st = get_bool(p, r, "shared", &o->reclaim_shared);
    if (st == MR_OK) st = get_u64(p, r, "released_bytes", &o->reclaim_released);
    if (st == MR_OK) st = get_u64(p, r, "resources", &o->reclaim_resources);
    if (st == MR_OK) st = get_u64(p, r, "kept_bytes", &o->reclaim_kept);
    if (st == MR_OK) st = get_u64(p, r, "ns", &o->reclaim_ns);
    path_pop(p, inner);
  }
  path_pop(p, mark);
  return st;
}

/* "schema" and "version" first: a file that is something else is told so
 * before any member it lacks. */
static mr_status read_header(path *p, const mri_json *root) {
  if (root->type != MRI_JSON_OBJECT) {
    char problem[96];
    snprintf(problem, sizeof problem, "expected an object, found %s",
             mri_json_type_words(root->type));
    return bad(p, root, problem);
  }
  const mri_json *schema = mri_json_member(root, "schema");
  if (schema == NULL || schema->type != MRI_JSON_STRING ||
      strcmp(schema->text, MR_SNAPSHOT_SCHEMA) != 0)
    return bad(p, schema != NULL ? schema : root,
               "this is not an mrctx snapshot (it has no \"schema\": \"" MR_SNAPSHOT_SCHEMA "\")");
  int64_t version;
  mr_status st = get_int(p, root, "version", 1, INT_MAX, &version);
  if (st != MR_OK) return st;
  if (version > MR_SNAPSHOT_VERSION) {
    char problem[160];
    snprintf(problem, sizeof problem,
             "version %" PRId64 " is newer than this mrctx (%s) reads (version %d)", version,
             mr_version(), MR_SNAPSHOT_VERSION);
    return bad(p, mri_json_member(root, "version"), problem);
  }
  return MR_OK;
}

static mr_status read_snapshot(path *p, const mri_json *root, mr_snapshot *snap) {
  mr_status st = read_header(p, root);
  int64_t pid = 0;
  char *trigger = NULL;
  if (st == MR_OK) st = get_str(p, root, "mrctx_version", false, &snap->mrctx_version);
  if (st == MR_OK) st = get_int(p, root, "pid", 0, INT64_MAX, &pid);
  snap->pid = pid;
  if (st == MR_OK) st = get_str(p, root, "host", true, &snap->host);
  if (st == MR_OK) st = get_count_or_none(p, root, "rank", &snap->rank);
  if (st == MR_OK) st = get_count_or_none(p, root, "local_rank", &snap->local_rank);
  if (st == MR_OK) st = get_count_or_none(p, root, "world_size", &snap->world_size);
  if (st == MR_OK) st = get_u64(p, root, "time_unix_ns", &snap->time_unix_ns);
  if (st == MR_OK) st = get_str(p, root, "trigger", false, &trigger);
  if (st == MR_OK) {
    if (strcmp(trigger, "out_of_memory") == 0) {
      st = read_oom(p, root, snap);
    } else if (strcmp(trigger, "request") != 0) {
      size_t mark = path_push(p, "trigger");
      st = bad(p, mri_json_member(root, "trigger"), "expected \"request\" or \"out_of_memory\"");
      path_pop(p, mark);
    }
  }
  free(trigger);
  if (st == MR_OK && mri_json_member(root, "destroyed_not_kept") != NULL)
    st = get_u64(p, root, "destroyed_not_kept", &snap->destroyed_not_kept);
  const mri_json *contexts = st == MR_OK ? get_objects(p, root, "contexts", &st) : NULL;
  if (contexts != NULL && contexts->count > 0) {
    snap->contexts = mri_calloc(contexts->count, sizeof *snap->contexts);
    if (snap->contexts == NULL) st = MR_ERR_OUT_OF_MEMORY;
  }
  for (size_t i = 0; contexts != NULL && i < contexts->count && st == MR_OK; i++) {
    size_t mark = path_push(p, "contexts[%zu]", i);
    st = read_context(p, &contexts->items[i], &snap->contexts[snap->context_count++]);
    path_pop(p, mark);
  }
  const mri_json *pools = st == MR_OK ? get_objects(p, root, "pools", &st) : NULL;
  if (pools != NULL && pools->count > 0) {
    snap->pools = mri_calloc(pools->count, sizeof *snap->pools);
    if (snap->pools == NULL) st = MR_ERR_OUT_OF_MEMORY;
  }
  for (size_t i = 0; pools != NULL && i < pools->count && st == MR_OK; i++) {
    size_t mark = path_push(p, "pools[%zu]", i);
    st = read_pool(p, &pools->items[i], &snap->pools[snap->pool_count++]);
    path_pop(p, mark);
  }
  if (st == MR_OK) st = read_devices(p, root, snap);
  if (st == MR_OK && mri_json_member(root, "idle_memory") != NULL) {
    snap->has_idle = true;
    st = read_idle_list(p, root, "idle_memory", true, &snap->idle, &snap->idle_count);
  }
  return st;
}

mr_status mr_snapshot_read(const char *json, size_t length, mr_snapshot **snapshot) {
  if (snapshot == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_read: snapshot is NULL");
  *snapshot = NULL;
  if (json == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_read: json is NULL");
  mri_json *root;
  mr_status st = mri_json_parse(json, length, "snapshot JSON", &root);
  if (st != MR_OK) return st;
  mr_snapshot *snap = mri_calloc(1, sizeof *snap);
  if (snap != NULL) snap->rank = snap->local_rank = snap->world_size = -1;
  path p = {.length = 0};
  st = snap != NULL ? read_snapshot(&p, root, snap) : MR_ERR_OUT_OF_MEMORY;
  mri_json_free(root);
  if (st != MR_OK) {
    mr_snapshot_destroy(snap);
    if (st == MR_ERR_OUT_OF_MEMORY) return mri_error(st, "mr_snapshot_read: out of host memory");
    return st;
  }
  *snapshot = snap;
  return MR_OK;
}
