/*
 * snapshot_merge.c: several processes' snapshots as one view -- the ranks
 * of a torchrun job, the workers of a Dask cluster, a server and its
 * workers -- as a table and as JSON (schema "mrctx-snapshot-merged",
 * docs/observability.md).
 *
 *   mrctx: 2 snapshots of 2 processes on 1 host
 *   process  host    rank  local  pid     taken                     trigger
 *   0        gpu07   0/2   0      4242    2026-01-01T00:00:00.123Z  request
 *   ...
 *   memory by host, process, device, library and tag
 *   host    rank  pid     device  library:tag    current   peak  ...  spec
 *   gpu07   0/2   4242         0  train:memory  12.0 GiB  ...
 *   ...
 *   totals by host and device
 *   host    device    current  peak (sum)  processes  device memory
 *   gpu07        0   24.0 GiB    30.0 GiB          2  100.0 GiB free of 141.0 GiB (29% in use)
 *   total            24.0 GiB                      2
 *
 * A row is one tag on one device of one process that has allocated, as in
 * one snapshot's table. A device is named by its host and ordinal: device 0
 * of two hosts are two devices. Its memory (free and total) is the one the
 * latest snapshot from that host read; the processes sharing it each count
 * their own bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "context/json.h"
#include "context/snapshot_internal.h"

/* A row of one snapshot, with the snapshot it came from. */
typedef struct merged_row {
  size_t process; /* the snapshot's index in the caller's list */
  const mr_snapshot *snap;
  mri_snap_row row;
} merged_row;

/* One device of one host. */
typedef struct device_total {
  const char *host; /* NULL: unknown */
  int device;
  uint64_t current_bytes, peak_bytes; /* summed over its rows, saturating */
  size_t processes;                   /* processes with a row on it */
  size_t last_process;                /* the last one counted, + 1 */
  const mri_snap_device *memory;      /* the latest reading from its host, or NULL */
  uint64_t memory_time;               /* when that reading was taken */
} device_total;

typedef struct merged {
  merged_row *rows;
  size_t row_count, idle;
  device_total *devices;
  size_t device_count, device_capacity;
  uint64_t current_bytes;
  size_t hosts;
} merged;

