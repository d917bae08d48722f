/*
 * test_snapshot.c (unit): snapshots of live contexts with host tags, their
 * JSON both ways and their text, snapshot files that are wrong in every
 * way a reader can tell, and the out-of-memory report (the file
 * MRCTX_OOM_SNAPSHOT names, the observer) with host memory running out
 * behind a limit(...). No driver: no pools are listed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "context/context_internal.h"
#include "context/snapshot_internal.h"
#include "test_util.h"

/* ---- helpers ---------------------------------------------------------------------- */

static mr_context *create(const char *library, const mr_tag *tags, size_t count) {
  mr_context_desc desc = {
      .size = sizeof desc, .library = library, .tags = tags, .tag_count = count};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  return ctx;
}

static void *alloc(mr_context *ctx, int tag, size_t bytes) {
  void *p = NULL;
  assert_ok(mr_allocate(mr_context_get_mr_on(ctx, tag, 0), bytes, 0, NULL, &p));
  return p;
}

static void release(mr_context *ctx, int tag, void *p, size_t bytes) {
  assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, tag, 0), p, bytes, 0, NULL));
}

/* What a writer produces, as a string (caller frees). */
static char *render(const mr_snapshot *snap, bool json) {
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  assert_non_null(out);
  if (json)
    assert_ok(mr_snapshot_write_json(snap, out));
  else
    assert_ok(mr_snapshot_write_text(snap, out));
  fclose(out);
  return text;
}

static mr_snapshot *take(void) {
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_take(NULL, &snap));
  assert_non_null(snap);
  return snap;
}

/* The snapshot's entry for a library's context; NULL if not there. */
static const mri_snap_context *find_context(const mr_snapshot *snap, const char *library) {
  for (size_t i = 0; i < snap->context_count; i++)
    if (strcmp(snap->contexts[i].library, library) == 0) return &snap->contexts[i];
  return NULL;
}

static const mri_snap_slot *find_slot(const mr_snapshot *snap, const char *library,
                                      const char *tag) {
  const mri_snap_context *c = find_context(snap, library);
  assert_non_null(c);
  for (size_t t = 0; t < c->tag_count; t++)
    if (strcmp(c->tags[t].name, tag) == 0) return &c->tags[t].slots[0];
  fail_msg("%s has no tag %s in the snapshot", library, tag);
  return NULL;
}

static void assert_contains(const char *text, const char *needle) {
  if (strstr(text, needle) == NULL) fail_msg("\"%s\" not found in:\n%s", needle, text);
}

/* Reading `json` fails, and the message contains `expected`. */
static void read_fails(const char *json, const char *expected) {
  mr_snapshot *snap = (mr_snapshot *)0x1;
  mr_clear_error();
  assert_status(mr_snapshot_read(json, strlen(json), &snap), MR_ERR_INVALID_ARGUMENT);
  assert_null(snap);
  assert_error_contains(expected);
}

/* ---- taking ------------------------------------------------------------------------- */

enum { A_TEMP, A_KEPT, A_CACHED, A_SHARED };
static const mr_tag a_tags[] = {
    [A_TEMP] = {"temp", "host"},
    [A_KEPT] = {"kept", "track(host)"},
    [A_CACHED] = {"cached", "cache(host)"},
    [A_SHARED] = {"shared", "@kept"},
};
enum { B_RESULT };
static const mr_tag b_tags[] = {[B_RESULT] = {"result", "stats(host)"}};

static void test_two_contexts(void **state) {
  mr_context *a = create("liba", a_tags, 4);
  mr_context *b = create("libb", b_tags, 1);
  void *t = alloc(a, A_TEMP, 4096);
  void *k1 = alloc(a, A_KEPT, 1000), *k2 = alloc(a, A_KEPT, 3000), *k3 = alloc(a, A_SHARED, 2000);
  void *c = alloc(a, A_CACHED, 512);
  release(a, A_CACHED, c, 512);
  c = alloc(a, A_CACHED, 512); /* a hit */
  void *r = alloc(b, B_RESULT, 1 << 20);

  mr_snapshot *snap = take();
  assert_false(snap->has_oom);
  assert_int_equal(snap->pid, getpid());
  assert_int_equal(snap->pool_count, 0); /* no driver loaded */
  const mri_snap_context *ca = find_context(snap, "liba"), *cb = find_context(snap, "libb");
  assert_non_null(ca);
  assert_non_null(cb);
  assert_true(cb->id > ca->id);
  assert_int_equal(ca->tag_count, 4);
  assert_int_equal(ca->device_count, 1);

  const mri_snap_slot *s = find_slot(snap, "liba", "temp");
  assert_string_equal(s->spec, "host");
  assert_string_equal(s->origin, "default");
  assert_int_equal(s->stats.current_bytes, 4096);
  assert_false(s->has_cache);
  assert_false(s->has_track);

  s = find_slot(snap, "liba", "kept");
  assert_string_equal(s->spec, "track(host)");
  assert_true(s->has_track);
  assert_int_equal(s->track_live_count, 3); /* shared's block too: one tracker */
  assert_int_equal(s->track_live_bytes, 6000);
  assert_int_equal(s->block_count, 3);
  assert_int_equal(s->blocks[0].bytes, 3000); /* largest first */
  assert_int_equal(s->blocks[0].ptr, (uintptr_t)k2);
  assert_int_equal(s->blocks[1].bytes, 2000);
  assert_int_equal(s->blocks[2].bytes, 1000);
  assert_int_equal(s->blocks[0].alignment, 256);
  assert_int_equal(s->stats.current_bytes, 4000);

  s = find_slot(snap, "liba", "shared");
  assert_string_equal(s->shares, "kept");
  assert_false(s->has_track); /* shown once, under kept */
  assert_int_equal(s->stats.current_bytes, 2000);

  s = find_slot(snap, "liba", "cached");
  assert_true(s->has_cache);
  assert_int_equal(s->cache.hits, 1);
  assert_int_equal(s->cache.misses, 1);

  s = find_slot(snap, "libb", "result");
  assert_int_equal(s->stats.current_bytes, 1 << 20);
  assert_int_equal(s->stats.peak_bytes, 1 << 20);

  char *text = render(snap, false);
  assert_contains(text, "mrctx snapshot of pid");
  assert_contains(text, "libb:result");
  assert_contains(text, "1.0 MiB");
  assert_contains(text, "@kept");
  assert_contains(text, "largest live blocks of liba:kept on device 0 (3 live, 5.9 KiB)");
  assert_contains(text, "liba:cached on device 0: 1 hits, 1 misses");
  assert_contains(text, "driver pools: none read");
  /* Most held first: libb's MiB before liba's KiBs. */
  assert_true(strstr(text, "libb:result") < strstr(text, "liba:temp"));
  free(text);
  mr_snapshot_destroy(snap);

  release(a, A_TEMP, t, 4096);
  release(a, A_KEPT, k1, 1000);
  release(a, A_KEPT, k2, 3000);
  release(a, A_SHARED, k3, 2000);
  release(a, A_CACHED, c, 512);
  release(b, B_RESULT, r, 1 << 20);
  mr_context_destroy(b);
  snap = take();
  assert_null(find_context(snap, "libb")); /* destroyed: gone */
  assert_non_null(find_context(snap, "liba"));
  mr_snapshot_destroy(snap);
  mr_context_destroy(a);
}

