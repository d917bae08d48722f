/*
 * memory_viz.c: PyTorch memory_viz's pickle (core/memory_viz.h says what
 * it holds and why). Like text.c, built into libmrctx and into the mrctx
 * command, so it uses nothing of the library's but the C library.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory_viz.h"
#include "core/text.h"

/* ---- the pickle writer ------------------------------------------------------------ */

/* Opcodes of pickle protocol 2 (Python's Lib/pickletools.py). */
enum {
  OP_PROTO = 0x80,
  OP_STOP = '.',
  OP_MARK = '(',
  OP_EMPTY_DICT = '}',
  OP_SETITEMS = 'u',
  OP_EMPTY_LIST = ']',
  OP_APPENDS = 'e',
  OP_TUPLE = 't',
  OP_BINUNICODE = 'X',
  OP_BININT = 'J',
  OP_BININT1 = 'K',
  OP_BININT2 = 'M',
  OP_LONG1 = 0x8a,
  OP_NEWTRUE = 0x88,
  OP_NEWFALSE = 0x89,
  OP_NONE = 'N',
};

/* Items per SETITEMS or APPENDS, as Python's pickler batches them. */
#define BATCH 1000

static void put(mri_pickle *p, int byte) { putc(byte, p->out); }

static void put_le(mri_pickle *p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++) put(p, (int)((value >> (8 * i)) & 0xff));
}

/* A value is complete: a batch of its container may end here. */
static void value_done(mri_pickle *p) {
  if (p->depth == 0) return;
  mri_pickle_level *level = &p->levels[p->depth - 1];
  level->items++;
  if (level->kind == 'd' && level->items == 2 * BATCH) {
    put(p, OP_SETITEMS);
    put(p, OP_MARK);
    level->items = 0;
  } else if (level->kind == 'l' && level->items == BATCH) {
    put(p, OP_APPENDS);
    put(p, OP_MARK);
    level->items = 0;
  }
}

void mri_pickle_begin(mri_pickle *p, FILE *out) {
  *p = (mri_pickle){.out = out};
  put(p, OP_PROTO);
  put(p, 2);
}

static void open_container(mri_pickle *p, char kind, int opcode) {
  if (p->depth == MRI_PICKLE_DEPTH) {
    p->misused = true;
    return;
  }
  if (opcode != 0) put(p, opcode);
  put(p, OP_MARK);
  p->levels[p->depth].kind = kind;
  p->levels[p->depth].items = 0;
  p->depth++;
}

void mri_pickle_dict(mri_pickle *p) { open_container(p, 'd', OP_EMPTY_DICT); }
void mri_pickle_list(mri_pickle *p) { open_container(p, 'l', OP_EMPTY_LIST); }
void mri_pickle_tuple(mri_pickle *p) { open_container(p, 't', 0); }

void mri_pickle_end(mri_pickle *p) {
  if (p->depth == 0 || p->misused) {
    p->misused = true;
    return;
  }
  char kind = p->levels[p->depth - 1].kind;
  if (kind == 'd' && p->levels[p->depth - 1].items % 2 != 0) p->misused = true; /* a key alone */
  put(p, kind == 'd' ? OP_SETITEMS : kind == 'l' ? OP_APPENDS : OP_TUPLE);
  p->depth--;
  value_done(p);
}

void mri_pickle_str(mri_pickle *p, const char *text) {
  mri_pickle_strn(p, text != NULL ? text : "", text != NULL ? strlen(text) : 0);
}

void mri_pickle_strn(mri_pickle *p, const char *text, size_t left) {
  /* Two passes: the length first (each byte that is not UTF-8 as U+FFFD's
   * three), then the bytes. */
  const unsigned char *s = (const unsigned char *)text;
  size_t length = 0;
  for (size_t i = 0; i < left;) {
    size_t n = mri_utf8_length(s + i, left - i);
    length += n == 0 ? 3 : n;
    i += n == 0 ? 1 : n;
  }
  if (length > UINT32_MAX) { /* no name is 4 GiB long: refused, not cut */
    p->misused = true;
    return;
  }
  put(p, OP_BINUNICODE);
  put_le(p, length, 4);
  for (size_t i = 0; i < left;) {
    size_t n = mri_utf8_length(s + i, left - i);
    if (n == 0) {
      fputs("\xef\xbf\xbd", p->out);
      i++;
    } else {
      fwrite(s + i, 1, n, p->out);
      i += n;
    }
  }
  value_done(p);
}

