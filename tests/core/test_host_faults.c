/*
 * test_host_faults.c: the walk over the library's own host allocations.
 * For N = 1, 2, ... the Nth bookkeeping allocation fails (the seam in
 * lib/core/host_alloc.c) while a scenario runs: building resources from
 * specs, building and using contexts, parsing, and allocating through every
 * adaptor. Every run must end in success or a clean error — a status, a
 * message, a NULL out-pointer — never a crash; what it built must work and
 * release everything (AddressSanitizer's leak check in CI catches the rest).
 * The walk ends when a run completes without reaching N. Runs in the fake
 * suite, so device specs resolve against the fake driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/core.h"
#include "fake_test.h"

/* Specs that exercise parsing, every factory and every adaptor. */
static const char *const specs[] = {
    "host",
    "stats(limit(host, bytes=1MiB))",
    "track(align(host, alignment=4096))",
    "arena(host, chunk=64KiB)",
    "fixed(host, block=4KiB, count=4)",
    "bin(host, min=256B, max=8KiB, count=2)",
    "retry(cache(host, max=1MiB))",
    "cache(device)",
    "retry(arena(device, chunk=1MiB))",
    "fixed(pinned, block=64KiB, count=2)",
    "bin(device, min=256B, max=4KiB, count=2)",
    "cache(pool(kind=device, release=max))",
    "stats(track(managed))",
};

static const mr_tag tags[] = {
    {"temp", "arena(device, chunk=1MiB)"},
    {"scratch", "cache(device)"},
    {"staging", "fixed(pinned, block=64KiB, count=2)"},
    {"small", "bin(@temp)"},
    {"host", "stats(host)"},
};

/* A run: false if it failed cleanly somewhere (fine), aborts the test on an
 * unclean failure. */
static bool use(mr_resource *mr, const char *what) {
  void *p[3] = {NULL, NULL, NULL};
  size_t sizes[3] = {100, 4096, 70000};
  bool ok = true;
  for (int i = 0; i < 3; i++) {
    mr_status st = mr_allocate(mr, sizes[i], 0, NULL, &p[i]);
    if (st != MR_OK) {
      if (p[i] != NULL || mr_last_error()[0] == '\0') {
        print_error("%s: unclean allocation failure: %s\n", what, mr_last_error());
        fail();
      }
      ok = false;
    }
  }
  for (int i = 3; i-- > 0;) {
    if (p[i] == NULL) continue;
    /* A free that fails keeps the block the caller's: try again, disarmed. */
    if (mr_deallocate(mr, p[i], sizes[i], 0, NULL) != MR_OK) {
      long counted = mri_host_fault_arm(0, 0);
      assert_ok(mr_deallocate(mr, p[i], sizes[i], 0, NULL));
      (void)counted;
      ok = false;
    }
  }
  if (mr_resource_trim(mr) != MR_OK) ok = false;
  return ok;
}

static void build_and_use(const char *spec) {
  mr_resource *mr = (mr_resource *)&mr;
  mr_status st = mr_resource_from_spec(spec, 0, &mr);
  if (st != MR_OK) {
    if (mr != NULL || mr_last_error()[0] == '\0') {
      print_error("%s: unclean build failure (%s): %s\n", spec, mr_status_name(st),
                  mr_last_error());
      fail();
    }
    return;
  }
  use(mr, spec);
  mr_resource_release(mr);
}

static void context_round(const char *unused) {
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "faults",
                          .tags = tags,
                          .tag_count = MRI_ARRAY_SIZE(tags),
                          .overrides = "scratch@1 = retry(cache(device)); temp = arena(device, "
                                       "chunk=2MiB)  # a comment\nhost=stats(host)"};
  mr_context *ctx = (mr_context *)&ctx;
  mr_status st = mr_context_create(&desc, &ctx);
  if (st != MR_OK) {
    if (ctx != NULL || mr_last_error()[0] == '\0') {
      print_error("context: unclean failure (%s): %s\n", mr_status_name(st), mr_last_error());
      fail();
    }
    return;
  }
  for (int t = 0; t < (int)MRI_ARRAY_SIZE(tags); t++) use(ctx_get_mr(ctx, t), tags[t].name);
  mr_context_destroy(ctx);
}

/* Walk the Nth allocation of one scenario over N until a run completes
 * without reaching it; then fail everything from some point on. Returns
 * how many allocations the scenario makes. */
static long walk(void (*scenario)(const char *), const char *arg) {
  long n = 1;
  for (;; n++) {
    mri_host_fault_arm(n, 1);
    scenario(arg);
    long counted = mri_host_fault_arm(0, 0);
    assert_int_equal(fake_cuda_live_allocations(), 0);
    assert_int_equal(fake_cuda_live_events(), 0);
    if (counted < n) break; /* the run never reached allocation n */
  }
  mri_host_fault_arm(n / 2 + 1, 1000000);
  scenario(arg);
  mri_host_fault_arm(0, 0);
  assert_int_equal(fake_cuda_live_allocations(), 0);
  return n - 1;
}

/* A log (its buffer and writer) and a context read from a config file. */
static char log_spec[256], config_path[64];

static void file_round(const char *unused) {
  build_and_use(log_spec);
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "faults",
                          .tags = tags,
                          .tag_count = MRI_ARRAY_SIZE(tags),
                          .config_file = config_path};
  mr_context *ctx = (mr_context *)&ctx;
  mr_status st = mr_context_create(&desc, &ctx);
  if (st != MR_OK) {
    if (ctx != NULL || mr_last_error()[0] == '\0') {
      print_error("config file: unclean failure (%s): %s\n", mr_status_name(st), mr_last_error());
      fail();
    }
    return;
  }
  use(ctx_get_mr(ctx, 0), "config file: temp");
  mr_context_destroy(ctx);
}

static void test_walk(void **state) {
  long total = 0;
  snprintf(log_spec, sizeof log_spec, "log(stats(host), file=\"/tmp/mrctx faults %d.csv\")",
           (int)getpid());
  snprintf(config_path, sizeof config_path, "/tmp/mrctx-faults-%d.conf", (int)getpid());
  FILE *f = fopen(config_path, "w");
  assert_non_null(f);
  fputs("# overrides\ntemp = retry(arena(device, chunk=1MiB))\nhost@1 = stats(host)\n", f);
  fclose(f);
  total += walk(file_round, NULL);
  unlink(config_path);
  char log_path[128];
  snprintf(log_path, sizeof log_path, "/tmp/mrctx faults %d.csv", (int)getpid());
  unlink(log_path);
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++) {
    long n = walk(build_and_use, specs[i]);
    print_message("    %s: %ld host allocations\n", specs[i], n);
    total += n;
  }
  total += walk(context_round, NULL);
  print_message("    walked %ld host allocations\n", total);
  assert_true(total > 50); /* the seam is in use across the scenarios */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_walk, fake_test_setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