static uint64_t add_saturating(uint64_t a, uint64_t b) {
  uint64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

/* Strings that may be unknown (NULL): known ones first, in byte order. */
static int compare_names(const char *a, const char *b) {
  if (a == NULL || b == NULL) return (a == NULL) - (b == NULL);
  return strcmp(a, b);
}

/* Ranks: known ones first, in order. */
static int compare_ranks(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return (a < 0) - (b < 0);
  return a < b ? -1 : a > b;
}

/* By host, process (rank, pid, then the order given), device, library
 * and tag. */
static int by_place(const void *x, const void *y) {
  const merged_row *a = x, *b = y;
  int c = compare_names(a->snap->host, b->snap->host);
  if (c == 0) c = compare_ranks(a->snap->rank, b->snap->rank);
  if (c == 0 && a->snap->pid != b->snap->pid) c = a->snap->pid < b->snap->pid ? -1 : 1;
  if (c == 0 && a->process != b->process) c = a->process < b->process ? -1 : 1;
  if (c == 0 && a->row.slot->device != b->row.slot->device)
    c = a->row.slot->device < b->row.slot->device ? -1 : 1;
  if (c == 0) c = strcmp(a->row.context->library, b->row.context->library);
  if (c == 0) c = strcmp(a->row.tag->name, b->row.tag->name);
  if (c == 0 && a->row.context->id != b->row.context->id)
    c = a->row.context->id < b->row.context->id ? -1 : 1;
  return c;
}

static int by_host_device(const void *x, const void *y) {
  const device_total *a = x, *b = y;
  int c = compare_names(a->host, b->host);
  if (c == 0 && a->device != b->device) c = a->device < b->device ? -1 : 1;
  return c;
}

static bool same_host(const char *a, const char *b) { return compare_names(a, b) == 0; }

/* The total of `host`'s `device`, added when new; NULL without memory. */
static device_total *device_of(merged *m, const char *host, int device) {
  for (size_t i = 0; i < m->device_count; i++)
    if (m->devices[i].device == device && same_host(m->devices[i].host, host))
      return &m->devices[i];
  if (m->device_count == m->device_capacity) {
    size_t capacity = m->device_capacity ? 2 * m->device_capacity : 8;
    device_total *grown = mri_host_realloc(m->devices, capacity * sizeof *grown);
    if (grown == NULL) return NULL;
    m->devices = grown;
    m->device_capacity = capacity;
  }
  device_total *d = &m->devices[m->device_count++];
  *d = (device_total){.host = host, .device = device};
  return d;
}

static void merged_free(merged *m) {
  free(m->rows);
  free(m->devices);
}

/* Gather the rows of every snapshot, sorted, and the totals. */
static mr_status merge(const mr_snapshot *const *snaps, size_t count, merged *m) {
  *m = (merged){.row_count = 0};
  for (size_t i = 0; i < count; i++) {
    mri_snap_row *rows;
    size_t n, idle;
    if (!mri_snapshot_rows(snaps[i], &rows, &n, &idle)) return MR_ERR_OUT_OF_MEMORY;
    merged_row *grown =
        n > 0 ? mri_host_realloc(m->rows, (m->row_count + n) * sizeof *grown) : m->rows;
    if (n > 0 && grown == NULL) {
      free(rows);
      return MR_ERR_OUT_OF_MEMORY;
    }
    m->rows = grown;
    for (size_t r = 0; r < n; r++)
      m->rows[m->row_count++] = (merged_row){.process = i, .snap = snaps[i], .row = rows[r]};
    m->idle += idle;
    free(rows);
    /* Each host's devices' memory, from its latest snapshot. */
    for (size_t d = 0; d < snaps[i]->device_count; d++) {
      const mri_snap_device *reading = &snaps[i]->devices[d];
      device_total *t = device_of(m, snaps[i]->host, reading->device);
      if (t == NULL) return MR_ERR_OUT_OF_MEMORY;
      if (t->memory == NULL || snaps[i]->time_unix_ns >= t->memory_time) {
        t->memory = reading;
        t->memory_time = snaps[i]->time_unix_ns;
      }
    }
  }
  if (m->row_count > 1) qsort(m->rows, m->row_count, sizeof *m->rows, by_place);
  for (size_t r = 0; r < m->row_count; r++) {
    const merged_row *row = &m->rows[r];
    const mr_stats *s = &row->row.slot->stats;
    device_total *t = device_of(m, row->snap->host, row->row.slot->device);
    if (t == NULL) return MR_ERR_OUT_OF_MEMORY;
    t->current_bytes = add_saturating(t->current_bytes, s->current_bytes);
    t->peak_bytes = add_saturating(t->peak_bytes, s->peak_bytes);
    /* A process's rows are together in this order: count it once. */
    if (t->last_process != row->process + 1) {
      t->processes++;
      t->last_process = row->process + 1;
    }
    m->current_bytes = add_saturating(m->current_bytes, s->current_bytes);
  }
  if (m->device_count > 1) qsort(m->devices, m->device_count, sizeof *m->devices, by_host_device);
  for (size_t i = 0; i < count; i++) {
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) seen = same_host(snaps[j]->host, snaps[i]->host);
    if (!seen) m->hosts++;
  }
  return MR_OK;
}

static mr_status check_args(const mr_snapshot *const *snaps, size_t count, FILE *out,
                            const char *who) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
  if (count == 0) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: no snapshots to merge", who);
  if (snaps == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: snapshots is NULL", who);
  for (size_t i = 0; i < count; i++)
    if (snaps[i] == NULL)
      return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: snapshots[%zu] is NULL", who, i);
  return MR_OK;
}

static mr_status finish(FILE *out, const char *who) {
  if (fflush(out) != 0 || ferror(out))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: writing failed: %s", who, strerror(errno));
  return MR_OK;
}

/* ---- text ------------------------------------------------------------------------ */