/* LONG1: `bytes` bytes of two's complement, least significant first. */
static void put_long1(mri_pickle *p, uint64_t bits, int bytes, bool sign_byte) {
  put(p, OP_LONG1);
  put(p, bytes + (sign_byte ? 1 : 0));
  put_le(p, bits, bytes);
  if (sign_byte) put(p, 0);
}

void mri_pickle_int(mri_pickle *p, int64_t value) {
  if (value >= 0) {
    mri_pickle_uint(p, (uint64_t)value);
    return;
  }
  if (value >= INT32_MIN) {
    put(p, OP_BININT);
    put_le(p, (uint64_t)(uint32_t)(int32_t)value, 4);
  } else {
    put_long1(p, (uint64_t)value, 8, false); /* eight bytes carry any negative int64 */
  }
  value_done(p);
}

void mri_pickle_uint(mri_pickle *p, uint64_t value) {
  if (value <= 0xff) {
    put(p, OP_BININT1);
    put(p, (int)value);
  } else if (value <= 0xffff) {
    put(p, OP_BININT2);
    put_le(p, value, 2);
  } else if (value <= INT32_MAX) {
    put(p, OP_BININT);
    put_le(p, value, 4);
  } else {
    /* The fewest bytes whose top bit is clear (the value is positive). */
    int bytes = 8;
    while (bytes > 4 && (value >> (8 * (bytes - 1))) == 0) bytes--;
    bool sign_byte = ((value >> (8 * bytes - 1)) & 1) != 0;
    put_long1(p, value, bytes, sign_byte);
  }
  value_done(p);
}

void mri_pickle_bool(mri_pickle *p, bool value) {
  put(p, value ? OP_NEWTRUE : OP_NEWFALSE);
  value_done(p);
}

void mri_pickle_none(mri_pickle *p) {
  put(p, OP_NONE);
  value_done(p);
}

bool mri_pickle_finish(mri_pickle *p) {
  if (p->depth != 0) p->misused = true;
  put(p, OP_STOP);
  if (p->misused) {
    errno = EINVAL;
    return false;
  }
  if (fflush(p->out) != 0 || ferror(p->out)) {
    if (errno == 0) errno = EIO;
    return false;
  }
  return true;
}

/* ---- memory_viz's dict ------------------------------------------------------------- */

static void key_str(mri_pickle *p, const char *key, const char *value) {
  mri_pickle_str(p, key);
  mri_pickle_str(p, value);
}

static void key_uint(mri_pickle *p, const char *key, uint64_t value) {
  mri_pickle_str(p, key);
  mri_pickle_uint(p, value);
}

/* (0, pool): the way PyTorch names a pool of its own (MempoolId_t). */
static void pool_id(mri_pickle *p, size_t pool) {
  mri_pickle_str(p, "segment_pool_id");
  mri_pickle_tuple(p);
  mri_pickle_uint(p, 0);
  mri_pickle_uint(p, pool);
  mri_pickle_end(p);
}

static void frame(mri_pickle *p, const char *filename, size_t filename_length, uint64_t line,
                  const char *name, size_t name_length) {
  mri_pickle_dict(p);
  mri_pickle_str(p, "filename");
  mri_pickle_strn(p, filename, filename_length);
  key_uint(p, "line", line);
  mri_pickle_str(p, "name");
  mri_pickle_strn(p, name, name_length);
  mri_pickle_end(p);
}

/* A frame source's frame (a Python line) as mrctx names it: "function
 * (file:line)", the function up to the first " (" (a runtime's function
 * names have no spaces; a path may), the line the digits after the last
 * ':'. True if `text` has that form. */
static bool runtime_frame(mri_pickle *p, const char *text, size_t n) {
  const char *open = strstr(text, " (");
  if (open == NULL || n < 2 || text[n - 1] != ')') return false;
  const char *digits = text + n - 1;
  while (digits > open + 2 && digits[-1] >= '0' && digits[-1] <= '9') digits--;
  if (digits == text + n - 1 || digits[-1] != ':' || digits - 1 <= open + 2) return false;
  uint64_t line = 0;
  for (const char *d = digits; d < text + n - 1 && line < UINT32_MAX; d++)
    line = line * 10 + (uint64_t)(*d - '0');
  frame(p, open + 2, (size_t)(digits - 1 - (open + 2)), line, text, (size_t)(open - text));
  return true;
}

