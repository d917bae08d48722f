/*
 * snapshot_text.c: a snapshot as tables for people.
 *
 *   mrctx snapshot of pid 4242 at 2025-06-01T10:00:00.123Z (mrctx 0.2.0)
 *   out of memory: liba:temp on device 0 asked for 8.0 GiB on stream 0x0
 *     retry(device): still out of memory ...
 *
 *   memory by library, tag and device, most held first
 *   library:tag   device    current       peak      total     live   allocs  failed  spec
 *   liba:temp          0   60.0 GiB   60.0 GiB    1.2 TiB       12     4096       1  retry(...)
 *   ...
 *   total                 63.0 GiB
 *
 * then the caches, the largest live blocks of tracked tags, and the driver
 * pools. Tag and device slots that never allocated are counted, not listed.
 *
 * Every string of the snapshot (names, specs, messages: a snapshot read
 * from a file holds whatever its writer put there) goes out through
 * mri_write_printable or mri_printable, so none can drive the terminal.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "context/json.h"
#include "context/snapshot_internal.h"

/* Computed here, not by gmtime_r: glibc's gmtime_r and localtime_r take a
 * process-wide lock (tzset_lock) that fork() leaves as it was, so a child
 * forked while another thread was inside one of them (this function in a
 * snapshot, or the application's own time formatting) would wait for it
 * forever at its first snapshot (docs/semantics.md, "fork()"). The date of
 * day `days` after 1970-01-01 in the proleptic Gregorian calendar is
 * Howard Hinnant's civil_from_days, for days >= 0. */
void mri_format_time_utc(uint64_t unix_ns, char *buf, size_t cap) {
  uint64_t seconds = unix_ns / 1000000000u;
  uint64_t days = seconds / 86400u, of_day = seconds % 86400u;
  uint64_t shifted = days + 719468u; /* days since 0000-03-01 */
  uint64_t era = shifted / 146097u;  /* 400-year cycles */
  uint64_t of_era = shifted - era * 146097u;
  uint64_t year_of_era = (of_era - of_era / 1460u + of_era / 36524u - of_era / 146096u) / 365u;
  uint64_t of_year = of_era - (365u * year_of_era + year_of_era / 4u - year_of_era / 100u);
  uint64_t march_month = (5u * of_year + 2u) / 153u; /* 0 is March */
  unsigned day = (unsigned)(of_year - (153u * march_month + 2u) / 5u + 1u);
  unsigned month = (unsigned)(march_month < 10u ? march_month + 3u : march_month - 9u);
  uint64_t year = era * 400u + year_of_era + (month <= 2u);
  snprintf(buf, cap, "%04" PRIu64 "-%02u-%02uT%02u:%02u:%02u.%03uZ", year, month, day,
           (unsigned)(of_day / 3600u), (unsigned)(of_day / 60u % 60u), (unsigned)(of_day % 60u),
           (unsigned)(unix_ns / 1000000u % 1000u));
}

static void format_age(uint64_t ns, char *buf, size_t cap) {
  if (ns < 1000000u)
    snprintf(buf, cap, "%.1f us", (double)ns / 1e3);
  else if (ns < 1000000000u)
    snprintf(buf, cap, "%.1f ms", (double)ns / 1e6);
  else if (ns < 120000000000u)
    snprintf(buf, cap, "%.1f s", (double)ns / 1e9);
  else
    snprintf(buf, cap, "%.1f min", (double)ns / 6e10);
}

typedef mri_snap_row row;

static int by_current_bytes(const void *a, const void *b) {
  const row *x = a, *y = b;
  uint64_t cx = x->slot->stats.current_bytes, cy = y->slot->stats.current_bytes;
  if (cx != cy) return cx > cy ? -1 : 1;
  if (x->context->id != y->context->id) return x->context->id < y->context->id ? -1 : 1;
  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  return x->slot->device - y->slot->device;
}

static bool has_allocated(const mri_snap_slot *s) {
  return s->stats.total_count > 0 || s->stats.failed_count > 0 || s->stats.current_bytes > 0;
}

