/*
 * test_resolve.c: the registry, the mr_spec_args getters and
 * mr_resource_from_spec, through the public API: custom factories, every
 * getter and its errors (with the exact column), unknown parameters and
 * arguments, how factory failures are reported, and what a spec does on a
 * machine without a driver (the unit suite has none).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

/* ---- helpers --------------------------------------------------------------- */

static void expect_message(const char *expected) {
  if (strcmp(mr_last_error(), expected) != 0) {
    print_error("expected:\n%s\ngot:\n%s\n", expected, mr_last_error());
    fail();
  }
}

/* mr_resource_from_spec must fail with `status` and exactly `expected`. */
static void spec_fails(const char *spec, mr_status status, const char *expected) {
  mr_resource *mr = (mr_resource *)0x1;
  mr_clear_error();
  assert_status(mr_resource_from_spec(spec, 0, &mr), status);
  assert_null(mr);
  if (expected != NULL) expect_message(expected);
}

static void spec_describes(const char *spec, const char *description) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec(spec, 0, &mr));
  assert_non_null(mr);
  assert_string_equal(mr_resource_describe(mr), description);
  mr_resource_release(mr);
}

static void append_name(void *user, const char *name) {
  char *buf = user;
  if (buf[0] != '\0') strcat(buf, ", ");
  strcat(buf, name);
}

/* "device, device_default, host, ..." as the registry lists them. */
static const char *known_names(void) {
  static char buf[2048];
  buf[0] = '\0';
  mr_factory_foreach(append_name, buf);
  return buf;
}

/* ---- custom factories ------------------------------------------------------ */

/* Records what it was given; builds a host resource. */
typedef struct probe_record {
  int calls;
  int device;
  char name[32];
  size_t positional;
  uint64_t size, count;
  char word[64];
  int mode;
  bool has_flag;
  char upstream[64];
  char alt[64];
} probe_record;

static probe_record probe;

static mr_status probe_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  probe_record *r = user;
  r->calls++;
  r->device = mr_spec_args_device(args);
  snprintf(r->name, sizeof r->name, "%s", mr_spec_args_name(args));
  r->positional = mr_spec_args_positional_count(args);
  static const char *const modes[] = {"fast", "small", NULL};
  const char *word = NULL;
  mr_status st = mr_spec_args_size(args, "size", 7, &r->size);
  if (st == MR_OK) st = mr_spec_args_uint(args, "count", 3, &r->count);
  if (st == MR_OK) st = mr_spec_args_word(args, "word", "dflt", &word);
  if (st == MR_OK) st = mr_spec_args_choice(args, "mode", modes, 1, &r->mode);
  if (st != MR_OK) return st;
  snprintf(r->word, sizeof r->word, "%s", word);
  r->has_flag = mr_spec_args_has(args, "flag");
  if (r->has_flag) {
    uint64_t ignored;
    st = mr_spec_args_uint(args, "flag", 0, &ignored);
    if (st != MR_OK) return st;
  }
  r->upstream[0] = r->alt[0] = '\0';
  if (r->positional > 0) {
    mr_resource *up;
    st = mr_spec_args_upstream(args, 0, &up);
    if (st != MR_OK) return st;
    snprintf(r->upstream, sizeof r->upstream, "%s", mr_resource_describe(up));
    mr_resource_release(up);
  }
  mr_resource *alt;
  st = mr_spec_args_spec(args, "alt", &alt);
  if (st != MR_OK) return st;
  if (alt != NULL) {
    snprintf(r->alt, sizeof r->alt, "%s", mr_resource_describe(alt));
    mr_resource_release(alt);
  }
  return mr_host_resource_create(out);
}

/* Fails through mr_spec_args_error, at `why` if given. */
static mr_status complain_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  uint64_t why;
  mr_status st = mr_spec_args_uint(args, "why", 0, &why);
  if (st != MR_OK) return st;
  if (why == 0) return mr_spec_args_error(args, NULL, "refuses %s", "everything");
  return mr_spec_args_error(args, "why", "why=%llu is not allowed", (unsigned long long)why);
}

/* Fails with its own status and message (as a constructor would). */
typedef struct fixed_failure {
  mr_status status;
  const char *message;
} fixed_failure;

static mr_status fail_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  const fixed_failure *f = user;
  return mr_error(f->status, "%s", f->message);
}

static mr_status nothing_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  return MR_OK; /* success without a resource: a broken factory */
}

/* Takes an upstream (released on purpose before failing). */
static mr_status take_then_fail_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  mr_resource *up;
  mr_status st = mr_spec_args_upstream(args, 0, &up);
  if (st != MR_OK) return st;
  mr_resource_release(up);
  return mr_error(MR_ERR_INVALID_ARGUMENT, "take_then_fail: chunk is too small");
}

static const fixed_failure refuse = {MR_ERR_INVALID_ARGUMENT, "bad combination"};
static const fixed_failure out_of_memory = {MR_ERR_OUT_OF_MEMORY, "oom: 1TiB is too much"};
static const fixed_failure driver_error = {MR_ERR_DRIVER, "cuSomething: CUDA_ERROR_UNKNOWN"};
static const fixed_failure unsupported = {MR_ERR_UNSUPPORTED, "unsupported: no pools here"};
static const fixed_failure no_driver = {MR_ERR_NO_DRIVER, "nodrv: there is no driver"};
static const fixed_failure no_device = {MR_ERR_NO_DEVICE, "nodev: device 0 does not exist"};