/* A frame as mrctx names it (mr_track_describe_frame): "function+0xOFF
 * (object)" or "object+0xOFF" for a native one, "function (file:line)" for
 * a frame source's. The object is what follows the offset's " (", so a
 * path with " (" in it stays whole. */
static void named_frame(mri_pickle *p, const char *text) {
  size_t n = strlen(text);
  if (runtime_frame(p, text, n)) return;
  for (const char *at = strstr(text, "+0x"); at != NULL; at = strstr(at + 1, "+0x")) {
    const char *end = at + 3;
    while ((*end >= '0' && *end <= '9') || (*end >= 'a' && *end <= 'f') ||
           (*end >= 'A' && *end <= 'F'))
      end++;
    if (end > at + 3 && end[0] == ' ' && end[1] == '(' && n > 0 && text[n - 1] == ')') {
      frame(p, end + 2, n - (size_t)(end + 2 - text) - 1, 0, text, (size_t)(end - text));
      return;
    }
  }
  const char *plus = strstr(text, "+0x");
  frame(p, text, plus != NULL ? (size_t)(plus - text) : n, 0, text, n);
}

/* The frame that names a block's owner. */
static void owner_frame(mri_pickle *p, const char *owner) {
  if (owner == NULL) owner = "";
  frame(p, "mrctx", 5, 0, owner, strlen(owner));
}

/* A block's frames: its call site, then its owner. */
static void frames(mri_pickle *p, const mri_memviz_block *b) {
  mri_pickle_str(p, "frames");
  mri_pickle_list(p);
  for (size_t f = 0; f < b->frame_count && b->frames != NULL; f++) named_frame(p, b->frames[f]);
  owner_frame(p, b->owner);
  mri_pickle_end(p);
}

/* The pools: owners in order of first appearance, each block's (from 1). */
typedef struct owner_pools {
  const char **owners;
  size_t count;
  size_t *of_block;
} owner_pools;

static bool find_pools(const mri_memviz *viz, owner_pools *out) {
  *out = (owner_pools){0};
  size_t n = viz->block_count ? viz->block_count : 1;
  out->owners = calloc(n, sizeof *out->owners);
  out->of_block = calloc(n, sizeof *out->of_block);
  if (out->owners == NULL || out->of_block == NULL) {
    free(out->owners);
    free(out->of_block);
    errno = ENOMEM;
    return false;
  }
  for (size_t i = 0; i < viz->block_count; i++) {
    const char *owner = viz->blocks[i].owner != NULL ? viz->blocks[i].owner : "";
    size_t k = 0;
    while (k < out->count && strcmp(out->owners[k], owner) != 0) k++;
    if (k == out->count) out->owners[out->count++] = owner;
    out->of_block[i] = k + 1;
  }
  return true;
}

static void segment(mri_pickle *p, const mri_memviz_block *b, size_t pool) {
  mri_pickle_dict(p);
  mri_pickle_str(p, "device");
  mri_pickle_int(p, b->device);
  key_uint(p, "address", b->ptr);
  key_uint(p, "total_size", b->bytes);
  key_uint(p, "allocated_size", b->bytes);
  key_uint(p, "active_size", b->bytes);
  key_uint(p, "requested_size", b->bytes);
  key_uint(p, "stream", b->stream);
  /* PyTorch's small pool holds blocks of up to 1 MiB. */
  key_str(p, "segment_type", b->bytes <= ((uint64_t)1 << 20) ? "small" : "large");
  pool_id(p, pool);
  mri_pickle_str(p, "is_expandable");
  mri_pickle_bool(p, false);
  mri_pickle_str(p, "frames");
  mri_pickle_list(p);
  owner_frame(p, b->owner);
  mri_pickle_end(p);
  mri_pickle_str(p, "blocks");
  mri_pickle_list(p);
  mri_pickle_dict(p);
  key_uint(p, "address", b->ptr);
  key_uint(p, "size", b->bytes);
  key_uint(p, "requested_size", b->bytes);
  key_str(p, "state", "active_allocated");
  frames(p, b);
  mri_pickle_end(p);
  mri_pickle_end(p);
  mri_pickle_end(p);
}