/* "1/4" (rank of world size), "1", or "-". */
static void format_rank(const mr_snapshot *snap, char *buf, size_t cap) {
  if (snap->rank >= 0 && snap->world_size >= 0)
    snprintf(buf, cap, "%" PRId64 "/%" PRId64, snap->rank, snap->world_size);
  else if (snap->rank >= 0)
    snprintf(buf, cap, "%" PRId64, snap->rank);
  else
    snprintf(buf, cap, "-");
}

static void format_host(const char *host, char *buf, size_t cap) {
  mri_printable(host != NULL ? host : "-", buf, cap);
}

static int host_width(const mr_snapshot *const *snaps, size_t count) {
  int width = 5; /* "total" */
  for (size_t i = 0; i < count; i++) {
    char host[256];
    format_host(snaps[i]->host, host, sizeof host);
    if ((int)strlen(host) > width) width = (int)strlen(host);
  }
  return width;
}

static void write_processes(FILE *out, const mr_snapshot *const *snaps, size_t count,
                            const merged *m, int hw) {
  fprintf(out, "mrctx: %zu snapshot%s of %zu host%s\n", count, count == 1 ? "" : "s", m->hosts,
          m->hosts == 1 ? "" : "s");
  fprintf(out, "%-7s  %-*s %6s %6s %8s  %-24s  %s\n", "process", hw, "host", "rank", "local", "pid",
          "taken", "trigger");
  for (size_t i = 0; i < count; i++) {
    const mr_snapshot *s = snaps[i];
    char host[256], rank[48], local[24], time[64];
    format_host(s->host, host, sizeof host);
    format_rank(s, rank, sizeof rank);
    if (s->local_rank >= 0)
      snprintf(local, sizeof local, "%" PRId64, s->local_rank);
    else
      snprintf(local, sizeof local, "-");
    mri_format_time_utc(s->time_unix_ns, time, sizeof time);
    fprintf(out, "%-7zu  %-*s %6s %6s %8" PRId64 "  %-24s  ", i, hw, host, rank, local, s->pid,
            time);
    if (!s->has_oom) {
      fputs("request\n", out);
      continue;
    }
    char bytes[32];
    mri_format_bytes_human(s->oom.bytes, bytes, sizeof bytes);
    fputs("out of memory: ", out);
    mri_write_printable(out, s->oom.library);
    fputc(':', out);
    mri_write_printable(out, s->oom.tag);
    fprintf(out, " on device %d asked for %s\n", s->oom.device, bytes);
  }
}

static void write_merged_rows(FILE *out, const merged *m, int hw) {
  int lw = 11; /* "library:tag" */
  for (size_t r = 0; r < m->row_count; r++) {
    char name[512];
    mri_snap_row_label(&m->rows[r].row, name, sizeof name);
    if ((int)strlen(name) > lw) lw = (int)strlen(name);
  }
  fprintf(out, "\nmemory by host, process, device, library and tag\n");
  fprintf(out, "%-*s %6s %8s %6s  %-*s %10s %10s %10s %8s %10s %7s  %s\n", hw, "host", "rank",
          "pid", "device", lw, "library:tag", "current", "peak", "total", "live", "allocs",
          "failed", "spec");
  for (size_t r = 0; r < m->row_count; r++) {
    const merged_row *row = &m->rows[r];
    const mr_stats *s = &row->row.slot->stats;
    char host[256], rank[48], name[512], current[32], peak[32], all[32];
    format_host(row->snap->host, host, sizeof host);
    format_rank(row->snap, rank, sizeof rank);
    mri_snap_row_label(&row->row, name, sizeof name);
    mri_format_bytes_human(s->current_bytes, current, sizeof current);
    mri_format_bytes_human(s->peak_bytes, peak, sizeof peak);
    mri_format_bytes_human(s->total_bytes, all, sizeof all);
    fprintf(out,
            "%-*s %6s %8" PRId64 " %6d  %-*s %10s %10s %10s %8" PRIu64 " %10" PRIu64 " %7" PRIu64
            "  ",
            hw, host, rank, row->snap->pid, row->row.slot->device, lw, name, current, peak, all,
            s->current_count, s->total_count, s->failed_count);
    const mri_snap_slot *slot = row->row.slot;
    if (slot->shares != NULL) fputc('@', out);
    mri_write_printable(out, slot->shares != NULL ? slot->shares : slot->spec);
    fputc('\n', out);
  }
  if (m->row_count == 0) fprintf(out, "(no tag has allocated)\n");
  if (m->idle > 0)
    fprintf(out, "(%zu tag and device slot%s that never allocated not shown)\n", m->idle,
            m->idle == 1 ? "" : "s");
}