static void test_largest_blocks_option(void **state) {
  static const mr_tag tags[] = {{"many", "track(host)"}};
  mr_context *ctx = create("many", tags, 1);
  void *p[20];
  for (size_t i = 0; i < 20; i++) p[i] = alloc(ctx, 0, 256 * (i + 1));
  mr_snapshot *snap = take();
  const mri_snap_slot *s = find_slot(snap, "many", "many");
  assert_int_equal(s->block_count, MR_SNAPSHOT_DEFAULT_BLOCKS);
  assert_int_equal(s->track_live_count, 20);
  for (size_t i = 0; i < s->block_count; i++) assert_int_equal(s->blocks[i].bytes, 256 * (20 - i));
  mr_snapshot_destroy(snap);

  mr_snapshot_options options = {.size = sizeof options, .largest_blocks = 3};
  assert_ok(mr_snapshot_take(&options, &snap));
  s = find_slot(snap, "many", "many");
  assert_int_equal(s->block_count, 3);
  assert_int_equal(s->blocks[2].bytes, 256 * 18);
  mr_snapshot_destroy(snap);

  options.size = 0;
  snap = (mr_snapshot *)0x1;
  assert_status(mr_snapshot_take(&options, &snap), MR_ERR_INVALID_ARGUMENT);
  assert_null(snap);
  assert_error_contains("mr_snapshot_options.size is 0");
  assert_status(mr_snapshot_take(NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  for (size_t i = 0; i < 20; i++) release(ctx, 0, p[i], 256 * (i + 1));
  mr_context_destroy(ctx);
}

/* ---- call sites ------------------------------------------------------------------- */

static char *read_all(const char *path);

enum { ST_SMALL, ST_TRACKED };
static const mr_tag stack_tags[] = {[ST_SMALL] = {"small", "limit(host, bytes=4KiB)"},
                                    [ST_TRACKED] = {"tracked", "track(host, stacks=6)"}};

/* Allocates through the tracked tag: its name must be in the snapshot's
 * call site (the test is linked with -rdynamic). */
void *snapshot_test_allocating_site(mr_context *ctx, size_t bytes);
__attribute__((noinline)) void *snapshot_test_allocating_site(mr_context *ctx, size_t bytes) {
  void *p = NULL;
  assert_ok(mr_allocate(mr_context_get_mr_on(ctx, ST_TRACKED, 0), bytes, 0, NULL, &p));
  __asm__ volatile("" ::: "memory"); /* no tail call: this frame stays */
  return p;
}

typedef struct blocks_seen {
  int count;
  char first_frame[512];
  uint64_t bytes;
} blocks_seen;

static void see_block(void *user, const mr_snapshot_block *b) {
  blocks_seen *s = user;
  if (s->count++ > 0) return;
  assert_int_equal(b->size, sizeof *b);
  assert_string_equal(b->library, "stacks");
  assert_string_equal(b->tag, "tracked");
  s->bytes = b->bytes;
  if (b->frame_count > 0) snprintf(s->first_frame, sizeof s->first_frame, "%s", b->frames[0]);
}

static void test_call_sites(void **state) {
  mr_context *ctx = create("stacks", stack_tags, 2);
  void *p = snapshot_test_allocating_site(ctx, 5000);
  void *q = snapshot_test_allocating_site(ctx, 100);
  mr_snapshot *snap = take();
  const mri_snap_slot *s = find_slot(snap, "stacks", "tracked");
  assert_int_equal(s->block_count, 2);
  assert_true(s->blocks[0].frame_count >= 2 && s->blocks[0].frame_count <= 6);
  assert_true(strncmp(s->blocks[0].frames[0], "snapshot_test_allocating_site+0x", 32) == 0);

  /* JSON: the frames with each block, read back as they were written. */
  char *json = render(snap, true);
  assert_contains(json, "\"age_ns\": ");
  assert_contains(json, "\"frames\": [\"snapshot_test_allocating_site+0x");
  mr_snapshot *back = NULL;
  assert_ok(mr_snapshot_read(json, strlen(json), &back));
  char *again = render(back, true);
  assert_string_equal(json, again);
  free(again);
  blocks_seen seen_blocks = {0};
  assert_ok(mr_snapshot_foreach_block(back, see_block, &seen_blocks));
  assert_int_equal(seen_blocks.count, 2);
  assert_int_equal(seen_blocks.bytes, 5000);
  assert_true(strncmp(seen_blocks.first_frame, "snapshot_test_allocating_site+0x", 32) == 0);
  assert_status(mr_snapshot_foreach_block(back, NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  mr_snapshot_destroy(back);
  free(json);

  /* Text: each block's frames under it. */
  char *text = render(snap, false);
  assert_contains(text, "largest live blocks of stacks:tracked on device 0 (2 live, 5.0 KiB)");
  assert_contains(text,
                  "                                       at snapshot_test_allocating_site+0x");
  free(text);
  mr_snapshot_destroy(snap);

  /* The out-of-memory dump carries them too. */
  char dir[] = "/tmp/mrctx-stacks-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/dump.json", dir);
  assert_int_equal(setenv("MRCTX_OOM_SNAPSHOT", path, 1), 0);
  mri_oom_forget_env();
  void *none = (void *)0x1;
  assert_status(mr_allocate(mr_context_get_mr_on(ctx, ST_SMALL, 0), 8192, 0, NULL, &none),
                MR_ERR_OUT_OF_MEMORY);
  char *dump = read_all(path);
  assert_non_null(dump);
  assert_contains(dump, "\"trigger\": \"out_of_memory\"");
  assert_contains(dump, "\"frames\": [\"snapshot_test_allocating_site+0x");
  free(dump);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rmdir(dir), 0);
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();

  /* A block whose frames are not strings is refused, by its path. */
  snap = take();
  json = render(snap, true);
  mr_snapshot_destroy(snap);
  char *at = strstr(json, "\"frames\": [\"");
  assert_non_null(at);
  char *broken = NULL;
  assert_true(asprintf(&broken, "%.*s7, %s", (int)(at + 11 - json), json, at + 11) > 0);
  read_fails(broken, ".track.largest[0].frames[0]: expected a string, found a number");
  free(broken);
  free(json);
  release(ctx, ST_TRACKED, p, 5000);
  release(ctx, ST_TRACKED, q, 100);
  mr_context_destroy(ctx);
}

/* A device tag without a driver stands in: its status and reason show. */
static void test_unavailable_tags(void **state) {
  static const mr_tag tags[] = {{"gpu", "device"}, {"host", "host"}};
  mr_context *ctx = create("nodriver", tags, 2);
  mr_snapshot *snap = take();
  const mri_snap_slot *s = find_slot(snap, "nodriver", "gpu");
  assert_string_equal(s->status, "MR_ERR_NO_DRIVER");
  assert_non_null(strstr(s->reason, "nodriver:gpu on device 0"));
  assert_null(find_slot(snap, "nodriver", "host")->status);
  char *json = render(snap, true);
  assert_contains(json, "\"status\": \"MR_ERR_NO_DRIVER\"");
  free(json);
  char *text = render(snap, false);
  assert_contains(text,
                  "tags that cannot allocate here\nnodriver:gpu on device 0: MR_ERR_NO_DRIVER: ");
  free(text);
  mr_snapshot *back = NULL;
  json = render(snap, true);
  assert_ok(mr_snapshot_read(json, strlen(json), &back));
  assert_string_equal(find_slot(back, "nodriver", "gpu")->reason, s->reason);
  mr_snapshot_destroy(back);
  free(json);
  mr_snapshot_destroy(snap);
  mr_context_destroy(ctx);
}

/* ---- JSON ------------------------------------------------------------------------- */

/* Texts that must be equal; on a difference, the first differing line
 * (cmocka's own message would cut long texts short). */
static void assert_same_text(const char *a, const char *b) {
  size_t i = 0, line = 1;
  while (a[i] != '\0' && a[i] == b[i]) line += a[i++] == '\n';
  if (a[i] == b[i]) return;
  size_t start = i;
  while (start > 0 && a[start - 1] != '\n') start--;
  fail_msg("texts differ at line %zu:\n%.200s\n---\n%.200s", line, a + start, b + start);
}

/* Written, read back and written again: the same bytes. */
static void assert_round_trip(const mr_snapshot *snap) {
  char *first = render(snap, true);
  mr_snapshot *back = NULL;
  assert_ok(mr_snapshot_read(first, strlen(first), &back));
  char *second = render(back, true);
  assert_same_text(first, second);
  char *text1 = render(snap, false), *text2 = render(back, false);
  assert_same_text(text1, text2);
  free(text1);
  free(text2);
  free(first);
  free(second);
  mr_snapshot_destroy(back);
}

static void test_json_round_trip(void **state) {
  /* Names that need escaping. */
  static const mr_tag tags[] = {
      {"kept", "track(host)"}, {"cached", "cache(host)"}, {"off", "limit(host, bytes=0)"}};
  mr_context *ctx = create("lib \"quoted\" \\ tab\t\xc3\xa9 end", tags, 3);
  void *p = alloc(ctx, 0, 777);
  mr_snapshot *snap = take();
  char *json = render(snap, true);
  assert_contains(json, "\"schema\": \"mrctx-snapshot\"");
  assert_contains(json, "\"version\": 1");
  assert_contains(json, "\"trigger\": \"request\"");
  assert_contains(json, "\"library\": \"lib \\\"quoted\\\" \\\\ tab\\t\xc3\xa9 end\"");
  assert_contains(json, "\"spec\": \"limit(host, bytes=0B)\"");
  assert_contains(json, "\"bytes\": 777, \"alignment\": 256, \"stream\": \"0x0\"");
  free(json);
  assert_round_trip(snap);
  mr_snapshot_destroy(snap);

  /* A byte that is not UTF-8 is written as U+FFFD, which reads back. */
  static const mr_tag one[] = {{"t", "host"}};
  mr_context *odd = create("odd\xff", one, 1);
  snap = take();
  json = render(snap, true);
  assert_contains(json, "\"library\": \"odd\xef\xbf\xbd\"");
  mr_snapshot *back = NULL;
  assert_ok(mr_snapshot_read(json, strlen(json), &back));
  assert_non_null(find_context(back, "odd\xef\xbf\xbd"));
  mr_snapshot_destroy(back);
  free(json);
  mr_snapshot_destroy(snap);
  mr_context_destroy(odd);

  /* With the out-of-memory record. */
  mri_snap_oom oom = {.library = "liba",
                      .tag = "temp",
                      .device = 0,
                      .bytes = 1234,
                      .stream = 0xabc,
                      .message = "limit(host): refused \"1234\" bytes\n"};
  assert_ok(mri_snapshot_take(NULL, &oom, true, &snap));
  json = render(snap, true);
  assert_contains(json, "\"trigger\": \"out_of_memory\"");
  assert_contains(json, "\"stream\": \"0xabc\"");
  assert_contains(json, "\"message\": \"limit(host): refused \\\"1234\\\" bytes\\n\"");
  free(json);
  char *text = render(snap, false);
  assert_contains(text, "out of memory: liba:temp on device 0 asked for 1.2 KiB (1234 bytes) "
                        "on stream 0xabc");
  free(text);
  assert_round_trip(snap);
  mr_snapshot_destroy(snap);
  release(ctx, 0, p, 777);
  mr_context_destroy(ctx);
}

/* A minimal valid document, to break one piece at a time. */
#define HEAD "{\"schema\": \"mrctx-snapshot\", \"version\": 1, \"mrctx_version\": \"9.9\", "
#define REST "\"time_unix_ns\": 5, \"trigger\": \"request\", \"contexts\": [], \"pools\": []}"
#define TAIL "\"pid\": 1, " REST
#define STATS                                                                 \
  "\"stats\": {\"current_bytes\": 1, \"peak_bytes\": 2, \"total_bytes\": 3, " \
  "\"current_count\": 4, \"peak_count\": 5, \"total_count\": 6, \"failed_count\": 7}"

static void test_read_accepts(void **state) {
  mr_snapshot *snap = NULL;
  const char *doc = HEAD TAIL;
  assert_ok(mr_snapshot_read(doc, strlen(doc), &snap));
  assert_int_equal(snap->context_count, 0);
  assert_string_equal(snap->mrctx_version, "9.9");
  mr_snapshot_destroy(snap);
  /* Unknown members are ignored; a byte-order mark and no final NUL are fine. */
  const char *more = "\xef\xbb\xbf" HEAD "\"later\": {\"x\": [1, 2.5e3, -0.5, null, true]}, " TAIL;
  assert_ok(mr_snapshot_read(more, strlen(more), &snap));
  mr_snapshot_destroy(snap);
  const char *one_slot = HEAD
      "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"request\", \"contexts\": [{\"id\": 3, "
      "\"library\": \"x\\u00e9\\ud83d\\ude00\", \"device_count\": 1, \"tags\": [{\"tag\": \"t\", "
      "\"devices\": [{\"device\": 0, \"spec\": \"host\", \"origin\": \"env\", " STATS
      "}]}]}], \"pools\": [{\"pool\": \"device_current\", \"kind\": \"device\", \"device\": 2, "
      "\"is_default\": true, \"is_current\": true, \"release_threshold\": "
      "18446744073709551615, \"reserved_bytes\": 10, \"reserved_high\": 11, \"used_bytes\": "
      "12, \"used_high\": 13}]}";
  assert_ok(mr_snapshot_read(one_slot, strlen(one_slot) - 0, &snap));
  assert_string_equal(snap->contexts[0].library, "x\xc3\xa9\xf0\x9f\x98\x80");
  assert_int_equal(snap->contexts[0].tags[0].slots[0].stats.failed_count, 7);
  assert_int_equal(snap->pools[0].info.release_threshold, UINT64_MAX);
  assert_int_equal(snap->pools[0].info.device, 2);
  char *text = render(snap, false);
  assert_contains(text, "device 2");
  assert_contains(text, "all"); /* keeps everything */
  free(text);
  mr_snapshot_destroy(snap);
}

/* No byte of a snapshot's strings reaches the terminal raw: the text
 * tables escape control characters (C0, DEL, C1) and bytes that are not
 * UTF-8, from a file and from live contexts alike. */
static void assert_no_control(const char *text) {
  for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
    bool c1 = c[0] == 0xc2 && c[1] >= 0x80 && c[1] < 0xa0;
    if ((*c < 0x20 && *c != '\n') || *c == 0x7f || c1)
      fail_msg("byte 0x%02x at offset %zu of:\n%s", *c, (size_t)(c - (const unsigned char *)text),
               text);
  }
}

static void test_text_escapes_names(void **state) {
  const char *doc =
      HEAD "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"out_of_memory\", "
           "\"out_of_memory\": {\"library\": \"ev\\u001b]0;il\\u0007\", \"tag\": \"t\\u007f\", "
           "\"device\": 0, \"bytes\": 1, \"stream\": \"0x0\", \"message\": \"m\\u001b[2J\"}, "
           "\"contexts\": [{\"id\": 3, \"library\": \"lib\\u001b[31m\\u009b\\u00e9\", "
           "\"device_count\": 1, \"tags\": [{\"tag\": \"t\\r\", \"devices\": [{\"device\": 0, "
           "\"spec\": \"host\\u0008\", \"origin\": \"env\", \"status\": \"S\\u0001\", "
           "\"reason\": \"r\\n\", " STATS "}]}]}], \"pools\": [{\"pool\": \"owned\", "
           "\"owner\": \"o\\u001b\", \"kind\": \"device\", \"device\": 0, \"is_default\": false, "
           "\"is_current\": false, \"release_threshold\": 0, \"reserved_bytes\": 0, "
           "\"reserved_high\": 0, \"used_bytes\": 0, \"used_high\": 0}]}";
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_read(doc, strlen(doc), &snap));
  char *text = render(snap, false);
  assert_no_control(text);
  assert_contains(text, "out of memory: ev\\x1b]0;il\\x07:t\\x7f on device 0");
  assert_contains(text, "\n  m\\x1b[2J\n");
  assert_contains(text, "lib\\x1b[31m\\xc2\\x9b\xc3\xa9:t\\x0d ");
  assert_contains(text, "host\\x08\n");
  assert_contains(text, "on device 0: S\\x01: r\\x0a\n");
  assert_contains(text, " o\\x1b ");
  free(text);
  /* The JSON keeps the strings as they are. */
  text = render(snap, true);
  assert_contains(text, "\"lib\\u001b[31m\xc2\x9b\xc3\xa9\"");
  free(text);
  mr_snapshot_destroy(snap);

  /* A live context's name is the caller's, any bytes. */
  static const mr_tag tags[] = {{"temp", "host"}};
  mr_context_desc desc = {
      .size = sizeof desc, .library = "live\x1b[H\xff", .tags = tags, .tag_count = 1};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  void *p = alloc(ctx, 0, 64);
  snap = take();
  text = render(snap, false);
  assert_no_control(text);
  assert_contains(text, "live\\x1b[H\\xff:temp ");
  free(text);
  mr_snapshot_destroy(snap);
  release(ctx, 0, p, 64);
  mr_context_destroy(ctx);
}

