/*
 * consumer.c: the program each consumer project in tests/consumers builds
 * against an installed mrctx (CMake, Meson subproject, Makefile with
 * pkg-config). It checks that the headers and the library it found are
 * the same version, creates a context with one host tag (no GPU needed),
 * and allocates and frees through it. Prints one line; exit status 0 if
 * everything worked.
 */
#include <stdio.h>
#include <string.h>

#include <mrctx/mrctx.h>

#ifndef CONSUMER_KIND
#define CONSUMER_KIND "consumer"
#endif

enum { CONSUMER_SCRATCH };

static const mr_tag consumer_tags[] = {
    [CONSUMER_SCRATCH] = {"scratch", "stats(host)"},
};

static int fail(const char *what, mr_status status) {
  fprintf(stderr, "%s: %s: %s (%s)\n", CONSUMER_KIND, what, mr_status_name(status),
          mr_last_error());
  return 1;
}

int main(void) {
  if (strcmp(mr_version(), MRCTX_VERSION_STRING) != 0) {
    fprintf(stderr, "%s: headers are mrctx %s, the library is %s\n", CONSUMER_KIND,
            MRCTX_VERSION_STRING, mr_version());
    return 1;
  }
  mr_context_desc desc = {
      .size = sizeof desc,
      .library = CONSUMER_KIND,
      .tags = consumer_tags,
      .tag_count = sizeof consumer_tags / sizeof consumer_tags[0],
  };
  mr_context *ctx = NULL;
  mr_status st = mr_context_create(&desc, &ctx);
  if (st != MR_OK) return fail("mr_context_create", st);

  mr_resource *mr = ctx_get_mr(ctx, CONSUMER_SCRATCH);
  void *block = NULL;
  st = mr_allocate(mr, 4096, 0, NULL, &block);
  if (st != MR_OK) return fail("mr_allocate", st);
  memset(block, 0xA5, 4096);
  st = mr_deallocate(mr, block, 4096, 0, NULL);
  if (st != MR_OK) return fail("mr_deallocate", st);

  mr_stats stats;
  mr_stats_init(&stats);
  st = mr_context_get_stats(ctx, CONSUMER_SCRATCH, -1, &stats);
  if (st != MR_OK) return fail("mr_context_get_stats", st);
  if (stats.total_bytes != 4096 || stats.current_bytes != 0) {
    fprintf(stderr, "%s: scratch statistics say %llu bytes allocated, %llu live; want 4096, 0\n",
            CONSUMER_KIND, (unsigned long long)stats.total_bytes,
            (unsigned long long)stats.current_bytes);
    return 1;
  }
  printf("%s: mrctx %s, scratch = %s, 4096 bytes allocated and freed\n", CONSUMER_KIND,
         mr_version(), mr_resource_describe(mr));
  mr_context_destroy(ctx);
  return 0;
}
