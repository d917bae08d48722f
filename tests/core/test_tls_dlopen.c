/*
 * test_tls_dlopen.c: libmrctx loads with dlopen into a process whose
 * static-TLS surplus is gone, and its thread-locals work there.
 *
 * ctypes, C extensions and PyTorch's CUDAPluggableAllocator all load a
 * library late, with dlopen. A library with initial-exec thread-locals
 * (DF_STATIC_TLS) must then fit into glibc's small static-TLS surplus, which
 * PyTorch uses up: "cannot allocate memory in static TLS block". This test
 * does not link libmrctx; it is given the shared library's path and:
 *
 *   test_tls_dlopen LIB plain               dlopen as it is
 *   test_tls_dlopen LIB exhausted EATER...  first dlopen the eater modules
 *                                           (initial-exec TLS of falling
 *                                           sizes) until the surplus is gone
 *
 * (meson also runs `plain` with GLIBC_TUNABLES=glibc.rtld.optional_static_tls=0,
 * where glibc places no dlopen'ed TLS in the surplus at all.) Then it checks
 * the library carries no DF_STATIC_TLS flag and little TLS, and uses it from
 * two threads at once: version, host and cache(host) allocations through a
 * context, per-thread error messages.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <mrctx/mrctx.h>

/* The most TLS the library may have: a few small thread-locals (slot,
 * context check, the error message's pointer, a log clock). Kept small so
 * glibc can still place it in the surplus when there is room. */
#define MAX_TLS_BYTES 256

static const char *lib_path;
static void *lib;

static struct {
  const char *(*version)(void);
  const char *(*last_error)(void);
  mr_status (*host_create)(mr_resource **);
  mr_status (*allocate)(mr_resource *, size_t, size_t, mr_stream, void **);
  mr_status (*deallocate)(mr_resource *, void *, size_t, size_t, mr_stream);
  void (*release)(mr_resource *);
  mr_status (*from_spec)(const char *, int, mr_resource **);
  mr_status (*context_create)(const mr_context_desc *, mr_context **);
  void (*context_destroy)(mr_context *);
  mr_resource *(*context_get_mr)(const mr_context *, int);
  mr_status (*context_get_stats)(const mr_context *, int, int, mr_stats *);
} api;

static void *symbol(const char *name) {
  void *p = dlsym(lib, name);
  if (p == NULL) {
    fprintf(stderr, "dlsym(%s): %s\n", name, dlerror());
    exit(1);
  }
  return p;
}

/* The group setup: a failed dlopen fails the whole run with its reason. */
static int load(void **state) {
  lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen(%s): %s\n", lib_path, dlerror());
    return -1;
  }
  *(void **)&api.version = symbol("mr_version");
  *(void **)&api.last_error = symbol("mr_last_error");
  *(void **)&api.host_create = symbol("mr_host_resource_create");
  *(void **)&api.allocate = symbol("mr_allocate");
  *(void **)&api.deallocate = symbol("mr_deallocate");
  *(void **)&api.release = symbol("mr_resource_release");
  *(void **)&api.from_spec = symbol("mr_resource_from_spec");
  *(void **)&api.context_create = symbol("mr_context_create");
  *(void **)&api.context_destroy = symbol("mr_context_destroy");
  *(void **)&api.context_get_mr = symbol("mr_context_get_mr");
  *(void **)&api.context_get_stats = symbol("mr_context_get_stats");
  return 0;
}

static void test_version(void **state) { assert_string_equal(api.version(), MRCTX_VERSION_STRING); }

/* DF_STATIC_TLS (set by the linker for initial-exec TLS) is what makes a
 * late dlopen fail: the library must not carry it. */
static void test_no_static_tls_flag(void **state) {
  struct link_map *map = NULL;
  assert_int_equal(dlinfo(lib, RTLD_DI_LINKMAP, &map), 0);
  for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++)
    if (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_STATIC_TLS))
      fail_msg("%s has DF_STATIC_TLS", lib_path);
}

static int find_tls_size(struct dl_phdr_info *info, size_t size, void *data) {
  struct link_map *map = NULL;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0 || info->dlpi_addr != map->l_addr) return 0;
  size_t *tls = data;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_TLS) *tls = info->dlpi_phdr[i].p_memsz;
  return 1;
}