void mri_snap_row_label(const row *r, char *buf, size_t cap) {
  mri_printable(r->context->library, buf, cap);
  size_t n = strlen(buf);
  if (n + 1 < cap) {
    buf[n] = ':';
    mri_printable(r->tag->name, buf + n + 1, cap - n - 1);
  }
  /* A context destroyed before the snapshot (MRCTX_STATS_AT_EXIT). */
  n = strlen(buf);
  if (r->context->destroyed == 1)
    snprintf(buf + n, cap - n, " (destroyed)");
  else if (r->context->destroyed > 1)
    snprintf(buf + n, cap - n, " (%" PRIu64 " destroyed)", r->context->destroyed);
}

void mri_write_launcher(FILE *out, const mr_snapshot *snap) {
  if (snap->host == NULL && snap->rank < 0 && snap->local_rank < 0 && snap->world_size < 0) return;
  fputs("host ", out);
  mri_write_printable(out, snap->host != NULL ? snap->host : "unknown");
  if (snap->rank >= 0) {
    fprintf(out, ", rank %" PRId64, snap->rank);
    if (snap->world_size >= 0) fprintf(out, " of %" PRId64, snap->world_size);
  } else if (snap->world_size >= 0) {
    fprintf(out, ", world size %" PRId64, snap->world_size);
  }
  if (snap->local_rank >= 0) fprintf(out, ", local rank %" PRId64, snap->local_rank);
  fputc('\n', out);
}

static void write_header(const mr_snapshot *snap, FILE *out) {
  char time[64];
  mri_format_time_utc(snap->time_unix_ns, time, sizeof time);
  fprintf(out, "mrctx snapshot of pid %" PRId64 " at %s (mrctx ", snap->pid, time);
  mri_write_printable(out, snap->mrctx_version);
  fputs(")\n", out);
  mri_write_launcher(out, snap);
  if (!snap->has_oom) return;
  const mri_snap_oom *o = &snap->oom;
  char bytes[32];
  mri_format_bytes_human(o->bytes, bytes, sizeof bytes);
  fputs("out of memory: ", out);
  mri_write_printable(out, o->library);
  fputc(':', out);
  mri_write_printable(out, o->tag);
  fprintf(out, " on device %d asked for %s (%" PRIu64 " bytes) on stream 0x%" PRIx64 "\n  ",
          o->device, bytes, o->bytes, o->stream);
  mri_write_printable(out, o->message);
  fputc('\n', out);
  if (!o->has_reclaim) return;
  if (o->reclaim_shared) {
    fputs("  it shared another thread's process-wide reclaim, which did not make room\n", out);
    return;
  }
  char released[32], kept[32];
  mri_format_bytes_human(o->reclaim_released, released, sizeof released);
  mri_format_bytes_human(o->reclaim_kept, kept, sizeof kept);
  fprintf(out,
          "  the process-wide reclaim before it took back %s from %" PRIu64
          " resource%s in %.3f ms; %s stayed idle\n",
          released, o->reclaim_resources, o->reclaim_resources == 1 ? "" : "s",
          (double)o->reclaim_ns / 1e6, kept);
}

static void write_rows(FILE *out, row *rows, size_t count, size_t idle) {
  int width = 11; /* "library:tag" */
  for (size_t i = 0; i < count; i++) {
    char name[512];
    mri_snap_row_label(&rows[i], name, sizeof name);
    if ((int)strlen(name) > width) width = (int)strlen(name);
  }
  fprintf(out, "\nmemory by library, tag and device, most held first\n");
  fprintf(out, "%-*s %6s %10s %10s %10s %8s %10s %7s  %s\n", width, "library:tag", "device",
          "current", "peak", "total", "live", "allocs", "failed", "spec");
  uint64_t total = 0;
  for (size_t i = 0; i < count; i++) {
    const row *r = &rows[i];
    const mr_stats *s = &r->slot->stats;
    char name[512], current[32], peak[32], all[32];
    mri_snap_row_label(r, name, sizeof name);
    mri_format_bytes_human(s->current_bytes, current, sizeof current);
    mri_format_bytes_human(s->peak_bytes, peak, sizeof peak);
    mri_format_bytes_human(s->total_bytes, all, sizeof all);
    fprintf(out, "%-*s %6d %10s %10s %10s %8" PRIu64 " %10" PRIu64 " %7" PRIu64 "  ", width, name,
            r->slot->device, current, peak, all, s->current_count, s->total_count, s->failed_count);
    if (r->slot->shares != NULL) fputc('@', out);
    mri_write_printable(out, r->slot->shares != NULL ? r->slot->shares : r->slot->spec);
    fputc('\n', out);
    /* A snapshot from a file may claim any counts: the total saturates. */
    if (__builtin_add_overflow(total, s->current_bytes, &total)) total = UINT64_MAX;
  }
  char sum[32];
  mri_format_bytes_human(total, sum, sizeof sum);
  if (total == UINT64_MAX) snprintf(sum, sizeof sum, "> 16 EiB");
  fprintf(out, "%-*s %6s %10s\n", width, "total", "", sum);
  if (count == 0) fprintf(out, "(no tag has allocated)\n");
  if (idle > 0)
    fprintf(out, "(%zu tag and device slot%s that never allocated not shown)\n", idle,
            idle == 1 ? "" : "s");
}

