/*
 * operators_child.c: a process for MRCTX_VERBOSE and MRCTX_STATS_AT_EXIT
 * (test_operators_fake.c runs it with the variables set). It creates the
 * context "opslib" over the fake driver (its tags' overrides in
 * OPSLIB_MEMORY), leaves allocations live on every tag and returns from
 * main. With MODE "deinit" an atexit handler of its own, registered after
 * the context (so it runs before mrctx's), puts the fake driver in the
 * state of a driver that shut down at exit: the statistics must still be
 * written, with no driver call. With MODE "early" it calls
 * mr_write_stats_at_exit before its context exists (nothing to write yet),
 * and twice before returning from main, as the Python package does from
 * its atexit handler: the report is written once, there. With MODE
 * "destroyed" it first creates, uses and destroys a context "gonelib"
 * (peak 5 MiB on its temp tag, one failure on its host tag); with MODE
 * "loop" a thousand of them, one after another (the at-exit report must
 * keep them in bounded memory). With MODE "resolved" it prints
 * mr_context_print_resolved's table after a line that says so, for the
 * test that MRCTX_VERBOSE's table is that one.
 * Usage: operators_child MODE
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mrctx/mrctx.h>

#include "fakecuda.h"

enum { TEMP, STAGING, KEPT, TAG_COUNT };

static void shut_driver_down(void) { fake_cuda_set_deinitialized(true); }

static void die(const char *what) {
  fprintf(stderr, "operators_child: %s: %s\n", what, mr_last_error());
  exit(3);
}

/* Allocates through the tracked tag: its name is in the at-exit snapshot's
 * call sites (linked with -rdynamic). */
void operators_child_site(mr_context *ctx);
__attribute__((noinline)) void operators_child_site(mr_context *ctx) {
  void *p = NULL;
  if (mr_allocate(mr_context_get_mr_on(ctx, KEPT, 0), 3000, 0, NULL, &p) != MR_OK)
    die("allocate kept");
  __asm__ volatile("" ::: "memory");
}

/* A context that allocates 5 MiB on device 1 (two blocks, live together),
 * frees them, fails an allocation on its host tag, and is destroyed. */
static void gone_context(void) {
  static const mr_tag tags[] = {{"temp", "device"}, {"small", "limit(host, bytes=1KiB)"}};
  mr_context_desc desc = {.size = sizeof desc, .library = "gonelib", .tags = tags, .tag_count = 2};
  mr_context *ctx = NULL;
  if (mr_context_create(&desc, &ctx) != MR_OK) die("create gonelib");
  mr_resource *temp = mr_context_get_mr_on(ctx, 0, 1);
  void *a = NULL, *b = NULL, *c = NULL;
  if (mr_allocate(temp, (size_t)2 << 20, 0, NULL, &a) != MR_OK ||
      mr_allocate(temp, (size_t)3 << 20, 0, NULL, &b) != MR_OK)
    die("allocate gonelib temp");
  if (mr_allocate(mr_context_get_mr_on(ctx, 1, 0), 4096, 0, NULL, &c) == MR_OK)
    die("gonelib's small tag allocated past its limit");
  if (mr_deallocate(temp, a, (size_t)2 << 20, 0, NULL) != MR_OK ||
      mr_deallocate(temp, b, (size_t)3 << 20, 0, NULL) != MR_OK)
    die("free gonelib temp");
  mr_context_destroy(ctx);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "plain";
  static const mr_tag tags[] = {[TEMP] = {"temp", "device"},
                                [STAGING] = {"staging", "pinned"},
                                [KEPT] = {"kept", "track(host, stacks=4)"}};
  mr_context_desc desc = {.size = sizeof desc,
                          .library = "opslib",
                          .tags = tags,
                          .tag_count = TAG_COUNT,
                          .env_var = "OPSLIB_MEMORY"};
  bool early = strcmp(mode, "early") == 0;
  if (early && mr_write_stats_at_exit() != MR_OK) die("mr_write_stats_at_exit before a context");
  if (strcmp(mode, "destroyed") == 0) gone_context();
  if (strcmp(mode, "loop") == 0)
    for (int i = 0; i < 1000; i++) gone_context();
  mr_context *ctx = NULL;
  if (mr_context_create(&desc, &ctx) != MR_OK) die("create");
  if (strcmp(mode, "deinit") == 0) atexit(shut_driver_down);
  if (strcmp(mode, "resolved") == 0) {
    fprintf(stderr, "operators_child: mr_context_print_resolved\n");
    if (mr_context_print_resolved(ctx, stderr) != MR_OK) die("mr_context_print_resolved");
  }
  for (int device = 0; device < mr_context_device_count(ctx); device++) {
    void *p = NULL;
    if (mr_allocate(mr_context_get_mr_on(ctx, TEMP, device), (size_t)(device + 1) << 20, 0, NULL,
                    &p) != MR_OK)
      die("allocate temp");
  }
  void *pinned = NULL;
  if (mr_allocate(mr_context_get_mr_on(ctx, STAGING, 0), 4096, 0, NULL, &pinned) != MR_OK)
    die("allocate staging");
  operators_child_site(ctx);
  fprintf(stderr, "operators_child: done\n");
  if (early) {
    if (mr_write_stats_at_exit() != MR_OK) die("mr_write_stats_at_exit");
    fprintf(stderr, "operators_child: written\n");
    if (mr_write_stats_at_exit() != MR_OK) die("mr_write_stats_at_exit again");
  }
  return 0; /* everything left live */
}