static void test_read_refuses(void **state) {
  read_fails("", "snapshot JSON: line 1, column 1: the text ends where a value should be");
  read_fails("not json", "line 1, column 1: expected a value");
  read_fails("{\"a\": 1,\n  \"b\" 2}", "line 2, column 7: expected ':' after the member name");
  read_fails("{\"a\": [1, 2}", "line 1, column 12: expected ',' or ']' after an element");
  read_fails("{\"a\": \"open", "line 1, column 7: the string does not end");
  read_fails("{\"a\": 1", "line 1, column 1: the object does not end");
  read_fails("{\"a\": 01}", "a number with a leading zero");
  read_fails("{\"a\": \"\\u0000\"}", "a NUL character");
  read_fails("{\"a\": \"\\ud800\"}", "lone UTF-16 surrogate");
  read_fails("{\"a\": \"\\q\"}", "an unknown escape");
  read_fails("{\"a\": \"\xc3\x28\"}", "the text is not UTF-8");
  read_fails("{\"a\": \"line\nbreak\"}", "a line break inside a string");
  read_fails("{\"a\": 1} x", "line 1, column 10: more text after the value");
  read_fails("{\"a\": 1, \"b\": 2, \"a\": 3}", "line 1, column 23: the member \"a\" appears twice");
  char deep[200];
  memset(deep, '[', 100);
  deep[100] = '\0';
  read_fails(deep, "nested too deeply");

  read_fails("[]", "snapshot JSON: the document: expected an object, found an array");
  read_fails("{\"schema\": \"other\"}", "this is not an mrctx snapshot");
  read_fails("{}", "this is not an mrctx snapshot");
  read_fails("{\"schema\": \"mrctx-snapshot\", \"version\": 2}",
             "version 2 is newer than this mrctx");
  read_fails("{\"schema\": \"mrctx-snapshot\", \"version\": \"1\"}",
             "version: expected a number, found a string");
  read_fails(HEAD "\"pid\": 1}", "the document: the member \"time_unix_ns\" is missing");
  read_fails(HEAD "\"pid\": -1, " REST, "pid: expected a whole number from 0 to");
  read_fails(HEAD "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"boom\", \"contexts\": []}",
             "trigger: expected \"request\" or \"out_of_memory\"");
  read_fails(HEAD "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"out_of_memory\", "
                  "\"contexts\": [], \"pools\": []}",
             "the member \"out_of_memory\" is missing");
  read_fails(HEAD "\"pid\": 1, \"time_unix_ns\": 18446744073709551616, \"trigger\": "
                  "\"request\", \"contexts\": [], \"pools\": []}",
             "time_unix_ns: expected a whole number from 0 to 18446744073709551615");
  read_fails(HEAD "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"request\", \"contexts\": [1]}",
             "contexts[0]: expected an object, found a number");
  read_fails(HEAD "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"request\", \"contexts\": [{"
                  "\"id\": 1, \"library\": \"l\", \"device_count\": 1, \"tags\": [{\"tag\": \"t\", "
                  "\"devices\": [{\"device\": 0, \"spec\": \"host\", \"origin\": \"default\", "
                  "\"stats\": {\"current_bytes\": 1}}]}]}], \"pools\": []}",
             "contexts[0].tags[0].devices[0].stats: the member \"peak_bytes\" is missing");
  read_fails(HEAD
             "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"request\", \"contexts\": [{"
             "\"id\": 1, \"library\": \"l\", \"device_count\": 1, \"tags\": [{\"tag\": \"t\", "
             "\"devices\": [{\"device\": 0, \"spec\": \"host\", \"origin\": \"default\", " STATS
             ", \"track\": {\"live_count\": 1, \"live_bytes\": 1, \"largest\": [{\"ptr\": "
             "\"12\", \"bytes\": 1, \"alignment\": 1, \"stream\": \"0x0\", \"age_ns\": 1}]}}]}]}"
             "], \"pools\": []}",
             "contexts[0].tags[0].devices[0].track.largest[0].ptr: expected an address");
  /* Shorter than "0x": the check once read past the string's end (found
   * by fuzz_snapshot_json; an AddressSanitizer build sees the read). */
  read_fails(HEAD
             "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"request\", \"contexts\": [{"
             "\"id\": 1, \"library\": \"l\", \"device_count\": 1, \"tags\": [{\"tag\": \"t\", "
             "\"devices\": [{\"device\": 0, \"spec\": \"host\", \"origin\": \"default\", " STATS
             ", \"track\": {\"live_count\": 1, \"live_bytes\": 1, \"largest\": [{\"ptr\": "
             "\"7\", \"bytes\": 1, \"alignment\": 1, \"stream\": \"0x0\", \"age_ns\": 1}]}}]}]}"
             "], \"pools\": []}",
             "contexts[0].tags[0].devices[0].track.largest[0].ptr: expected an address");
  read_fails(HEAD "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"out_of_memory\", "
                  "\"out_of_memory\": {\"library\": \"l\", \"tag\": \"t\", \"device\": 0, "
                  "\"bytes\": 1, \"stream\": \"\", \"message\": \"m\"}, \"contexts\": [], "
                  "\"pools\": []}",
             "out_of_memory.stream: expected an address");
  read_fails(HEAD "\"pid\": 1, \"time_unix_ns\": 5, \"trigger\": \"request\", \"contexts\": [], "
                  "\"pools\": [{\"pool\": \"owned\", \"kind\": \"disk\"}]}",
             "pools[0].kind: expected \"device\", \"pinned\" or \"managed\" (line 1, column");
  mr_snapshot *snap = (mr_snapshot *)0x1;
  assert_status(mr_snapshot_read(NULL, 0, &snap), MR_ERR_INVALID_ARGUMENT);
  assert_null(snap);
  assert_status(mr_snapshot_read("{}", 2, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_snapshot_write_json(NULL, stdout), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_snapshot_write_text(NULL, stdout), MR_ERR_INVALID_ARGUMENT);
  mr_snapshot_destroy(NULL);
}

/* A write that fails (a full disk) is reported. */
static void test_write_failure(void **state) {
  FILE *full = fopen("/dev/full", "w");
  if (full == NULL) skip();
  mr_snapshot *snap = take();
  assert_status(mr_snapshot_write_json(snap, full), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_snapshot_write_json: writing failed");
  assert_status(mr_snapshot_write_text(snap, full), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_snapshot_write_text: writing failed");
  fclose(full);
  mr_snapshot_destroy(snap);
}

/* Every host allocation of taking, writing and reading fails in turn: each
 * failure is clean (the sanitizer builds check for leaks). */
static void test_host_faults(void **state) {
  static const mr_tag tags[] = {{"kept", "track(host)"}, {"cached", "cache(host)"}};
  mr_context *ctx = create("faults", tags, 2);
  void *p = alloc(ctx, 0, 100);
  mr_snapshot *good = take();
  char *json = render(good, true);
  mr_snapshot_destroy(good);
  bool done = false;
  for (long n = 1; !done && n < 10000; n++) {
    mri_host_fault_arm(n, 1);
    mr_snapshot *snap = NULL, *back = NULL;
    mr_status taken = mr_snapshot_take(NULL, &snap);
    mr_status read = mr_snapshot_read(json, strlen(json), &back);
    mr_status text = MR_OK;
    if (back != NULL) {
      FILE *sink = fopen("/dev/null", "w");
      text = mr_snapshot_write_text(back, sink);
      fclose(sink);
    }
    long counted = mri_host_fault_arm(0, 0);
    done = counted < n; /* nothing failed: every allocation was walked */
    if (taken != MR_OK) assert_int_equal(taken, MR_ERR_OUT_OF_MEMORY);
    if (read != MR_OK) assert_int_equal(read, MR_ERR_OUT_OF_MEMORY);
    if (text != MR_OK) assert_int_equal(text, MR_ERR_OUT_OF_MEMORY);
    assert_true(done == (taken == MR_OK && read == MR_OK && text == MR_OK));
    mr_snapshot_destroy(snap);
    mr_snapshot_destroy(back);
  }
  assert_true(done);
  free(json);
  release(ctx, 0, p, 100);
  mr_context_destroy(ctx);
}

/* ---- threads -------------------------------------------------------------------------- */

static _Atomic bool stop;

static void *churn(void *arg) {
  static const mr_tag tags[] = {{"t", "track(cache(host))"}};
  while (!atomic_load(&stop)) {
    mr_context *ctx = create("churn", tags, 1);
    for (int i = 0; i < 50; i++) {
      void *p = NULL;
      if (mr_allocate(mr_context_get_mr_on(ctx, 0, 0), 4096, 0, NULL, &p) == MR_OK &&
          mr_deallocate(mr_context_get_mr_on(ctx, 0, 0), p, 4096, 0, NULL) != MR_OK)
        abort();
    }
    mr_context_destroy(ctx);
  }
  return NULL;
}

/* Snapshots while other threads create, use and destroy contexts. */
static void test_concurrent(void **state) {
  pthread_t threads[2];
  atomic_store(&stop, false);
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&threads[i], NULL, churn, NULL), 0);
  for (int i = 0; i < 200; i++) {
    mr_snapshot *snap = take();
    char *json = render(snap, true);
    mr_snapshot *back = NULL;
    assert_ok(mr_snapshot_read(json, strlen(json), &back));
    mr_snapshot_destroy(back);
    free(json);
    mr_snapshot_destroy(snap);
  }
  atomic_store(&stop, true);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
}

/* ---- out of memory ------------------------------------------------------------------- */

typedef struct seen {
  int calls;
  char library[64], tag[64], message[512], path[512];
  int device;
  size_t bytes;
  mr_stream stream;
  mr_context *again; /* allocate from it inside the observer */
} seen;

static void observe(void *user, const mr_oom_event *event) {
  seen *s = user;
  s->calls++;
  snprintf(s->library, sizeof s->library, "%s", event->library);
  snprintf(s->tag, sizeof s->tag, "%s", event->tag);
  snprintf(s->message, sizeof s->message, "%s", event->message);
  snprintf(s->path, sizeof s->path, "%s", event->snapshot_path ? event->snapshot_path : "");
  s->device = event->device;
  s->bytes = event->bytes;
  s->stream = event->stream;
  if (s->again != NULL) {
    void *p = NULL;
    /* Runs out again: no second report. */
    if (mr_allocate(mr_context_get_mr_on(s->again, 0, 0), 1 << 20, 0, NULL, &p) == MR_OK) abort();
  }
}

enum { SMALL, BIG };
static const mr_tag oom_tags[] = {
    [SMALL] = {"small", "limit(host, bytes=4KiB)"}, [BIG] = {"big", "track(host)"}};

/* Run out of memory in `ctx`'s small tag; the status and message stand. */
static void run_out(mr_context *ctx) {
  void *p = (void *)0x1;
  mr_status st = mr_allocate(mr_context_get_mr_on(ctx, SMALL, 0), 8192, 0, (mr_stream)0x40, &p);
  assert_int_equal(st, MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("limit of 4096 bytes");
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return NULL;
  char *text = NULL;
  size_t cap = 0;
  ssize_t n = getdelim(&text, &cap, '\0', f);
  fclose(f);
  if (n < 0) {
    free(text);
    return NULL;
  }
  return text;
}

/* run_out(ctx) with stderr in a file; what it said (the caller frees it). */
static char *run_out_saying(mr_context *ctx) {
  char err_path[] = "/tmp/mrctx-oom-stderr-XXXXXX";
  int err_fd = mkstemp(err_path);
  assert_true(err_fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  assert_int_equal(dup2(err_fd, 2), 2);
  run_out(ctx);
  fflush(stderr);
  assert_int_equal(dup2(saved, 2), 2);
  close(saved);
  close(err_fd);
  char *said = read_all(err_path);
  unlink(err_path);
  assert_non_null(said);
  return said;
}

static void test_oom_observer_and_dump(void **state) {
  char dir[] = "/tmp/mrctx-oom-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char template[128], path[128];
  snprintf(template, sizeof template, "%s/dump-%%p-%%%%.json", dir);
  snprintf(path, sizeof path, "%s/dump-%d-%%.json", dir, (int)getpid());
  mr_context *a = create("liba", oom_tags, 2);
  mr_context *b = create("libb", oom_tags, 2);
  void *held = alloc(b, BIG, 3 << 20);
  seen s = {0};
  mr_set_oom_observer(observe, &s);

  /* Not asked for: no file; the observer is told. */
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();
  run_out(a);
  assert_int_equal(s.calls, 1);
  assert_string_equal(s.library, "liba");
  assert_string_equal(s.tag, "small");
  assert_int_equal(s.device, 0);
  assert_int_equal(s.bytes, 8192);
  assert_ptr_equal(s.stream, (mr_stream)0x40);
  assert_string_equal(s.path, "");
  assert_non_null(strstr(s.message, "limit of 4096 bytes"));
  assert_int_equal(access(path, F_OK), -1);

  /* Asked for: the file names both libraries and what they hold, and a
   * line on stderr says where it went. */
  assert_int_equal(setenv("MRCTX_OOM_SNAPSHOT", template, 1), 0);
  mri_oom_forget_env();
  char *said = run_out_saying(a);
  char where[512];
  snprintf(where, sizeof where,
           "mrctx: out of memory in liba:small on device 0: snapshot written to '%s' "
           "(mrctx snapshot %s shows it)\n",
           path, path);
  assert_string_equal(said, where);
  free(said);
  assert_int_equal(s.calls, 2);
  assert_string_equal(s.path, path);
  char *json = read_all(path);
  assert_non_null(json);
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_read(json, strlen(json), &snap));
  free(json);
  assert_true(snap->has_oom);
  assert_string_equal(snap->oom.library, "liba");
  assert_string_equal(snap->oom.tag, "small");
  assert_int_equal(snap->oom.bytes, 8192);
  assert_int_equal(snap->oom.stream, 0x40);
  assert_non_null(strstr(snap->oom.message, "limit of 4096 bytes"));
  assert_int_equal(find_slot(snap, "libb", "big")->stats.current_bytes, 3 << 20);
  assert_int_equal(find_slot(snap, "libb", "big")->blocks[0].bytes, 3 << 20);
  assert_int_equal(find_slot(snap, "liba", "small")->stats.failed_count, 2);
  mr_snapshot_destroy(snap);

  /* An out-of-memory inside the observer reports nothing more. */
  s.again = a;
  run_out(b);
  assert_int_equal(s.calls, 3);
  assert_string_equal(s.library, "libb");
  s.again = NULL;

  mr_set_oom_observer(NULL, NULL);
  run_out(a);
  assert_int_equal(s.calls, 3);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rmdir(dir), 0);
  release(b, BIG, held, 3 << 20);
  mr_context_destroy(a);
  mr_context_destroy(b);
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();
}

/* A file that cannot be written: a message on stderr naming it and why,
 * and the allocation's own status and message. */
static void test_oom_unwritable(void **state) {
  mr_context *a = create("liba", oom_tags, 2);
  seen s = {0};
  mr_set_oom_observer(observe, &s);
  assert_int_equal(setenv("MRCTX_OOM_SNAPSHOT", "/nonexistent-dir/oom.json", 1), 0);
  mri_oom_forget_env();
  /* stderr into a file for the duration. */
  char err_path[] = "/tmp/mrctx-oom-stderr-XXXXXX";
  int err_fd = mkstemp(err_path);
  assert_true(err_fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  assert_int_equal(dup2(err_fd, 2), 2);
  run_out(a);
  fflush(stderr);
  assert_int_equal(dup2(saved, 2), 2);
  close(saved);
  close(err_fd);
  char *said = read_all(err_path);
  unlink(err_path);
  assert_non_null(said);
  assert_contains(said, "mrctx: cannot write the out-of-memory snapshot to "
                        "'/nonexistent-dir/oom.json': No such file or directory");
  free(said);
  assert_int_equal(s.calls, 1);
  assert_string_equal(s.path, ""); /* not written */
  mr_set_oom_observer(NULL, NULL);
  mr_context_destroy(a);
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();
}

/* Several threads run out of memory at once, each observer taking a
 * snapshot of its own and the dumps going to one file: all finish, and
 * the file holds one whole snapshot. */
static _Atomic int concurrent_calls;

static void observe_and_snapshot(void *user, const mr_oom_event *event) {
  atomic_fetch_add(&concurrent_calls, 1);
  mr_snapshot *snap = NULL;
  if (mr_snapshot_take(NULL, &snap) != MR_OK) abort();
  mr_snapshot_destroy(snap);
}

static void *run_out_repeatedly(void *arg) {
  mr_context *ctx = arg;
  for (int i = 0; i < 20; i++) {
    void *p = NULL;
    if (mr_allocate(mr_context_get_mr_on(ctx, SMALL, 0), 8192, 0, NULL, &p) !=
            MR_ERR_OUT_OF_MEMORY ||
        strstr(mr_last_error(), "limit of 4096 bytes") == NULL)
      abort();
  }
  return NULL;
}

static void test_oom_from_threads(void **state) {
  char dir[] = "/tmp/mrctx-oom-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/oom.json", dir);
  assert_int_equal(setenv("MRCTX_OOM_SNAPSHOT", path, 1), 0);
  mri_oom_forget_env();
  atomic_store(&concurrent_calls, 0);
  mr_set_oom_observer(observe_and_snapshot, NULL);
  mr_context *ctx = create("threads", oom_tags, 2);
  pthread_t threads[4];
  for (int i = 0; i < 4; i++)
    assert_int_equal(pthread_create(&threads[i], NULL, run_out_repeatedly, ctx), 0);
  for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
  assert_int_equal(atomic_load(&concurrent_calls), 80);
  char *json = read_all(path);
  assert_non_null(json);
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_read(json, strlen(json), &snap));
  assert_int_equal(find_slot(snap, "threads", "small")->stats.failed_count >= 1, 1);
  mr_snapshot_destroy(snap);
  free(json);
  mr_set_oom_observer(NULL, NULL);
  mr_context_destroy(ctx);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rmdir(dir), 0);
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();
}