/* One trace entry of a block's. */
static void block_entry(mri_pickle *p, const char *action, const mri_memviz_block *b, size_t pool,
                        uint64_t time_us) {
  mri_pickle_dict(p);
  key_str(p, "action", action);
  key_uint(p, "addr", b->ptr);
  key_uint(p, "size", b->bytes);
  key_uint(p, "stream", b->stream);
  key_uint(p, "time_us", time_us);
  frames(p, b);
  key_str(p, "category", b->owner);
  key_str(p, "user_metadata", b->owner);
  pool_id(p, pool);
  mri_pickle_end(p);
}

static void device_trace(mri_pickle *p, const mri_memviz *viz, const owner_pools *pools,
                         int device) {
  mri_pickle_list(p);
  for (size_t i = 0; i < viz->event_count; i++) {
    const mri_memviz_event *e = &viz->events[i];
    if (e->action == MRI_MEMVIZ_OOM) {
      if (e->device != device) continue;
      mri_pickle_dict(p);
      key_str(p, "action", "oom");
      /* PyTorch's oom entry keeps the device's free memory in addr too. */
      key_uint(p, "addr", e->device_free);
      key_uint(p, "size", e->bytes);
      key_uint(p, "stream", e->stream);
      key_uint(p, "time_us", e->time_us);
      key_uint(p, "device_free", e->device_free);
      mri_pickle_str(p, "frames");
      mri_pickle_list(p);
      mri_pickle_end(p);
      mri_pickle_end(p);
      continue;
    }
    if (e->block >= viz->block_count) continue;
    const mri_memviz_block *b = &viz->blocks[e->block];
    if (b->device != device) continue;
    size_t pool = pools->of_block[e->block];
    if (e->action == MRI_MEMVIZ_ALLOC) {
      block_entry(p, "segment_alloc", b, pool, e->time_us);
      block_entry(p, "alloc", b, pool, e->time_us);
    } else {
      block_entry(p, "free_requested", b, pool, e->time_us);
      block_entry(p, "free_completed", b, pool, e->time_us);
      block_entry(p, "segment_free", b, pool, e->time_us);
    }
  }
  mri_pickle_dict(p);
  key_str(p, "action", "snapshot");
  key_uint(p, "addr", 0);
  key_uint(p, "size", 0);
  key_uint(p, "stream", 0);
  key_uint(p, "time_us", viz->end_us);
  mri_pickle_str(p, "frames");
  mri_pickle_list(p);
  mri_pickle_end(p);
  key_str(p, "category", "unknown");
  mri_pickle_end(p);
  mri_pickle_end(p);
}

bool mri_memviz_write(FILE *out, const mri_memviz *viz) {
  owner_pools pools;
  if (!find_pools(viz, &pools)) return false;
  /* One trace per device from 0 to the highest any block or failure names
   * (at least one: the page lists device 0). */
  int devices = 1;
  for (size_t i = 0; i < viz->block_count; i++)
    if (viz->blocks[i].device >= devices) devices = viz->blocks[i].device + 1;
  for (size_t i = 0; i < viz->event_count; i++)
    if (viz->events[i].action == MRI_MEMVIZ_OOM && viz->events[i].device >= devices)
      devices = viz->events[i].device + 1;

  mri_pickle p;
  mri_pickle_begin(&p, out);
  mri_pickle_dict(&p);
  mri_pickle_str(&p, "segments");
  mri_pickle_list(&p);
  for (size_t i = 0; i < viz->block_count; i++)
    if (viz->blocks[i].live && viz->blocks[i].device >= 0)
      segment(&p, &viz->blocks[i], pools.of_block[i]);
  mri_pickle_end(&p);
  mri_pickle_str(&p, "device_traces");
  mri_pickle_list(&p);
  for (int d = 0; d < devices; d++) device_trace(&p, viz, &pools, d);
  mri_pickle_end(&p);
  mri_pickle_str(&p, "allocator_settings");
  mri_pickle_dict(&p);
  key_str(&p, "generator", viz->generator);
  key_str(&p, "source", viz->source);
  key_str(&p, "segments", "one per live block: mrctx keeps no segment layout");
  mri_pickle_str(&p, "pools");
  mri_pickle_list(&p);
  for (size_t k = 0; k < pools.count; k++) {
    mri_pickle_dict(&p);
    key_str(&p, "name", pools.owners[k]);
    pool_id(&p, k + 1);
    mri_pickle_end(&p);
  }
  mri_pickle_end(&p);
  mri_pickle_end(&p);
  mri_pickle_end(&p);
  free(pools.owners);
  free(pools.of_block);
  return mri_pickle_finish(&p);
}