/* verbose: host memory described by 3000 characters of spec text. */
static mr_status verbose_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                  void **ptr) {
  return MR_ERR_OUT_OF_MEMORY;
}
static mr_status verbose_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                    mr_stream stream) {
  return MR_OK;
}
static int verbose_describe(void *self, char *buf, size_t cap) {
  return snprintf(buf, cap, "verbose(note=\"%03000d\")", 7);
}
static const mr_resource_ops verbose_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "verbose",
    .allocate = verbose_allocate,
    .deallocate = verbose_deallocate,
    .describe = verbose_describe,
};
static mr_status verbose_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  const char *note;
  mr_status st = mr_spec_args_word(args, "note", "", &note);
  if (st != MR_OK) return st;
  return mr_resource_create(&verbose_ops, NULL, NULL, out);
}

static mr_status vspace_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  return vspace_resource_create(out);
}

static int register_all(void **state) {
  static bool done;
  if (done) return 0;
  done = true;
  assert_ok(mr_register_factory("probe", probe_factory, &probe));
  assert_ok(mr_register_factory("complain", complain_factory, NULL));
  assert_ok(mr_register_factory("refuse", fail_factory, (void *)&refuse));
  assert_ok(mr_register_factory("oom", fail_factory, (void *)&out_of_memory));
  assert_ok(mr_register_factory("drv", fail_factory, (void *)&driver_error));
  assert_ok(mr_register_factory("unsupported", fail_factory, (void *)&unsupported));
  assert_ok(mr_register_factory("nodrv", fail_factory, (void *)&no_driver));
  assert_ok(mr_register_factory("nodev", fail_factory, (void *)&no_device));
  assert_ok(mr_register_factory("nothing", nothing_factory, NULL));
  assert_ok(mr_register_factory("take_then_fail", take_then_fail_factory, NULL));
  assert_ok(mr_register_factory("vspace", vspace_factory, NULL));
  assert_ok(mr_register_factory("verbose", verbose_factory, NULL));
  return 0;
}

/* ---- built-ins and the registry ------------------------------------------ */

static void test_builtin_host_specs(void **state) {
  spec_describes("host", "host");
  spec_describes("host()", "host");
  spec_describes("  stats( host )  ", "stats(host)");
  spec_describes("stats(stats(host))", "stats(stats(host))");
  /* A spec is just a spec: comments and new lines are fine. */
  spec_describes("stats(  # count it\n  host)\n", "stats(host)");
  spec_describes("cache(host)", "cache(host)");
  spec_describes("cache(stats(host), max=64MiB)", "cache(stats(host), max=64MiB)");
  spec_fails("cache(host, max=64MB)", MR_ERR_CONFIG, NULL);
  assert_error_contains("spec, column 17: cache: max=64MB: '64MB': the unit 'MB' is ambiguous");
  spec_fails("cache", MR_ERR_CONFIG, NULL);
  assert_error_contains("cache: needs an upstream resource as its first argument");
}