static void write_unavailable(FILE *out, const mr_snapshot *snap) {
  bool first = true;
  for (size_t c = 0; c < snap->context_count; c++) {
    const mri_snap_context *ctx = &snap->contexts[c];
    for (size_t t = 0; t < ctx->tag_count; t++) {
      for (size_t d = 0; d < ctx->tags[t].slot_count; d++) {
        const mri_snap_slot *s = &ctx->tags[t].slots[d];
        if (s->status == NULL || s->shares != NULL) continue;
        if (first) fprintf(out, "\ntags that cannot allocate here\n");
        first = false;
        mri_write_printable(out, ctx->library);
        fputc(':', out);
        mri_write_printable(out, ctx->tags[t].name);
        fprintf(out, " on device %d: ", s->device);
        mri_write_printable(out, s->status);
        fputs(": ", out);
        mri_write_printable(out, s->reason);
        fputc('\n', out);
      }
    }
  }
}

static void write_caches(FILE *out, const row *rows, size_t count) {
  bool first = true;
  for (size_t i = 0; i < count; i++) {
    const mri_snap_slot *s = rows[i].slot;
    if (!s->has_cache) continue;
    if (first) fprintf(out, "\ncaches\n");
    first = false;
    char name[512], cached[32];
    mri_snap_row_label(&rows[i], name, sizeof name);
    mri_format_bytes_human(s->cache.cached_bytes, cached, sizeof cached);
    fprintf(out,
            "%s on device %d: %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64
            " from other streams, %" PRIu64 " bypassed, %s cached in %" PRIu64 " blocks, %" PRIu64
            " given back\n",
            name, s->device, s->cache.hits, s->cache.misses, s->cache.cross_stream,
            s->cache.bypassed, cached, s->cache.cached_blocks, s->cache.trims);
  }
}

/* One line of the idle table: a keeping resource and whose it is. */
typedef struct idle_row {
  char label[512];
  int device;
  const mri_snap_idle *idle;
} idle_row;

static int by_idle_bytes(const void *a, const void *b) {
  const idle_row *x = a, *y = b;
  if (x->idle->idle_bytes != y->idle->idle_bytes)
    return x->idle->idle_bytes > y->idle->idle_bytes ? -1 : 1;
  if (x->idle->reclaimed_bytes != y->idle->reclaimed_bytes)
    return x->idle->reclaimed_bytes > y->idle->reclaimed_bytes ? -1 : 1;
  int c = strcmp(x->label, y->label);
  return c != 0 ? c : x->device - y->device;
}

/* Every resource that keeps idle memory, most idle first: the process's
 * list where the snapshot has one (resources made directly and the
 * driver's default pools too, "-" for whose), else the tags' chains. */