/* Other failures are not out of memory: nothing is reported. */
static void test_oom_only_for_oom(void **state) {
  static const mr_tag tags[] = {{"host", "host"}};
  mr_context *ctx = create("other", tags, 1);
  seen s = {0};
  mr_set_oom_observer(observe, &s);
  void *p = NULL;
  assert_status(mr_allocate(mr_context_get_mr_on(ctx, 0, 0), 16, 3, NULL, &p),
                MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(s.calls, 0);
  mr_set_oom_observer(NULL, NULL);
  mr_context_destroy(ctx);
}

typedef struct tag_walk {
  int entries;
  uint64_t liba_small_bytes, libb_big_bytes;
} tag_walk;

static void walk_tag(void *user, const mr_snapshot_tag_entry *e) {
  tag_walk *w = user;
  w->entries++;
  assert_true(e->size >= sizeof *e);
  if (strcmp(e->library, "liba") == 0 && strcmp(e->tag, "small") == 0)
    w->liba_small_bytes += e->stats->current_bytes;
  if (strcmp(e->library, "libb") == 0 && strcmp(e->tag, "big") == 0)
    w->libb_big_bytes += e->stats->current_bytes;
  assert_non_null(e->spec);
}

/* What a program reading a dump sees through the accessors: when, why, and
 * every tag on every device with its statistics. */
static void test_info_and_tags(void **state) {
  mr_context *a = create("liba", oom_tags, 2);
  mr_context *b = create("libb", oom_tags, 2);
  void *held = alloc(b, BIG, 3 << 20);
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_take(NULL, &snap));
  mr_snapshot_info info = {.size = sizeof info};
  assert_ok(mr_snapshot_get_info(snap, &info));
  assert_int_equal(info.out_of_memory, 0);
  assert_null(info.oom_library);
  assert_int_equal(info.oom_device, -1);
  assert_true(info.time_unix_ns > 0);
  assert_int_equal(info.pid, getpid());
  assert_true(info.context_count >= 2);
  tag_walk w = {0};
  assert_ok(mr_snapshot_foreach_tag(snap, walk_tag, &w));
  assert_true(w.entries >= 4); /* two tags of each library, on every device slot */
  assert_int_equal(w.libb_big_bytes, 3 << 20);
  assert_int_equal(w.liba_small_bytes, 0);

  /* Bad input: a clear error, nothing written. */
  assert_status(mr_snapshot_get_info(NULL, &info), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_snapshot_get_info(snap, NULL), MR_ERR_INVALID_ARGUMENT);
  mr_snapshot_info unsized = {0};
  assert_status(mr_snapshot_get_info(snap, &unsized), MR_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(mr_last_error(), "mr_snapshot_info"));
  assert_status(mr_snapshot_foreach_tag(snap, NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_snapshot_foreach_tag(NULL, walk_tag, &w), MR_ERR_INVALID_ARGUMENT);
  mr_snapshot_destroy(snap);
  release(b, BIG, held, 3 << 20);
  mr_context_destroy(a);
  mr_context_destroy(b);
}

/* A snapshot's time, which the library computes itself (gmtime_r's lock
 * would hang a forked child), reads as gmtime_r reads it: every day
 * boundary of 1970-2600 (the last a snapshot can hold: 2^64 ns is in 2554),
 * leap days and centuries, and odd moments between. */
static void test_time_format(void **state) {
  uint64_t rng = 42;
  for (uint64_t day = 0; day <= 230000; day++) {
    for (int k = 0; k < 2; k++) {
      uint64_t seconds = day * 86400u + (k == 0 ? 0 : test_rand(&rng) % 86400u);
      uint64_t ns = seconds * 1000000000u + (k == 0 ? 0 : test_rand(&rng) % 1000000000u);
      if (ns / 1000000000u != seconds) continue; /* past 2^64 ns */
      char got[64], want[64], date[40];
      mri_format_time_utc(ns, got, sizeof got);
      time_t t = (time_t)seconds;
      struct tm utc;
      assert_non_null(gmtime_r(&t, &utc));
      strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &utc);
      snprintf(want, sizeof want, "%s.%03uZ", date, (unsigned)(ns / 1000000u % 1000u));
      if (strcmp(got, want) != 0)
        fail_msg("%llu ns: %s, gmtime_r says %s", (unsigned long long)ns, got, want);
    }
  }
  char last[64];
  mri_format_time_utc(UINT64_MAX, last, sizeof last);
  assert_string_equal(last, "2554-07-21T23:34:33.709Z");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_time_format),
      cmocka_unit_test(test_two_contexts),
      cmocka_unit_test(test_largest_blocks_option),
      cmocka_unit_test(test_call_sites),
      cmocka_unit_test(test_unavailable_tags),
      cmocka_unit_test(test_json_round_trip),
      cmocka_unit_test(test_read_accepts),
      cmocka_unit_test(test_read_refuses),
      cmocka_unit_test(test_write_failure),
      cmocka_unit_test(test_host_faults),
      cmocka_unit_test(test_concurrent),
      cmocka_unit_test(test_oom_observer_and_dump),
      cmocka_unit_test(test_oom_unwritable),
      cmocka_unit_test(test_oom_from_threads),
      cmocka_unit_test(test_oom_only_for_oom),
      cmocka_unit_test(test_info_and_tags),
      cmocka_unit_test(test_text_escapes_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