static void test_small_tls(void **state) {
  size_t tls = 0;
  dl_iterate_phdr(find_tls_size, &tls);
  if (tls > MAX_TLS_BYTES)
    fail_msg("%s has %zu bytes of TLS (at most %d)", lib_path, tls, MAX_TLS_BYTES);
}

/* One thread's work: allocations that touch the thread slot (statistics,
 * cache bins) and a failure whose message must be this thread's own. */
static void *thread_work(void *arg) {
  const char *name = arg;
  static const char *failure = "failed";
  mr_tag tags[] = {{"plain", "host"}, {"cached", "cache(host)"}};
  mr_context_desc desc = {.size = sizeof desc, .library = name, .tags = tags, .tag_count = 2};
  mr_context *ctx = NULL;
  if (api.context_create(&desc, &ctx) != MR_OK) return (void *)failure;
  for (int round = 0; round < 1000; round++) {
    for (int tag = 0; tag < 2; tag++) {
      void *p = NULL;
      mr_resource *mr = api.context_get_mr(ctx, tag);
      if (api.allocate(mr, 4096, 0, NULL, &p) != MR_OK || p == NULL) return (void *)failure;
      memset(p, round, 4096);
      if (api.deallocate(mr, p, 4096, 0, NULL) != MR_OK) return (void *)failure;
    }
  }
  mr_stats stats;
  mr_stats_init(&stats);
  if (api.context_get_stats(ctx, 1, -1, &stats) != MR_OK || stats.total_count != 1000)
    return (void *)failure;
  api.context_destroy(ctx);

  char spec[64];
  snprintf(spec, sizeof spec, "%s_is_not_a_resource", name);
  mr_resource *mr = NULL;
  if (api.from_spec(spec, 0, &mr) != MR_ERR_CONFIG) return (void *)failure;
  for (int i = 0; i < 1000; i++) /* let the other thread fail meanwhile */
    if (strstr(api.last_error(), spec) == NULL) return (void *)api.last_error();
  return NULL;
}

static void test_two_threads(void **state) {
  pthread_t a, b;
  void *ra = (void *)1, *rb = (void *)1;
  assert_int_equal(pthread_create(&a, NULL, thread_work, "alpha"), 0);
  assert_int_equal(pthread_create(&b, NULL, thread_work, "beta"), 0);
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  if (ra != NULL) fail_msg("thread alpha: %s", (const char *)ra);
  if (rb != NULL) fail_msg("thread beta: %s", (const char *)rb);
  /* The main thread has its own (empty) message. */
  assert_string_equal(api.last_error(), "");
}

/* Threads that used the library hold per-thread state freed by pthread key
 * destructors, so the library must stay mapped after dlclose (-z nodelete). */
static void test_stays_loaded(void **state) {
  assert_int_equal(dlclose(lib), 0);
  void *again = dlopen(lib_path, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(again);
  lib = again;
}

/* dlopen eater modules, largest first, until none fits: the static-TLS
 * surplus is then used up but for less than the smallest eater. At least
 * one must have failed for want of static TLS, or the test proves nothing. */
static void exhaust_static_tls(int count, char **eaters) {
  int failed = 0;
  for (int i = 0; i < count; i++) {
    if (dlopen(eaters[i], RTLD_NOW | RTLD_GLOBAL) != NULL) continue;
    const char *why = dlerror();
    if (strstr(why, "static TLS") == NULL) {
      fprintf(stderr, "dlopen(%s): %s\n", eaters[i], why);
      exit(1);
    }
    failed++;
  }
  if (failed == 0) {
    fprintf(stderr, "every eater module loaded: the static-TLS surplus is not used up\n");
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s LIBMRCTX plain|exhausted [EATER...]\n", argv[0]);
    return 2;
  }
  lib_path = argv[1];
  if (strcmp(argv[2], "exhausted") == 0) exhaust_static_tls(argc - 3, argv + 3);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version),      cmocka_unit_test(test_no_static_tls_flag),
      cmocka_unit_test(test_small_tls),    cmocka_unit_test(test_two_threads),
      cmocka_unit_test(test_stays_loaded),
  };
  return cmocka_run_group_tests(tests, load, NULL);
}