static bool write_idle(FILE *out, const mr_snapshot *snap, const row *rows, size_t count) {
  size_t n = 0;
  if (snap->has_idle) {
    n = snap->idle_count;
  } else {
    for (size_t i = 0; i < count; i++) n += rows[i].slot->idle_count;
  }
  if (n == 0) return true;
  idle_row *lines = mri_calloc(n, sizeof *lines);
  if (lines == NULL) return false;
  size_t k = 0;
  if (snap->has_idle) {
    for (size_t i = 0; i < snap->idle_count; i++, k++) {
      const mri_snap_idle *e = &snap->idle[i];
      mri_printable(e->owner != NULL ? e->owner : "-", lines[k].label, sizeof lines[k].label);
      lines[k].device = e->device;
      lines[k].idle = e;
    }
  } else {
    for (size_t i = 0; i < count; i++) {
      for (size_t j = 0; j < rows[i].slot->idle_count; j++, k++) {
        mri_snap_row_label(&rows[i], lines[k].label, sizeof lines[k].label);
        lines[k].device = rows[i].slot->device;
        lines[k].idle = &rows[i].slot->idle[j];
      }
    }
  }
  qsort(lines, n, sizeof *lines, by_idle_bytes);
  int width = 11; /* "library:tag" */
  for (size_t i = 0; i < n; i++)
    if ((int)strlen(lines[i].label) > width) width = (int)strlen(lines[i].label);
  fprintf(out, "\nidle memory, most first (the process-wide reclaim gives it back when memory "
               "runs out, except keep=yes)\n");
  fprintf(out, "%-*s %6s %10s %8s %10s %9s  %s\n", width, "library:tag", "device", "idle",
          "reclaims", "taken back", "ms", "resource");
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    const mri_snap_idle *e = lines[i].idle;
    char idle[32], back[32], device[16];
    mri_format_bytes_human(e->idle_bytes, idle, sizeof idle);
    mri_format_bytes_human(e->reclaimed_bytes, back, sizeof back);
    if (lines[i].device >= 0)
      snprintf(device, sizeof device, "%d", lines[i].device);
    else
      snprintf(device, sizeof device, "host");
    fprintf(out, "%-*s %6s %10s %8" PRIu64 " %10s %9.3f  ", width, lines[i].label, device, idle,
            e->reclaims, back, (double)e->reclaim_ns / 1e6);
    mri_write_printable(out, e->resource);
    fputc('\n', out);
    if (__builtin_add_overflow(total, e->idle_bytes, &total)) total = UINT64_MAX;
  }
  /* Idle bytes add up (a cache's are in use for its pool); what reclaims
   * took back does not: a pool's count includes what adaptors gave it. */
  char sum[32];
  mri_format_bytes_human(total, sum, sizeof sum);
  if (total == UINT64_MAX) snprintf(sum, sizeof sum, "> 16 EiB");
  fprintf(out, "%-*s %6s %10s\n", width, "total", "", sum);
  free(lines);
  return true;
}

static void write_blocks(FILE *out, const row *rows, size_t count) {
  for (size_t i = 0; i < count; i++) {
    const mri_snap_slot *s = rows[i].slot;
    if (!s->has_track) continue;
    char name[512], live[32];
    mri_snap_row_label(&rows[i], name, sizeof name);
    mri_format_bytes_human(s->track_live_bytes, live, sizeof live);
    fprintf(out, "\nlargest live blocks of %s on device %d (%" PRIu64 " live, %s)\n", name,
            s->device, s->track_live_count, live);
    if (s->block_count == 0) continue;
    fprintf(out, "%10s %10s %18s  %s\n", "size", "age", "stream", "address");
    for (size_t b = 0; b < s->block_count; b++) {
      const mri_snap_block *blk = &s->blocks[b];
      char size[32], age[32], stream[24];
      mri_format_bytes_human(blk->bytes, size, sizeof size);
      format_age(blk->age_ns, age, sizeof age);
      snprintf(stream, sizeof stream, "0x%" PRIx64, blk->stream);
      fprintf(out, "%10s %10s %18s  0x%" PRIx64 "\n", size, age, stream, blk->ptr);
      for (size_t f = 0; f < blk->frame_count; f++) {
        fprintf(out, "%42s", "at ");
        mri_write_printable(out, blk->frames[f]);
        fputc('\n', out);
      }
    }
  }
}

void mri_write_device_memory(FILE *out, const mri_snap_device *d) {
  char free_now[32], total[32];
  mri_format_bytes_human(d->free_bytes, free_now, sizeof free_now);
  mri_format_bytes_human(d->total_bytes, total, sizeof total);
  fprintf(out, "%s free of %s", free_now, total);
  if (d->total_bytes > 0 && d->free_bytes <= d->total_bytes)
    fprintf(out, " (%.0f%% in use)",
            100.0 * (double)(d->total_bytes - d->free_bytes) / (double)d->total_bytes);
}

static void write_devices(FILE *out, const mr_snapshot *snap) {
  if (snap->device_count == 0) return;
  fprintf(out, "\ndevice memory (every process's use counts)\n");
  for (size_t i = 0; i < snap->device_count; i++) {
    fprintf(out, "device %d: ", snap->devices[i].device);
    mri_write_device_memory(out, &snap->devices[i]);
    fputc('\n', out);
  }
}

