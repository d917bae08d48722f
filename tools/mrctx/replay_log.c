/*
 * replay_log.c: read an rmm-format allocation log into memory and check it
 * (replay_log.h says what is accepted).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MRCTX_HAVE_ZLIB
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#endif

#include "replay_log.h"

#define LOG_HEADER "Thread,Time,Action,Pointer,Size,Stream"
#define FIELD_COUNT 6
#define QUOTE_MAX 40 /* characters of a bad field shown in a message */
/* The longest line read, without its end of line: the log adaptor's lines
 * are at most 160 bytes and rmm's about as long, so this is no limit on a
 * log, only on what a broken or foreign file costs in memory. */
#define LINE_LIMIT ((size_t)1 << 20)
#define LINE_LIMIT_TEXT "1 MiB"

/* ---- a map from 64-bit keys, open addressing ------------------------------ */

typedef struct map_entry {
  uint64_t key;
  uint64_t size;   /* pointers: the block's bytes */
  uint32_t value;  /* pointers: the block's slot; streams and threads: the index */
  uint32_t line;   /* pointers: the line that allocated it */
  uint32_t thread; /* pointers: the index of the thread that allocated it */
  bool used;
} map_entry;

typedef struct map {
  map_entry *entries;
  size_t capacity, count; /* capacity: a power of two, at least twice count */
} map;

static size_t map_home(const map *m, uint64_t key) {
  key ^= key >> 33; /* a 64-bit mix (murmur3's finalizer): pointers share low bits */
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (size_t)key & (m->capacity - 1);
}

static map_entry *map_find(const map *m, uint64_t key) {
  if (m->capacity == 0) return NULL;
  for (size_t i = map_home(m, key);; i = (i + 1) & (m->capacity - 1)) {
    if (!m->entries[i].used) return NULL;
    if (m->entries[i].key == key) return &m->entries[i];
  }
}

/* The entry for a key not in the map, added (all but key and used zero); NULL
 * when out of memory. */
static map_entry *map_add(map *m, uint64_t key) {
  if (2 * (m->count + 1) > m->capacity) {
    size_t capacity = m->capacity ? 2 * m->capacity : 64;
    map_entry *entries = calloc(capacity, sizeof *entries);
    if (entries == NULL) return NULL;
    map old = *m;
    m->entries = entries;
    m->capacity = capacity;
    for (size_t i = 0; i < old.capacity; i++) {
      if (!old.entries[i].used) continue;
      size_t j = map_home(m, old.entries[i].key);
      while (m->entries[j].used) j = (j + 1) & (capacity - 1);
      m->entries[j] = old.entries[i];
    }
    free(old.entries);
  }
  size_t i = map_home(m, key);
  while (m->entries[i].used) i = (i + 1) & (m->capacity - 1);
  m->entries[i] = (map_entry){.key = key, .used = true};
  m->count++;
  return &m->entries[i];
}

/* Remove an entry, shifting later entries of its probe run back so that
 * lookups need no tombstones. */
static void map_remove(map *m, map_entry *e) {
  size_t mask = m->capacity - 1, hole = (size_t)(e - m->entries);
  for (size_t i = (hole + 1) & mask; m->entries[i].used; i = (i + 1) & mask) {
    size_t home = map_home(m, m->entries[i].key);
    /* Move entry i into the hole unless its home lies cyclically in (hole, i]. */
    bool stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
    if (!stays) {
      m->entries[hole] = m->entries[i];
      hole = i;
    }
  }
  m->entries[hole].used = false;
  m->count--;
}

/* ---- bad lines ---------------------------------------------------------------- */

static const struct {
  const char *name, *key;
} bad_kinds[REPLAY_BAD_KIND_COUNT] = {
    [REPLAY_BAD_FIELDS] = {"not six fields", "fields"},
    [REPLAY_BAD_TRUNCATED] = {"truncated", "truncated"},
    [REPLAY_BAD_ACTION] = {"unknown action", "unknown_action"},
    [REPLAY_BAD_NUMBER] = {"bad number", "bad_number"},
    [REPLAY_BAD_FREE] = {"free of a pointer not allocated", "free_not_allocated"},
    [REPLAY_BAD_FREE_SIZE] = {"free with another size", "free_size_mismatch"},
    [REPLAY_BAD_REALLOCATE] = {"pointer allocated twice", "allocated_twice"},
    [REPLAY_BAD_NULL] = {"allocation at address 0", "null_allocation"},
    [REPLAY_BAD_OVERFLOW] = {"bytes live past 2^64 - 1", "bytes_overflow"},
};