static void test_adaptor_specs(void **state) {
  /* Defaults, and descriptions that parse back. */
  spec_describes("arena(host)", "arena(host, chunk=64MiB)");
  spec_describes("arena(host, chunk=1.5MiB)", "arena(host, chunk=1536KiB)");
  spec_describes("fixed(host)", "fixed(host, block=1MiB, count=16)");
  spec_describes("fixed(host, count=2, block=4K)", "fixed(host, block=4KiB, count=2)");
  spec_describes("bin(host)", "bin(host, min=256B, max=64KiB, count=64)");
  spec_describes("bin(host, min=1K, max=4K, count=2)", "bin(host, min=1KiB, max=4KiB, count=2)");
  spec_describes("limit(host, bytes=1GiB)", "limit(host, bytes=1GiB)");
  spec_describes("align(host, alignment=4K)", "align(host, alignment=4KiB)");
  spec_describes("retry(host)", "retry(host)");
  spec_describes("retry(host, attempts=5)", "retry(host, attempts=5)");
  spec_describes("track(host)", "track(host)");
  spec_describes("cache(arena(host))", "cache(arena(host, chunk=64MiB))");

  char dir[] = "/tmp/mrctx-spec-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char spec[256], description[256], path[128];
  snprintf(path, sizeof path, "%s/t.csv", dir);
  snprintf(spec, sizeof spec, "track(log(limit(arena(host, chunk=1MiB), bytes=4GiB), file=\"%s\"))",
           path);
  snprintf(description, sizeof description,
           "track(log(limit(arena(host, chunk=1MiB), bytes=4GiB), file=%s))", path);
  spec_describes(spec, description);
  unlink(path);
  rmdir(dir);

  /* Required parameters, checked values, and constructors' refusals. */
  spec_fails("limit(host)", MR_ERR_CONFIG,
             "spec, column 1: limit: needs bytes=SIZE (the most it lets be in use)\n"
             "  limit(host)\n"
             "  ^");
  spec_fails("log(host)", MR_ERR_CONFIG, NULL);
  assert_error_contains("spec, column 1: log: needs file=PATH (the CSV file to write)");
  spec_fails("align(host)", MR_ERR_CONFIG, NULL);
  assert_error_contains("spec, column 1: align: needs alignment=SIZE (a power of two)");
  spec_fails("align(host, alignment=3)", MR_ERR_CONFIG,
             "spec, column 13: align: alignment=3 is not a power of two\n"
             "  align(host, alignment=3)\n"
             "              ^");
  spec_fails("align(host, alignment=9223372036854775808B)", MR_ERR_CONFIG,
             "spec, column 13: align: alignment=9223372036854775808B is more than 2GiB, the "
             "largest align serves\n"
             "  align(host, alignment=9223372036854775808B)\n"
             "              ^");
  spec_fails("align(host, alignment=4GiB)", MR_ERR_CONFIG, NULL);
  assert_error_contains("align: alignment=4GiB is more than 2GiB, the largest align serves");
  spec_describes("align(host, alignment=2GiB)", "align(host, alignment=2GiB)");
  spec_fails("arena(host, chnk=1)", MR_ERR_CONFIG,
             "spec, column 13: arena: unknown parameter 'chnk' (known: chunk, keep, idle)\n"
             "  arena(host, chnk=1)\n"
             "              ^");
  spec_fails("fixed(host, count=4294967296)", MR_ERR_CONFIG,
             "spec, column 1: fixed(host): count 4294967296 is out of range (at most 4294967295 "
             "blocks of 1048576 bytes per slab)\n"
             "  fixed(host, count=4294967296)\n"
             "  ^");
  /* 0 is the constructor's default, as if the parameter were left out. */
  spec_describes("fixed(host, block=0, count=0)", "fixed(host, block=1MiB, count=16)");
  spec_fails("bin(host, min=100B)", MR_ERR_CONFIG, NULL);
  assert_error_contains("spec, column 1: bin(host): min 100 and max 65536 must be powers of two");
  /* At most 48 size classes (over addresses only, every class could be made). */
  spec_fails("bin(vspace, min=256B, max=4611686018427387904B, count=1)", MR_ERR_CONFIG,
             "spec, column 1: bin(vspace): min 256B to max 4194304TiB makes 55 size classes; at "
             "most 48 (e.g. max=32768TiB with min=256B)\n"
             "  bin(vspace, min=256B, max=4611686018427387904B, count=1)\n"
             "  ^");
  spec_describes("bin(vspace, min=256B, max=32768TiB, count=1)",
                 "bin(vspace, min=256B, max=32768TiB, count=1)");
  /* Chunks and blocks are rounded up to 256 bytes and must stay below 2^63
   * once rounded, or the description would name a size they refuse. */
  spec_describes("arena(host, chunk=9223372036854775552)",
                 "arena(host, chunk=9223372036854775552B)");
  spec_fails("arena(host, chunk=9223372036854775807)", MR_ERR_CONFIG,
             "spec, column 13: arena: chunk=9223372036854775807 is too large: at most "
             "9223372036854775552 bytes (it is rounded up to a multiple of 256)\n"
             "  arena(host, chunk=9223372036854775807)\n"
             "              ^");
  spec_describes("fixed(vspace, block=9223372036854775552, count=1)",
                 "fixed(vspace, block=9223372036854775552B, count=1)");
  spec_fails("fixed(vspace, block=9223372036854775553, count=1)", MR_ERR_CONFIG, NULL);
  assert_error_contains("fixed: block=9223372036854775553 is too large: at most "
                        "9223372036854775552 bytes (it is rounded up to a multiple of 256)");
  spec_fails("bin(host, mn=256)", MR_ERR_CONFIG, NULL);
  assert_error_contains("bin: unknown parameter 'mn' (known: min, max, count, keep, idle)");
  spec_fails("retry(host, attempts=99999999999)", MR_ERR_CONFIG, NULL);
  assert_error_contains("spec, column 13: retry: attempts=99999999999 is more than 2147483647");
  spec_fails("log(host, file=/nonexistent/dir/x.csv)", MR_ERR_CONFIG, NULL);
  assert_error_contains("cannot open '/nonexistent/dir/x.csv' for writing");
  spec_fails("arena", MR_ERR_CONFIG, NULL);
  assert_error_contains("spec, column 6: arena: needs an upstream resource as its first argument, "
                        "e.g. arena(device)");
  /* Over a device without a driver: parameters are still checked first. */
  spec_fails("arena(device, chunk=64MB)", MR_ERR_CONFIG, NULL);
  spec_fails("fixed(pinned, block=4MiB, count=32)", MR_ERR_NO_DRIVER, NULL);
  spec_fails("retry(arena(device))", MR_ERR_NO_DRIVER, NULL);
}

static void test_builtin_names_listed(void **state) {
  const char *names = known_names();
  const char *builtins[] = {"align",          "arena",        "bin",         "cache", "device",
                            "device_default", "fixed",        "host",        "limit", "log",
                            "managed",        "pinned",       "pool",        "retry", "stats",
                            "sync_device",    "sync_managed", "sync_pinned", "track"};
  for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
    char needle[64];
    snprintf(needle, sizeof needle, "%s", builtins[i]);
    if (strstr(names, needle) == NULL) {
      print_error("'%s' missing from \"%s\"\n", builtins[i], names);
      fail();
    }
  }
  /* Sorted. */
  char copy[2048];
  snprintf(copy, sizeof copy, "%s", names);
  char *prev = NULL;
  for (char *name = strtok(copy, ", "); name != NULL; name = strtok(NULL, ", ")) {
    if (prev != NULL && strcmp(prev, name) >= 0) {
      print_error("'%s' comes before '%s'\n", prev, name);
      fail();
    }
    prev = name;
  }
}