/* A sum for the table: "> 16 EiB" where it saturated. */
static void format_sum(uint64_t bytes, char *buf, size_t cap) {
  if (bytes == UINT64_MAX)
    snprintf(buf, cap, "> 16 EiB");
  else
    mri_format_bytes_human(bytes, buf, cap);
}

static void write_totals(FILE *out, const merged *m, size_t count, int hw) {
  fprintf(out, "\ntotals by host and device\n");
  fprintf(out, "%-*s %6s %10s %11s %9s  %s\n", hw, "host", "device", "current", "peak (sum)",
          "processes", "device memory");
  for (size_t i = 0; i < m->device_count; i++) {
    const device_total *t = &m->devices[i];
    char host[256], current[32], peak[32];
    format_host(t->host, host, sizeof host);
    format_sum(t->current_bytes, current, sizeof current);
    format_sum(t->peak_bytes, peak, sizeof peak);
    fprintf(out, "%-*s %6d %10s %11s %9zu  ", hw, host, t->device, current, peak, t->processes);
    if (t->memory != NULL)
      mri_write_device_memory(out, t->memory);
    else
      fputs("not read", out);
    fputc('\n', out);
  }
  char all[32];
  format_sum(m->current_bytes, all, sizeof all);
  fprintf(out, "%-*s %6s %10s %11s %9zu\n", hw, "total", "", all, "", count);
}

/* ---- JSON ------------------------------------------------------------------------ */

static void json_str_or_null(FILE *out, const char *text) {
  if (text != NULL)
    mri_json_write_string(out, text);
  else
    fputs("null", out);
}

static void json_count_or_null(FILE *out, int64_t value) {
  if (value >= 0)
    fprintf(out, "%" PRId64, value);
  else
    fputs("null", out);
}

/* "host", "pid", "rank": where a process ran, in every object naming one. */
static void json_where(FILE *out, const mr_snapshot *s) {
  fputs("\"host\": ", out);
  json_str_or_null(out, s->host);
  fprintf(out, ", \"pid\": %" PRId64 ", \"rank\": ", s->pid);
  json_count_or_null(out, s->rank);
}

static void json_processes(FILE *out, const mr_snapshot *const *snaps, size_t count) {
  fputs("  \"processes\": [", out);
  for (size_t i = 0; i < count; i++) {
    const mr_snapshot *s = snaps[i];
    char time[64];
    mri_format_time_utc(s->time_unix_ns, time, sizeof time);
    fprintf(out, "%s\n    {\"process\": %zu, ", i > 0 ? "," : "", i);
    json_where(out, s);
    fputs(", \"local_rank\": ", out);
    json_count_or_null(out, s->local_rank);
    fputs(", \"world_size\": ", out);
    json_count_or_null(out, s->world_size);
    fprintf(out, ", \"time_unix_ns\": %" PRIu64 ", \"time\": \"%s\", \"trigger\": \"%s\"",
            s->time_unix_ns, time, s->has_oom ? "out_of_memory" : "request");
    if (s->has_oom) {
      fputs(", \"out_of_memory\": {\"library\": ", out);
      mri_json_write_string(out, s->oom.library);
      fputs(", \"tag\": ", out);
      mri_json_write_string(out, s->oom.tag);
      fprintf(out, ", \"device\": %d, \"bytes\": %" PRIu64 "}", s->oom.device, s->oom.bytes);
    }
    fputs(", \"mrctx_version\": ", out);
    mri_json_write_string(out, s->mrctx_version);
    fputs("}", out);
  }
  fputs(count > 0 ? "\n  ],\n" : "],\n", out);
}