const char *replay_bad_kind_name(replay_bad_kind kind) { return bad_kinds[kind].name; }

const char *replay_bad_kind_key(replay_bad_kind kind) { return bad_kinds[kind].key; }

uint64_t replay_log_skipped(const replay_log *log) {
  uint64_t total = 0;
  for (int k = 0; k < REPLAY_BAD_KIND_COUNT; k++) total += log->skipped[k];
  return total;
}

/* Field text for a message: at most QUOTE_MAX characters, anything not
 * printable as '?'. */
static const char *quoted(const char *text, char *buf, size_t cap) {
  size_t n = 0;
  for (; text[n] != '\0' && n < QUOTE_MAX && n + 4 < cap; n++)
    buf[n] = isprint((unsigned char)text[n]) ? text[n] : '?';
  if (text[n] != '\0' && n + 4 <= cap) {
    memcpy(buf + n, "...", 3);
    n += 3;
  }
  buf[n] = '\0';
  return buf;
}

/* ---- fields --------------------------------------------------------------------- */

static bool parse_decimal(const char *s, uint64_t *out) {
  if (*s == '\0') return false;
  uint64_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

/* Hexadecimal with or without 0x; "(nil)" is 0 (glibc's %p of NULL). */
static bool parse_hex(const char *s, uint64_t *out) {
  if (strcmp(s, "(nil)") == 0) {
    *out = 0;
    return true;
  }
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
  if (*s == '\0' || strlen(s) > 16) return false;
  uint64_t v = 0;
  for (; *s; s++) {
    if (!isxdigit((unsigned char)*s)) return false;
    v = v * 16 + (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' : tolower(*s) - 'a' + 10);
  }
  *out = v;
  return true;
}

/* Digits, then an optional fraction: whole units and a fraction of one. */
static bool parse_seconds(const char *s, double *out) {
  uint64_t whole = 0;
  const char *dot = strchr(s, '.');
  size_t n = dot ? (size_t)(dot - s) : strlen(s);
  char digits[24];
  if (n == 0 || n >= sizeof digits) return false;
  memcpy(digits, s, n);
  digits[n] = '\0';
  if (!parse_decimal(digits, &whole)) return false;
  double fraction = 0, scale = 0.1;
  if (dot != NULL) {
    if (dot[1] == '\0') return false;
    for (const char *f = dot + 1; *f; f++, scale /= 10) {
      if (*f < '0' || *f > '9') return false;
      fraction += (*f - '0') * scale;
    }
  }
  *out = (double)whole + fraction;
  return true;
}

/* "HH:MM:SS.ffffff" (the clock time the log adaptors write), or seconds. */
static bool parse_time(const char *s, double *out) {
  const char *c1 = strchr(s, ':');
  if (c1 == NULL) return parse_seconds(s, out);
  unsigned h, m;
  int used = 0;
  if (sscanf(s, "%2u:%2u:%n", &h, &m, &used) != 2 || used != 6 || h > 23 || m > 59 ||
      !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) ||
      !isdigit((unsigned char)s[3]) || !isdigit((unsigned char)s[4]))
    return false;
  double sec;
  if (!isdigit((unsigned char)s[6]) || !isdigit((unsigned char)s[7]) ||
      (s[8] != '\0' && s[8] != '.') || !parse_seconds(s + 6, &sec) || sec >= 61)
    return false;
  *out = h * 3600.0 + m * 60.0 + sec;
  return true;
}

/* ---- the reader ------------------------------------------------------------------ */

typedef struct reader {
  replay_log *log;
  bool skip_bad;
  size_t line;
  char *why;
  size_t cap;
  bool failed;   /* a bad line ended the read (why says which) */
  bool line_bad; /* bad() was called for the current line */
  map pointers, streams, threads;
  uint32_t *free_slots; /* slots of freed blocks, for reuse */
  size_t free_slot_count, free_slot_capacity;
  size_t event_capacity, stream_capacity, thread_capacity;
  double last_clock, day_offset; /* Time seen so far, and the midnights passed */
  bool have_clock;
  bool keep_pointers; /* fill log->pointers */
} reader;

static bool out_of_memory(reader *r) {
  snprintf(r->why, r->cap, "%s: out of host memory at line %zu", r->log->path, r->line);
  return false;
}

/* A bad line: fatal (false, why says it), or with skip_bad counted (true). */
static bool bad(reader *r, replay_bad_kind kind, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static bool bad(reader *r, replay_bad_kind kind, const char *format, ...) {
  r->line_bad = true;
  char problem[512];
  va_list args;
  va_start(args, format);
  vsnprintf(problem, sizeof problem, format, args);
  va_end(args);
  if (r->skip_bad) {
    if (replay_log_skipped(r->log) == 0)
      snprintf(r->log->first_skipped, sizeof r->log->first_skipped, "line %zu: %s", r->line,
               problem);
    r->log->skipped[kind]++;
    return true;
  }
  snprintf(r->why, r->cap, "%s:%zu: %s", r->log->path, r->line, problem);
  r->failed = true;
  return false;
}

static bool add_event(reader *r, replay_event e, uint64_t pointer) {
  replay_log *log = r->log;
  if (log->event_count == r->event_capacity) {
    size_t capacity = r->event_capacity ? 2 * r->event_capacity : 4096;
    replay_event *grown = realloc(log->events, capacity * sizeof *grown);
    if (grown == NULL) return out_of_memory(r);
    log->events = grown;
    if (r->keep_pointers) {
      uint64_t *pointers = realloc(log->pointers, capacity * sizeof *pointers);
      if (pointers == NULL) return out_of_memory(r);
      log->pointers = pointers;
    }
    r->event_capacity = capacity;
  }
  if (r->keep_pointers) log->pointers[log->event_count] = pointer;
  log->events[log->event_count++] = e;
  return true;
}

/* The index of a Stream or Thread value in `values` (the log's list of
 * them, *count long, room for *capacity), adding it on first sight. */
static bool value_index(reader *r, map *seen, uint64_t **values, size_t *count, size_t *capacity,
                        uint64_t value, uint32_t *index) {
  map_entry *e = map_find(seen, value);
  if (e != NULL) {
    *index = e->value;
    return true;
  }
  if (*count == *capacity) {
    size_t grown_capacity = *capacity ? 2 * *capacity : 8;
    uint64_t *grown = realloc(*values, grown_capacity * sizeof *grown);
    if (grown == NULL) return out_of_memory(r);
    *values = grown;
    *capacity = grown_capacity;
  }
  e = map_add(seen, value);
  if (e == NULL) return out_of_memory(r);
  e->value = *index = (uint32_t)*count;
  (*values)[(*count)++] = value;
  return true;
}

static bool stream_index(reader *r, uint64_t value, uint32_t *index) {
  return value_index(r, &r->streams, &r->log->streams, &r->log->stream_count, &r->stream_capacity,
                     value, index);
}

static bool thread_index(reader *r, uint64_t value, uint32_t *index) {
  return value_index(r, &r->threads, &r->log->threads, &r->log->thread_count, &r->thread_capacity,
                     value, index);
}

/* Seconds since the first event, never decreasing: a clock time that goes
 * back by more than half a day has passed midnight, and a smaller step back
 * (threads take the time before they take the log's lock) is held level. */
static double event_time(reader *r, double clock) {
  clock += r->day_offset;
  if (!r->have_clock) {
    r->log->start_clock = r->last_clock = clock;
    r->have_clock = true;
  }
  if (clock < r->last_clock - 43200) {
    r->day_offset += 86400;
    clock += 86400;
  }
  if (clock > r->last_clock) r->last_clock = clock;
  return r->last_clock - r->log->start_clock;
}

static bool take_slot(reader *r, uint32_t *slot) {
  if (r->free_slot_count > 0) {
    *slot = r->free_slots[--r->free_slot_count];
    return true;
  }
  if (r->log->block_slots >= UINT32_MAX) return out_of_memory(r);
  *slot = (uint32_t)r->log->block_slots++;
  return true;
}

static bool give_slot(reader *r, uint32_t slot) {
  if (r->free_slot_count == r->free_slot_capacity) {
    size_t capacity = r->free_slot_capacity ? 2 * r->free_slot_capacity : 256;
    uint32_t *grown = realloc(r->free_slots, capacity * sizeof *grown);
    if (grown == NULL) return out_of_memory(r);
    r->free_slots = grown;
    r->free_slot_capacity = capacity;
  }
  r->free_slots[r->free_slot_count++] = slot;
  return true;
}

/* A line's fields, as written. */
typedef struct parsed_line {
  uint64_t thread, pointer, size, stream;
  double clock;
  replay_action action;
} parsed_line;

/* Split `text` at its commas into fields[], spaces around each field
 * trimmed; returns how many fields there were (fields[] holds at most
 * FIELD_COUNT + 1 of them). */
static size_t split_fields(char *text, char *fields[FIELD_COUNT + 1]) {
  size_t n = 0;
  for (char *s = text;;) {
    char *comma = strchr(s, ',');
    if (n <= FIELD_COUNT) fields[n] = s;
    n++;
    if (comma == NULL) break;
    *comma = '\0';
    s = comma + 1;
  }
  for (size_t i = 0; i < n && i <= FIELD_COUNT; i++) {
    while (*fields[i] == ' ' || *fields[i] == '\t') fields[i]++;
    size_t len = strlen(fields[i]);
    while (len > 0 && (fields[i][len - 1] == ' ' || fields[i][len - 1] == '\t'))
      fields[i][--len] = '\0';
  }
  return n;
}

static bool parse_action(const char *text, replay_action *action) {
  if (strcmp(text, "allocate") == 0)
    *action = REPLAY_ALLOCATE;
  else if (strcmp(text, "allocate failure") == 0)
    *action = REPLAY_ALLOCATE_FAILURE;
  else if (strcmp(text, "free") == 0 || strcmp(text, "deallocate") == 0)
    *action = REPLAY_FREE;
  else
    return false;
  return true;
}

/* The six fields of an event line into *p. A bad line calls bad(), whose
 * answer it returns (true: skipped, the read goes on). */
static bool parse_line(reader *r, char *text, parsed_line *p) {
  char *fields[FIELD_COUNT + 1];
  size_t n = split_fields(text, fields);
  if (n != FIELD_COUNT)
    return bad(r, REPLAY_BAD_FIELDS, "%zu field%s, wanted 6 (%s)", n, n == 1 ? "" : "s",
               LOG_HEADER);
  char q[QUOTE_MAX + 8];
  if (!parse_decimal(fields[0], &p->thread))
    return bad(r, REPLAY_BAD_NUMBER, "Thread '%s' is not a decimal thread id",
               quoted(fields[0], q, sizeof q));
  if (!parse_time(fields[1], &p->clock))
    return bad(r, REPLAY_BAD_NUMBER, "Time '%s' is not HH:MM:SS.ffffff or seconds",
               quoted(fields[1], q, sizeof q));
  if (!parse_action(fields[2], &p->action))
    return bad(r, REPLAY_BAD_ACTION,
               "unknown action '%s' (known: allocate, allocate failure, free)",
               quoted(fields[2], q, sizeof q));
  if (!parse_hex(fields[3], &p->pointer))
    return bad(r, REPLAY_BAD_NUMBER, "Pointer '%s' is not a hexadecimal address",
               quoted(fields[3], q, sizeof q));
  if (!parse_decimal(fields[4], &p->size))
    return bad(r, REPLAY_BAD_NUMBER, "Size '%s' is not a decimal number of bytes",
               quoted(fields[4], q, sizeof q));
  if (!parse_hex(fields[5], &p->stream))
    return bad(r, REPLAY_BAD_NUMBER, "Stream '%s' is not a hexadecimal stream handle",
               quoted(fields[5], q, sizeof q));
  return true;
}

/* Whether the event fits what the log did before it. A bad line calls
 * bad(), whose answer it returns; *skip is false only for an event to
 * replay (not a size-0 allocation, a free of NULL, or a bad line). */
static bool check_event(reader *r, const parsed_line *p, const map_entry *block, bool *skip) {
  const replay_log *log = r->log;
  *skip = true;
  if (p->action == REPLAY_ALLOCATE) {
    if (p->pointer == 0 && p->size == 0) return true; /* nothing to replay */
    if (p->pointer == 0)
      return bad(r, REPLAY_BAD_NULL, "allocate of %" PRIu64 " bytes returned a null pointer",
                 p->size);
    if (block != NULL)
      return bad(r, REPLAY_BAD_REALLOCATE,
                 "allocate of 0x%" PRIx64 ", which is still allocated (by line %" PRIu32 ")",
                 p->pointer, block->line);
    if (p->size > UINT64_MAX - log->live_bytes)
      return bad(r, REPLAY_BAD_OVERFLOW,
                 "allocate of %" PRIu64 " bytes while %" PRIu64
                 " are live: more than 2^64 - 1 bytes live at once, which no process can hold",
                 p->size, log->live_bytes);
  } else if (p->action == REPLAY_FREE) {
    if (p->pointer == 0) return true; /* freeing NULL does nothing */
    if (block == NULL)
      return bad(r, REPLAY_BAD_FREE, "free of 0x%" PRIx64 ", which is not allocated", p->pointer);
    if (block->size != p->size)
      return bad(r, REPLAY_BAD_FREE_SIZE,
                 "free of 0x%" PRIx64 " with %" PRIu64 " bytes, allocated with %" PRIu64
                 " bytes (line %" PRIu32 ")",
                 p->pointer, p->size, block->size, block->line);
  }
  *skip = false;
  return true;
}

/* An allocation: a block slot, the pointer's entry, the live totals. */
static bool record_allocation(reader *r, const parsed_line *p, replay_event *e) {
  replay_log *log = r->log;
  if (!take_slot(r, &e->block)) return false;
  map_entry *block = map_add(&r->pointers, p->pointer);
  if (block == NULL) return out_of_memory(r);
  block->size = p->size;
  block->value = e->block;
  block->line = r->line > UINT32_MAX ? UINT32_MAX : (uint32_t)r->line;
  block->thread = e->thread;
  log->allocations++;
  log->live_blocks++;
  log->live_bytes += p->size;
  if (log->live_bytes > log->peak_bytes) {
    log->peak_bytes = log->live_bytes;
    log->peak_time = e->time;
  }
  return true;
}

/* A free: the block's slot back, its entry gone, the live totals. */
static bool record_free(reader *r, map_entry *block, replay_event *e) {
  replay_log *log = r->log;
  e->block = block->value;
  if (block->thread != e->thread) log->cross_thread_frees++;
  if (!give_slot(r, block->value)) return false;
  log->live_bytes -= block->size;
  map_remove(&r->pointers, block);
  log->frees++;
  log->live_blocks--;
  return true;
}

/* One event line (without its end of line). False ends the read. */
static bool read_event(reader *r, char *text) {
  parsed_line p;
  r->line_bad = false;
  bool go_on = parse_line(r, text, &p);
  if (!go_on || r->line_bad) return go_on;
  map_entry *block = p.pointer != 0 ? map_find(&r->pointers, p.pointer) : NULL;
  bool skip;
  go_on = check_event(r, &p, block, &skip);
  if (!go_on || skip) return go_on;
  replay_event e = {.size = p.size, .action = (uint8_t)p.action};
  if (!stream_index(r, p.stream, &e.stream) || !thread_index(r, p.thread, &e.thread)) return false;
  e.time = event_time(r, p.clock);
  if (p.action == REPLAY_ALLOCATE) {
    if (!record_allocation(r, &p, &e)) return false;
  } else if (p.action == REPLAY_FREE) {
    if (!record_free(r, block, &e)) return false;
  } else {
    r->log->failures++;
  }
  return add_event(r, e, p.action == REPLAY_ALLOCATE_FAILURE ? 0 : p.pointer);
}

/* One line of f into *line (grown as needed, never past LINE_LIMIT + 2
 * bytes), with its '\n' and a NUL after it: its length. -1 at the end of
 * the file or on a failure (errno: ENOMEM, or the read's), as getline.
 * LINE_TOO_LONG for a line longer than LINE_LIMIT without its '\n', of
 * which the first LINE_LIMIT bytes are in *line and no more is read: a
 * gzip file of a few megabytes decompresses to gigabytes without one. */
#define LINE_TOO_LONG (-2)

static ssize_t read_line(FILE *f, char **line, size_t *cap) {
  size_t len = 0;
  int c;
  while ((c = getc_unlocked(f)) != EOF) {
    if (c != '\n' && len == LINE_LIMIT) {
      (*line)[len] = '\0';
      return LINE_TOO_LONG;
    }
    if (len + 2 > *cap) {
      size_t grown_cap = *cap < 128 ? 256 : 2 * *cap;
      if (grown_cap > LINE_LIMIT + 2) grown_cap = LINE_LIMIT + 2;
      char *grown = realloc(*line, grown_cap);
      if (grown == NULL) {
        errno = ENOMEM;
        return -1;
      }
      *line = grown;
      *cap = grown_cap;
    }
    (*line)[len++] = (char)c;
    if (c == '\n') break;
  }
  if (len == 0) return -1;
  (*line)[len] = '\0';
  return (ssize_t)len;
}

static bool read_lines(reader *r, FILE *f) {
  replay_log *log = r->log;
  char *line = NULL;
  size_t line_cap = 0;
  ssize_t got;
  bool ok = true;
  char q[QUOTE_MAX + 8];
  /* -1 is the end of the file, or a failure (ENOMEM, EIO): feof tells
   * which, so a log is never taken as complete when a line could not be
   * read. */
  while (ok && (errno = 0, got = read_line(f, &line, &line_cap)) != -1) {
    r->line++;
    if (got == LINE_TOO_LONG && r->line > 1) {
      /* Whatever --skip-bad says: a line that long is no damaged log line
       * but another kind of file, and it is not read to its end. (A first
       * line that long is no header, as said below.) */
      snprintf(r->why, r->cap,
               "line %zu of %s is longer than %s, which no log line is (the log adaptor's "
               "and rmm's are under 200 bytes): not an rmm-format allocation log, or a damaged "
               "one",
               r->line, log->path, LINE_LIMIT_TEXT);
      ok = false;
      break;
    }
    size_t len = got == LINE_TOO_LONG ? LINE_LIMIT : (size_t)got;
    bool ended = len > 0 && line[len - 1] == '\n';
    if (ended) line[--len] = '\0';
    if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    if (r->line == 1) {
      if (len >= 2 && (unsigned char)line[0] == 0x1f && (unsigned char)line[1] == 0x8b) {
        /* gzip's magic: read here only where mrctx was built without zlib. */
        snprintf(r->why, r->cap,
                 "%s: a gzip-compressed log, and this mrctx was built without zlib: "
                 "decompress it first (gzip -dk)",
                 log->path);
        ok = false;
      } else if (strlen(line) != len || strcmp(line, LOG_HEADER) != 0) {
        snprintf(r->why, r->cap,
                 "%s:1: not an rmm-format allocation log: the first line is '%s', not the "
                 "header '%s'",
                 log->path, quoted(line, q, sizeof q), LOG_HEADER);
        ok = false;
      }
      continue;
    }
    if (strlen(line) != len)
      ok = bad(r, REPLAY_BAD_FIELDS, "not a log line: it holds a NUL byte");
    else if (!ended)
      ok = bad(r, REPLAY_BAD_TRUNCATED, "the file ends inside this line (a truncated log?)");
    else if (len > 0)
      ok = read_event(r, line);
  }
  if (ok && (ferror(f) || !feof(f))) {
    int error = errno != 0 ? errno : EIO;
    if (error == ENOMEM)
      snprintf(r->why, r->cap, "%s: out of host memory reading line %zu", log->path, r->line + 1);
    else
      snprintf(r->why, r->cap, "%s: reading failed after line %zu: %s", log->path, r->line,
               strerror(error));
    ok = false;
  }
  if (ok && r->line == 0) {
    snprintf(r->why, r->cap, "%s: an empty file, not an rmm-format allocation log (no header)",
             log->path);
    ok = false;
  }
  free(line);
  return ok;
}

#if MRCTX_HAVE_ZLIB
/* A log through zlib, as a stdio stream (fopencookie), so that the reader
 * is the same for both: zlib reads a plain file as it is, a gzip file
 * decompressed, from a file or a pipe alike. */
typedef struct gz_cookie {
  gzFile gz;
  char error[200]; /* zlib's words for a broken gzip stream, or "" */
} gz_cookie;

static ssize_t gz_cookie_read(void *cookie, char *buf, size_t size) {
  gz_cookie *c = cookie;
  unsigned want = size > (1u << 30) ? 1u << 30 : (unsigned)size;
  int n = gzread(c->gz, buf, want);
  int code = Z_OK;
  const char *message = n > 0 ? NULL : gzerror(c->gz, &code);
  /* A gzip stream cut short ends as if complete (gzread returns 0 and
   * keeps Z_BUF_ERROR for gzerror): it is an error here, so that a cut
   * log is never taken whole. */
  if (n > 0 || (n == 0 && code == Z_OK)) return n;
  if (code == Z_ERRNO) return -1; /* errno says what the read of the file met */
  snprintf(c->error, sizeof c->error, "%s", message != NULL ? message : "broken");
  errno = EIO;
  return -1;
}

static int gz_cookie_close(void *cookie) {
  gz_cookie *c = cookie;
  return c->gz != NULL ? gzclose(c->gz) : 0;
}
#endif

static bool read_stream(FILE *f, const char *path, bool skip_bad, bool keep_pointers,
                        replay_log *log, char *why, size_t cap);

static bool read_file(const char *path, bool skip_bad, bool keep_pointers, replay_log *log,
                      char *why, size_t cap) {
  memset(log, 0, sizeof *log);
  log->path = path;
#if MRCTX_HAVE_ZLIB
  gz_cookie cookie = {.gz = NULL};
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  FILE *f = NULL;
  if (fd >= 0 && (cookie.gz = gzdopen(fd, "rb")) == NULL) {
    close(fd);
    errno = ENOMEM;
    fd = -1;
  }
  if (fd >= 0) {
    f = fopencookie(&cookie, "r",
                    (cookie_io_functions_t){.read = gz_cookie_read, .close = gz_cookie_close});
    if (f == NULL) {
      int error = errno;
      gzclose(cookie.gz);
      errno = error;
    }
  }
#else
  FILE *f = fopen(path, "r");
#endif
  if (f == NULL) {
    snprintf(why, cap, "%s: cannot open: %s", path, strerror(errno));
    return false;
  }
  bool ok = read_stream(f, path, skip_bad, keep_pointers, log, why, cap);
  fclose(f);
#if MRCTX_HAVE_ZLIB
  if (!ok && cookie.error[0] != '\0')
    snprintf(why, cap, "%s: the gzip data is broken (%s): a truncated or damaged file?", path,
             cookie.error);
#endif
  return ok;
}

bool replay_log_read(const char *path, bool skip_bad, replay_log *log, char *why, size_t cap) {
  return read_file(path, skip_bad, false, log, why, cap);
}

bool replay_log_read_pointers(const char *path, bool skip_bad, replay_log *log, char *why,
                              size_t cap) {
  return read_file(path, skip_bad, true, log, why, cap);
}

bool replay_log_read_stream(FILE *f, const char *path, bool skip_bad, replay_log *log, char *why,
                            size_t cap) {
  return read_stream(f, path, skip_bad, false, log, why, cap);
}

static bool read_stream(FILE *f, const char *path, bool skip_bad, bool keep_pointers,
                        replay_log *log, char *why, size_t cap) {
  memset(log, 0, sizeof *log);
  log->path = path;
  reader r = {
      .log = log, .skip_bad = skip_bad, .why = why, .cap = cap, .keep_pointers = keep_pointers};
  bool ok = read_lines(&r, f);
  free(r.pointers.entries);
  free(r.streams.entries);
  free(r.threads.entries);
  free(r.free_slots);
  if (!ok) replay_log_free(log);
  return ok;
}

void replay_log_free(replay_log *log) {
  free(log->pointers);
  log->pointers = NULL;
  free(log->events);
  free(log->streams);
  free(log->threads);
  log->events = NULL;
  log->streams = NULL;
  log->threads = NULL;
  log->event_count = log->stream_count = log->thread_count = 0;
}