static void test_register_refusals(void **state) {
  assert_status(mr_register_factory("probe", probe_factory, NULL), MR_ERR_INVALID_ARGUMENT);
  expect_message("mr_register_factory: the resource name 'probe' is already registered");
  assert_status(mr_register_factory("host", probe_factory, NULL), MR_ERR_INVALID_ARGUMENT);
  expect_message("mr_register_factory: the resource name 'host' is already registered");
  const char *bad[] = {"",
                       "1abc",
                       "_x",
                       "a-b",
                       "a b",
                       "a.b",
                       "x2345678901234567890123456789012345678901234567890123456789012345"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_status(mr_register_factory(bad[i], probe_factory, NULL), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("is not a valid resource name");
  }
  /* 64 characters is the limit. */
  assert_ok(mr_register_factory("x234567890123456789012345678901234567890123456789012345678901234",
                                probe_factory, &probe));
  assert_status(mr_register_factory(NULL, probe_factory, NULL), MR_ERR_INVALID_ARGUMENT);
  expect_message("mr_register_factory: name is NULL");
  assert_status(mr_register_factory("nofn", NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  expect_message("mr_register_factory: 'nofn': factory is NULL");
}

static void test_unknown_name_lists_known(void **state) {
  char expected[4096];
  snprintf(expected, sizeof expected,
           "spec, column 7: unknown resource 'arina' (known: %s)\n"
           "  stats(arina(device))\n"
           "        ^",
           known_names());
  spec_fails("stats(arina(device))", MR_ERR_CONFIG, expected);
  assert_error_contains("probe");
}

enum { RACERS = 8 };

/* Each racer's factories record into its own probe record: the registry is
 * what races here, not the test's bookkeeping. Static, because the
 * factories stay registered after the test. */
static probe_record racer_probes[RACERS];

typedef struct racer {
  int index;
  mr_status status;
} racer;

static void *register_racer(void *arg) {
  racer *r = arg;
  probe_record *record = &racer_probes[r->index];
  char name[32];
  for (int i = 0; i < 20; i++) {
    snprintf(name, sizeof name, "race_%d_%d", r->index, i);
    mr_status st = mr_register_factory(name, probe_factory, record);
    if (st != MR_OK) r->status = st;
    mr_resource *mr = NULL;
    st = mr_resource_from_spec(name, 0, &mr);
    if (st != MR_OK) r->status = st;
    mr_resource_release(mr);
  }
  /* Everybody races for one name; exactly one wins (counted by the caller). */
  if (r->status == MR_OK) r->status = mr_register_factory("race_shared", probe_factory, record);
  return NULL;
}

static void test_registry_is_thread_safe(void **state) {
  enum { N = RACERS };
  pthread_t threads[N];
  racer racers[N];
  for (int i = 0; i < N; i++) {
    racers[i] = (racer){.index = i, .status = MR_OK};
    assert_int_equal(pthread_create(&threads[i], NULL, register_racer, &racers[i]), 0);
  }
  int won = 0;
  for (int i = 0; i < N; i++) {
    pthread_join(threads[i], NULL);
    if (racers[i].status == MR_OK)
      won++;
    else
      assert_int_equal(racers[i].status, MR_ERR_INVALID_ARGUMENT);
  }
  assert_int_equal(won, 1);
  assert_non_null(strstr(known_names(), "race_7_19"));
  /* Every racer's factory ran once per name it registered. */
  for (int i = 0; i < N; i++) assert_int_equal(racer_probes[i].calls, 20);
}

/* ---- getters ---------------------------------------------------------------- */

static void test_getters_read_values(void **state) {
  memset(&probe, 0, sizeof probe);
  spec_describes("probe(stats(host), size=1.5KiB, count=42, word=/tmp/a.csv, mode=fast, flag=1,"
                 " alt=stats(host))",
                 "host");
  assert_int_equal(probe.calls, 1);
  assert_int_equal(probe.device, 0);
  assert_string_equal(probe.name, "probe");
  assert_int_equal(probe.positional, 1);
  assert_int_equal(probe.size, 1536);
  assert_int_equal(probe.count, 42);
  assert_string_equal(probe.word, "/tmp/a.csv");
  assert_int_equal(probe.mode, 0);
  assert_true(probe.has_flag);
  assert_string_equal(probe.upstream, "stats(host)");
  assert_string_equal(probe.alt, "stats(host)");

  /* Defaults when absent. */
  spec_describes("probe", "host");
  assert_int_equal(probe.size, 7);
  assert_int_equal(probe.count, 3);
  assert_string_equal(probe.word, "dflt");
  assert_int_equal(probe.mode, 1);
  assert_false(probe.has_flag);
  assert_int_equal(probe.positional, 0);

  /* Quoted words, bare names as specs, and numbers as words. */
  spec_describes("probe(word=\"a b#c\", alt=host)", "host");
  assert_string_equal(probe.word, "a b#c");
  assert_string_equal(probe.alt, "host");
  spec_describes("probe(word=64MiB, size=0)", "host");
  assert_string_equal(probe.word, "64MiB");
  assert_int_equal(probe.size, 0);
  spec_describes("probe(count=18446744073709551615)", "host");
  assert_int_equal(probe.count, UINT64_MAX);
}

/* A bare number where a size is meant is bytes, and below 4096 that is
 * almost always a forgotten unit (arena(device, chunk=64) meant 64MiB, not
 * one 256-byte chunk): refused, saying so, at the value. 0 means what it
 * means to the resource, a bare number from 4096 up is taken as written
 * bytes, and an alignment is naturally a small byte count. */
static void test_bare_sizes_need_a_unit(void **state) {
  spec_fails("arena(host, chunk=64)", MR_ERR_CONFIG,
             "spec, column 19: arena: chunk=64: a size needs a unit (64B, 64KiB, 64MiB); bare "
             "numbers below 4096 are refused as likely mistakes\n"
             "  arena(host, chunk=64)\n"
             "                    ^");
  spec_fails("fixed(host, block=1, count=2)", MR_ERR_CONFIG, NULL);
  assert_error_contains("fixed: block=1: a size needs a unit (1B, 1KiB, 1MiB)");
  spec_fails("cache(host, max=512)", MR_ERR_CONFIG, NULL);
  assert_error_contains("cache: max=512: a size needs a unit");
  spec_fails("limit(host, bytes=4095)", MR_ERR_CONFIG, NULL);
  assert_error_contains("limit: bytes=4095: a size needs a unit");
  spec_fails("bin(host, min=256, max=64KiB)", MR_ERR_CONFIG, NULL);
  assert_error_contains("bin: min=256: a size needs a unit");
  spec_fails("pool(max=100)", MR_ERR_CONFIG, NULL);
  assert_error_contains("pool: max=100: a size needs a unit");
  spec_fails("pool(release=1024)", MR_ERR_CONFIG, NULL);
  spec_fails("pool(initial=2.5)", MR_ERR_CONFIG, NULL); /* not whole bytes, either way */
  spec_fails("probe(size=12)", MR_ERR_CONFIG, NULL);    /* an application's factory too */
  assert_error_contains("probe: size=12: a size needs a unit (12B, 12KiB, 12MiB)");
  spec_fails("arena(host, chunk=64.0)", MR_ERR_CONFIG, NULL);
  assert_error_contains("arena: chunk=64.0: a size needs a unit (64.0B, 64.0KiB, 64.0MiB)");
  /* With a unit, any size; 0 and bare numbers from 4096 up as before. */
  spec_describes("arena(host, chunk=64B)", "arena(host, chunk=256B)");
  spec_describes("limit(host, bytes=1b)", "limit(host, bytes=1B)");
  spec_describes("limit(host, bytes=4096)", "limit(host, bytes=4KiB)");
  spec_describes("limit(host, bytes=0)", "limit(host, bytes=0B)");
  spec_describes("arena(host, chunk=0.0)", "arena(host, chunk=64MiB)");
  spec_describes("bin(host, min=256B, max=1024B, count=1)",
                 "bin(host, min=256B, max=1KiB, count=1)");
  /* Alignments are byte counts by nature: bare ones stay accepted. */
  spec_describes("align(host, alignment=512)", "align(host, alignment=512B)");
  spec_describes("align(host, alignment=1)", "align(host, alignment=1B)");
  spec_fails("align(host, alignment=3)", MR_ERR_CONFIG, NULL);
  assert_error_contains("alignment=3 is not a power of two");
  /* Counts are not sizes. */
  spec_describes("fixed(host, block=4KiB, count=3)", "fixed(host, block=4KiB, count=3)");
}

static void test_getter_errors(void **state) {
  spec_fails("probe(size=abc)", MR_ERR_CONFIG,
             "spec, column 12: probe: size=abc: 'abc' is not a size (a number with an optional "
             "unit: B, K, KiB, M, MiB, G, GiB, T, TiB; or N%)\n"
             "  probe(size=abc)\n"
             "             ^");
  spec_fails("probe(size=64MB)", MR_ERR_CONFIG,
             "spec, column 12: probe: size=64MB: '64MB': the unit 'MB' is ambiguous (units here "
             "are binary): write 64MiB or 64M\n"
             "  probe(size=64MB)\n"
             "             ^");
  spec_fails("probe(size=99999999T)", MR_ERR_CONFIG,
             "spec, column 12: probe: size=99999999T: the size is larger than 2^64 - 1 bytes\n"
             "  probe(size=99999999T)\n"
             "             ^");
  spec_fails("probe(size=\"64MiB\")", MR_ERR_CONFIG,
             "spec, column 12: probe: size expects a size, found a quoted string\n"
             "  probe(size=\"64MiB\")\n"
             "             ^");
  spec_fails("probe(size=host())", MR_ERR_CONFIG,
             "spec, column 12: probe: size expects a size, found a resource spec\n"
             "  probe(size=host())\n"
             "             ^");
  spec_fails("probe(count=-1)", MR_ERR_CONFIG,
             "spec, column 13: probe: count=-1: expected a whole number (digits only)\n"
             "  probe(count=-1)\n"
             "              ^");
  spec_fails("probe(count=1.5)", MR_ERR_CONFIG, NULL);
  assert_error_contains("probe: count=1.5: expected a whole number (digits only)");
  spec_fails("probe(count=18446744073709551616)", MR_ERR_CONFIG, NULL);
  assert_error_contains("probe: count=18446744073709551616: the number is larger than 2^64 - 1");
  spec_fails("probe(count=@x)", MR_ERR_CONFIG, NULL);
  assert_error_contains("probe: count expects a whole number, found a tag reference");
  spec_fails("probe(word=stats(host))", MR_ERR_CONFIG,
             "spec, column 12: probe: word expects a word or a quoted string, found a resource "
             "spec\n"
             "  probe(word=stats(host))\n"
             "             ^");
  spec_fails("probe(mode=maybe)", MR_ERR_CONFIG,
             "spec, column 12: probe: mode=maybe: expected one of fast, small\n"
             "  probe(mode=maybe)\n"
             "             ^");
  spec_fails("probe(mode=\"fast\")", MR_ERR_CONFIG, NULL);
  assert_error_contains("probe: mode expects one of fast, small, found a quoted string");
  spec_fails("probe(alt=\"host\")", MR_ERR_CONFIG,
             "spec, column 11: expected a resource, found a quoted string\n"
             "  probe(alt=\"host\")\n"
             "            ^");
  spec_fails("probe(alt=64M)", MR_ERR_CONFIG,
             "spec, column 11: expected a resource, found '64M'\n"
             "  probe(alt=64M)\n"
             "            ^");
  spec_fails("probe(alt=hots)", MR_ERR_CONFIG, NULL);
  assert_error_contains("spec, column 11: unknown resource 'hots' (known: ");
}

static void test_unknown_parameters(void **state) {
  spec_fails("probe(sise=1)", MR_ERR_CONFIG,
             "spec, column 7: probe: unknown parameter 'sise' (known: size, count, word, mode, "
             "flag, alt)\n"
             "  probe(sise=1)\n"
             "        ^");
  spec_fails("track(host, chunk=1)", MR_ERR_CONFIG,
             "spec, column 13: track: unknown parameter 'chunk' (known: stacks)\n"
             "  track(host, chunk=1)\n"
             "              ^");
  spec_fails("stats(host, host)", MR_ERR_CONFIG,
             "spec, column 13: stats: unexpected argument 'host' (stats takes 1 upstream "
             "resource)\n"
             "  stats(host, host)\n"
             "              ^");
  spec_fails("host(stats(host))", MR_ERR_CONFIG,
             "spec, column 6: host: unexpected argument 'stats(host)' (host takes no upstream "
             "resources)\n"
             "  host(stats(host))\n"
             "       ^");
  /* A parameter read by a factory that then fails is not reported twice:
   * the first error wins. */
  spec_fails("probe(size=x, sise=1)", MR_ERR_CONFIG, NULL);
  assert_error_contains("probe: size=x:");
}

static void test_missing_upstream(void **state) {
  spec_fails("stats", MR_ERR_CONFIG,
             "spec, column 6: stats: needs an upstream resource as its first argument, e.g. "
             "stats(device)\n"
             "  stats\n"
             "       ^");
  spec_fails("stats()", MR_ERR_CONFIG,
             "spec, column 7: stats: needs an upstream resource as its first argument, e.g. "
             "stats(device)\n"
             "  stats()\n"
             "        ^");
  spec_fails("stats(stats(  ))", MR_ERR_CONFIG, NULL);
  assert_error_contains("spec, column 13: stats: needs an upstream resource");
}

static void test_factory_failures_are_located(void **state) {
  spec_fails("stats(complain)", MR_ERR_CONFIG,
             "spec, column 7: complain: refuses everything\n"
             "  stats(complain)\n"
             "        ^");
  spec_fails("complain(why=3)", MR_ERR_CONFIG,
             "spec, column 10: complain: why=3 is not allowed\n"
             "  complain(why=3)\n"
             "           ^");
  /* A constructor's complaint becomes a config error at the call. */
  spec_fails("stats(refuse)", MR_ERR_CONFIG,
             "spec, column 7: refuse: bad combination\n"
             "  stats(refuse)\n"
             "        ^");
  spec_fails("unsupported", MR_ERR_CONFIG,
             "spec, column 1: unsupported: no pools here\n"
             "  unsupported\n"
             "  ^");
  spec_fails("take_then_fail(host)", MR_ERR_CONFIG,
             "spec, column 1: take_then_fail: chunk is too small\n"
             "  take_then_fail(host)\n"
             "  ^");
  /* Out of memory and driver failures are not the text's fault. */
  spec_fails("oom", MR_ERR_OUT_OF_MEMORY, "spec, column 1: oom: 1TiB is too much\n  oom\n  ^");
  spec_fails("stats(drv)", MR_ERR_DRIVER,
             "spec, column 7: drv: cuSomething: CUDA_ERROR_UNKNOWN\n"
             "  stats(drv)\n"
             "        ^");
  spec_fails("nothing", MR_ERR_CONFIG,
             "spec, column 1: the factory for 'nothing' reported success but made no resource\n"
             "  nothing\n"
             "  ^");
}

static void test_unavailable_resources(void **state) {
  /* Outside a context a missing driver or device is reported as such. */
  spec_fails("nodrv", MR_ERR_NO_DRIVER, "nodrv: there is no driver");
  spec_fails("stats(nodev)", MR_ERR_NO_DEVICE, "nodev: device 0 does not exist");
  spec_fails("device", MR_ERR_NO_DRIVER, NULL);
  assert_error_contains("device: ");
  assert_error_says_no_driver();
  spec_fails("stats(pinned)", MR_ERR_NO_DRIVER, NULL);
  spec_fails("pool(kind=managed, max=1GiB)", MR_ERR_NO_DRIVER, NULL);
  /* A sync resource's reason is a note (see the fake suite); it is read as
   * a word or a quoted string, and only the sync_* names take it. */
  spec_fails("sync_device(reason=\"no pools on device 3\")", MR_ERR_NO_DRIVER, NULL);
  spec_fails("sync_pinned(reason=why)", MR_ERR_NO_DRIVER, NULL);
  spec_fails("sync_managed(reason=stats(host))", MR_ERR_CONFIG, NULL);
  assert_error_contains("sync_managed: reason expects a word or a quoted string, found a "
                        "resource spec");
  spec_fails("device(reason=\"x\")", MR_ERR_CONFIG, NULL);
  assert_error_contains("device: unknown parameter 'reason' (device takes no parameters)");
  /* Sizes in % need the device's memory. */
  spec_fails("probe(size=50%)", MR_ERR_NO_DRIVER, NULL);
  assert_error_contains("probe: size=50% is a share of device 0's memory, which cannot be read");
  spec_fails("probe(size=0%)", MR_ERR_NO_DRIVER, NULL);
  /* More than all of it is a mistake in the text, driver or not. */
  spec_fails("arena(host, chunk=200%)", MR_ERR_CONFIG,
             "spec, column 19: arena: chunk=200%: '200%' is more than 100% (a size in % is a "
             "share of the device's memory)\n"
             "  arena(host, chunk=200%)\n"
             "                    ^");
  spec_fails("probe(size=101%)", MR_ERR_CONFIG, NULL);
  assert_error_contains("probe: size=101%: '101%' is more than 100%");
  spec_fails("limit(device, bytes=1000000%)", MR_ERR_CONFIG, NULL);
  assert_error_contains("limit: bytes=1000000%: '1000000%' is more than 100%");
  /* Mistakes in the text are still config errors, driver or not. */
  spec_fails("device(x=1)", MR_ERR_CONFIG,
             "spec, column 8: device: unknown parameter 'x' (device takes no parameters)\n"
             "  device(x=1)\n"
             "         ^");
  spec_fails("stats(device, x=1)", MR_ERR_CONFIG, NULL);
  assert_error_contains("stats: unknown parameter 'x'");
  spec_fails("nodrv(x=1)", MR_ERR_CONFIG, NULL);
  assert_error_contains("nodrv: unknown parameter 'x' (nodrv takes no parameters)");
}

static void test_pool_parameters(void **state) {
  spec_fails("pool(kind=gpu)", MR_ERR_CONFIG,
             "spec, column 11: pool: kind=gpu: expected one of device, pinned, managed\n"
             "  pool(kind=gpu)\n"
             "            ^");
  spec_fails("pool(release=maxx)", MR_ERR_CONFIG, NULL);
  assert_error_contains("pool: release=maxx: 'maxx' is not a size");
  spec_fails("pool(access=some)", MR_ERR_CONFIG, NULL);
  assert_error_contains("pool: access=some: expected one of all, none");
  spec_fails("pool(initial=1x)", MR_ERR_CONFIG, NULL);
  spec_fails("pool(max=1.5)", MR_ERR_CONFIG, NULL);
  spec_fails("pool(bogus=1)", MR_ERR_CONFIG, NULL);
  assert_error_contains("pool: unknown parameter 'bogus' (known: kind, release, max, initial, "
                        "access, ipc)");
  spec_fails("pool(ipc=shm)", MR_ERR_CONFIG, NULL);
  assert_error_contains("pool: ipc=shm: expected one of none, fd");
  /* Refused before the driver is asked: only device pools are shared. */
  spec_fails("pool(kind=pinned, ipc=fd)", MR_ERR_CONFIG, NULL);
  assert_error_contains("only device pools can be shared between processes");
  /* Well-formed: the driver is what is missing. */
  spec_fails("pool(kind=pinned, release=max, max=1GiB, initial=64MiB, access=none)",
             MR_ERR_NO_DRIVER, NULL);
  spec_fails("pool(release=0)", MR_ERR_NO_DRIVER, NULL);
  spec_fails("pool(kind=device, ipc=fd)", MR_ERR_NO_DRIVER, NULL);
}

static void test_from_spec_arguments(void **state) {
  mr_resource *mr = (mr_resource *)0x1;
  assert_status(mr_resource_from_spec(NULL, 0, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_status(mr_resource_from_spec("host", 0, NULL), MR_ERR_INVALID_ARGUMENT);
  mr = (mr_resource *)0x1;
  assert_status(mr_resource_from_spec("host", -1, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  spec_fails("@temp", MR_ERR_CONFIG,
             "spec, column 1: '@temp' refers to a tag, and tags exist only in a context: name a "
             "resource here\n"
             "  @temp\n"
             "  ^");
  spec_fails("stats(@temp)", MR_ERR_CONFIG, NULL);
  assert_error_contains("spec, column 7: '@temp' refers to a tag");
  spec_fails("", MR_ERR_CONFIG, NULL);
  spec_fails("host;", MR_ERR_CONFIG, NULL);
}

/* The message fits the error buffer, says `reason`, and still ends with the
 * quoted line and its caret. */
static void assert_reason_survives(const char *reason) {
  const char *m = mr_last_error();
  size_t n = strlen(m);
  if (strstr(m, reason) == NULL || n > 2047 || n < 2 || m[n - 1] != '^' ||
      strstr(m, "\n  ") == NULL) {
    print_error("the reason \"%s\" or the caret is missing from (%zu bytes):\n%s\n", reason, n, m);
    fail();
  }
}

/* Long values are quoted in part, so the reason always survives. */
static void test_long_values_keep_the_reason(void **state) {
  enum { LONG = 3000 };
  char spec[2 * LONG + 256], value[LONG + 1];
  memset(value, 'x', LONG);
  value[LONG] = '\0';

  snprintf(spec, sizeof spec, "probe(size=%s)", value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("...' is not a size (a number with an optional unit: B, K, KiB, M, "
                         "MiB, G, GiB, T, TiB; or N%)");
  assert_error_contains("spec, column 12: probe: size=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                        "xxxxxxxxxxxxxxxxxxxx...: 'xxxx");

  memset(value, '9', LONG);
  snprintf(spec, sizeof spec, "arena(host, chunk=%s)", value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("...' is too large a number");

  snprintf(spec, sizeof spec, "probe(count=%s)", value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("...: the number is larger than 2^64 - 1");

  memset(value, 'y', LONG);
  snprintf(spec, sizeof spec, "probe(count=%s)", value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("...: expected a whole number (digits only)");

  snprintf(spec, sizeof spec, "probe(mode=%s)", value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("...: expected one of fast, small");

  snprintf(spec, sizeof spec, "track(host, %s=1)", value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("...' (known: stacks)");

  snprintf(spec, sizeof spec, "stats(%s)", value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("...' (known: ");

  snprintf(spec, sizeof spec, "stats(@%s)", value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("...' refers to a tag, and tags exist only in a context");

  snprintf(spec, sizeof spec, "probe(%s=1, %s=2)", value, value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("...' given twice (first at column 7)");

  snprintf(spec, sizeof spec, "log(host, file=/nonexistent/%s)", value);
  spec_fails(spec, MR_ERR_CONFIG, NULL);
  assert_reason_survives("for writing: ");

  /* A constructor's message with a long upstream description keeps its end. */
  spec_fails("bin(verbose, min=100B)", MR_ERR_CONFIG, NULL);
  assert_reason_survives("min 100 and max 65536 must be powers of two with 256 <= min <= max");
  spec_fails("align(verbose, alignment=3)", MR_ERR_CONFIG, NULL);
  assert_reason_survives("alignment=3 is not a power of two");
  spec_fails("stats(fixed(verbose, count=4294967296))", MR_ERR_CONFIG, NULL);
  assert_reason_survives("count 4294967296 is out of range (at most 4294967295 blocks of 1048576 "
                         "bytes per slab)");
}

static void test_getters_reject_null(void **state) {
  uint64_t u = 1;
  const char *w = "x";
  int c = 5;
  mr_resource *mr = (mr_resource *)0x1;
  assert_status(mr_spec_args_size(NULL, "k", 0, &u), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(u, 0);
  assert_status(mr_spec_args_uint(NULL, "k", 0, &u), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_spec_args_word(NULL, "k", "", &w), MR_ERR_INVALID_ARGUMENT);
  assert_null(w);
  assert_status(mr_spec_args_choice(NULL, "k", NULL, 0, &c), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_spec_args_spec(NULL, "k", &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  mr = (mr_resource *)0x1;
  assert_status(mr_spec_args_upstream(NULL, 0, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_status(mr_spec_args_size(NULL, "k", 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_false(mr_spec_args_has(NULL, "k"));
  assert_int_equal(mr_spec_args_device(NULL), -1);
  assert_string_equal(mr_spec_args_name(NULL), "");
  assert_int_equal(mr_spec_args_positional_count(NULL), 0);
  assert_status(mr_spec_args_error(NULL, NULL, "x"), MR_ERR_CONFIG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builtin_host_specs),
      cmocka_unit_test(test_adaptor_specs),
      cmocka_unit_test(test_builtin_names_listed),
      cmocka_unit_test(test_register_refusals),
      cmocka_unit_test(test_unknown_name_lists_known),
      cmocka_unit_test(test_registry_is_thread_safe),
      cmocka_unit_test(test_getters_read_values),
      cmocka_unit_test(test_getter_errors),
      cmocka_unit_test(test_bare_sizes_need_a_unit),
      cmocka_unit_test(test_unknown_parameters),
      cmocka_unit_test(test_missing_upstream),
      cmocka_unit_test(test_factory_failures_are_located),
      cmocka_unit_test(test_unavailable_resources),
      cmocka_unit_test(test_pool_parameters),
      cmocka_unit_test(test_from_spec_arguments),
      cmocka_unit_test(test_long_values_keep_the_reason),
      cmocka_unit_test(test_getters_reject_null),
  };
  return cmocka_run_group_tests(tests, register_all, NULL);
}