static void json_rows(FILE *out, const merged *m) {
  fputs("  \"rows\": [", out);
  for (size_t r = 0; r < m->row_count; r++) {
    const merged_row *row = &m->rows[r];
    const mri_snap_slot *slot = row->row.slot;
    fprintf(out, "%s\n    {\"process\": %zu, ", r > 0 ? "," : "", row->process);
    json_where(out, row->snap);
    fprintf(out, ", \"device\": %d, \"library\": ", slot->device);
    mri_json_write_string(out, row->row.context->library);
    fputs(", \"tag\": ", out);
    mri_json_write_string(out, row->row.tag->name);
    fputs(", \"spec\": ", out);
    mri_json_write_string(out, slot->spec);
    if (slot->shares != NULL) {
      fputs(", \"shares\": ", out);
      mri_json_write_string(out, slot->shares);
    }
    fputs(", \"stats\": {", out);
    const char *sep = "";
#define MRI_PUT_STAT_(field, description)                             \
  fprintf(out, "%s\"" #field "\": %" PRIu64, sep, slot->stats.field); \
  sep = ", ";
    MR_STATS_FIELDS(MRI_PUT_STAT_)
#undef MRI_PUT_STAT_
    fputs("}}", out);
  }
  fputs(m->row_count > 0 ? "\n  ],\n" : "],\n", out);
}

static void json_devices(FILE *out, const merged *m) {
  fputs("  \"devices\": [", out);
  for (size_t i = 0; i < m->device_count; i++) {
    const device_total *t = &m->devices[i];
    fprintf(out, "%s\n    {\"host\": ", i > 0 ? "," : "");
    json_str_or_null(out, t->host);
    fprintf(out,
            ", \"device\": %d, \"current_bytes\": %" PRIu64 ", \"peak_bytes\": %" PRIu64
            ", \"processes\": %zu, \"free_bytes\": ",
            t->device, t->current_bytes, t->peak_bytes, t->processes);
    if (t->memory != NULL)
      fprintf(out, "%" PRIu64 ", \"total_bytes\": %" PRIu64 "}", t->memory->free_bytes,
              t->memory->total_bytes);
    else
      fputs("null, \"total_bytes\": null}", out);
  }
  fputs(m->device_count > 0 ? "\n  ],\n" : "],\n", out);
}

static void write_json(FILE *out, const mr_snapshot *const *snapshots, size_t count,
                       const merged *m) {
  fprintf(out, "{\n  \"schema\": \"%s\",\n  \"version\": %d,\n", MR_SNAPSHOT_MERGED_SCHEMA,
          MR_SNAPSHOT_MERGED_VERSION);
  json_processes(out, snapshots, count);
  json_rows(out, m);
  json_devices(out, m);
  fprintf(out,
          "  \"total\": {\"current_bytes\": %" PRIu64 ", \"processes\": %zu, \"hosts\": %zu, "
          "\"rows\": %zu, \"idle_slots\": %zu}\n}\n",
          m->current_bytes, count, m->hosts, m->row_count, m->idle);
}

static void write_text(FILE *out, const mr_snapshot *const *snapshots, size_t count,
                       const merged *m) {
  int hw = host_width(snapshots, count);
  write_processes(out, snapshots, count, m, hw);
  write_merged_rows(out, m, hw);
  write_totals(out, m, count, hw);
}

/* ---- both ------------------------------------------------------------------------ */

static mr_status write_merged(const mr_snapshot *const *snapshots, size_t count, FILE *out,
                              bool json, const char *who) {
  mr_status st = check_args(snapshots, count, out, who);
  if (st != MR_OK) return st;
  merged m;
  if (merge(snapshots, count, &m) != MR_OK) {
    merged_free(&m);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory", who);
  }
  if (json)
    write_json(out, snapshots, count, &m);
  else
    write_text(out, snapshots, count, &m);
  merged_free(&m);
  return finish(out, who);
}

mr_status mr_snapshot_write_merged_text(const mr_snapshot *const *snapshots, size_t count,
                                        FILE *out) {
  return write_merged(snapshots, count, out, false, "mr_snapshot_write_merged_text");
}

mr_status mr_snapshot_write_merged_json(const mr_snapshot *const *snapshots, size_t count,
                                        FILE *out) {
  return write_merged(snapshots, count, out, true, "mr_snapshot_write_merged_json");
}