static void write_pools(FILE *out, const mr_snapshot *snap) {
  if (snap->pool_count == 0) {
    fprintf(out, "\ndriver pools: none read (the CUDA driver is not loaded, or has no "
                 "devices)\n");
    return;
  }
  fprintf(out, "\ndriver pools\n%-16s %-22s %10s %10s %10s %10s %10s\n", "pool", "owner",
          "reserved", "used", "res. high", "used high", "keeps");
  for (size_t i = 0; i < snap->pool_count; i++) {
    const mri_snap_pool *p = &snap->pools[i];
    char reserved[32], used[32], reserved_high[32], used_high[32], keeps[32], where[64];
    mri_format_bytes_human(p->info.reserved_bytes, reserved, sizeof reserved);
    mri_format_bytes_human(p->info.used_bytes, used, sizeof used);
    mri_format_bytes_human(p->info.reserved_high, reserved_high, sizeof reserved_high);
    mri_format_bytes_human(p->info.used_high, used_high, sizeof used_high);
    if (p->info.release_threshold == MR_POOL_RELEASE_MAX)
      snprintf(keeps, sizeof keeps, "all");
    else
      mri_format_bytes_human(p->info.release_threshold, keeps, sizeof keeps);
    if (p->info.device >= 0)
      snprintf(where, sizeof where, "%s %d", mr_pool_kind_name(p->info.kind), p->info.device);
    else
      snprintf(where, sizeof where, "%s", mr_pool_kind_name(p->info.kind));
    char pool[96], owner[256];
    snprintf(pool, sizeof pool, "%s%s", where,
             strcmp(p->which, "owned") == 0            ? " owned"
             : strcmp(p->which, "device_default") == 0 ? " default"
             : p->info.is_default                      ? ""
                                                       : " set");
    mri_printable(p->owner != NULL ? p->owner : "-", owner, sizeof owner);
    fprintf(out, "%-16s %-22s %10s %10s %10s %10s %10s\n", pool, owner, reserved, used,
            reserved_high, used_high, keeps);
  }
}

bool mri_snapshot_rows(const mr_snapshot *snap, row **rows_out, size_t *count_out, size_t *idle) {
  size_t slots = 0;
  for (size_t c = 0; c < snap->context_count; c++)
    for (size_t t = 0; t < snap->contexts[c].tag_count; t++)
      slots += snap->contexts[c].tags[t].slot_count;
  row *rows = slots > 0 ? mri_calloc(slots, sizeof *rows) : NULL;
  if (slots > 0 && rows == NULL) return false;
  size_t count = 0;
  for (size_t c = 0; c < snap->context_count; c++) {
    const mri_snap_context *ctx = &snap->contexts[c];
    for (size_t t = 0; t < ctx->tag_count; t++)
      for (size_t d = 0; d < ctx->tags[t].slot_count; d++)
        if (has_allocated(&ctx->tags[t].slots[d]))
          rows[count++] = (row){ctx, &ctx->tags[t], &ctx->tags[t].slots[d]};
  }
  *rows_out = rows;
  *count_out = count;
  *idle = slots - count;
  return true;
}

mr_status mr_snapshot_write_text(const mr_snapshot *snap, FILE *out) {
  if (snap == NULL || out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_write_text: NULL argument");
  row *rows;
  size_t count, idle;
  if (!mri_snapshot_rows(snap, &rows, &count, &idle))
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_snapshot_write_text: out of host memory");
  if (count > 1) qsort(rows, count, sizeof *rows, by_current_bytes);
  write_header(snap, out);
  write_rows(out, rows, count, idle);
  if (snap->destroyed_not_kept > 0)
    fprintf(out, "(%" PRIu64 " destroyed context%s counted but not kept)\n",
            snap->destroyed_not_kept, snap->destroyed_not_kept == 1 ? "" : "s");
  write_unavailable(out, snap);
  write_caches(out, rows, count);
  if (!write_idle(out, snap, rows, count)) {
    free(rows);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_snapshot_write_text: out of host memory");
  }
  write_blocks(out, rows, count);
  write_devices(out, snap);
  write_pools(out, snap);
  free(rows);
  if (fflush(out) != 0 || ferror(out))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_snapshot_write_text: writing failed: %s",
                     strerror(errno));
  return MR_OK;
}
