/*
 * test_nvtx_gpu.c (gpu): compute-sanitizer finds a write past an arena
 * allocation that stays inside the arena's chunk, which it can only know
 * from mrctx's NVTX annotations (without them the whole chunk is one valid
 * allocation of the driver's).
 *
 * The arena sits on sync_device (cuMemAlloc): compute-sanitizer (CUDA 13.0)
 * refuses an NVTX heap inside memory from a stream-ordered pool ("Call to
 * nvtxMemHeapRegister failed: One or more of the parameters is invalid"),
 * measured on the H200; docs/observability.md says so to users.
 *
 *   test_nvtx_gpu              run itself under compute-sanitizer twice: a
 *                              kernel that writes the 1000 bytes allocated
 *                              (no error, and no warning, after the pool
 *                              chains too), then 1016 bytes (an error)
 *   test_nvtx_gpu child BYTES  allocate 1000 bytes from arena(sync_device,
 *                              chunk=1MiB) and fill BYTES of them on the GPU
 *
 * Skips (77) without a GPU or without compute-sanitizer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_util.h"

#define ALLOCATED 1000

/* The chains over driver pools a program meets (the default cache, an
 * arena, a context's named tags), each allocation written on the GPU: the
 * tool must have nothing to warn about (core/nvtx.h). */
static int pool_chains(void) {
  static const mr_tag tags[] = {{"temp", "arena(device, chunk=1MiB)"}, {"result", "device"}};
  mr_context_desc desc = {.size = sizeof desc, .library = "mylib", .tags = tags, .tag_count = 2};
  mr_context *ctx = NULL;
  mr_resource *cache = NULL, *arena = NULL;
  if (mr_context_create(&desc, &ctx) != MR_OK ||
      mr_resource_from_spec("cache(device)", 0, &cache) != MR_OK ||
      mr_resource_from_spec("arena(device, chunk=1MiB)", 0, &arena) != MR_OK) {
    fprintf(stderr, "child: %s\n", mr_last_error());
    return 1;
  }
  mr_resource *const chains[] = {cache, arena, mr_context_get_mr_on(ctx, 0, 0),
                                 mr_context_get_mr_on(ctx, 1, 0)};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(chains); i++) {
    void *p[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
      if (mr_allocate(chains[i], ALLOCATED, 0, NULL, &p[k]) != MR_OK) {
        fprintf(stderr, "child: %s\n", mr_last_error());
        return 1;
      }
      gpu_fill(p[k], ALLOCATED, 9, NULL);
    }
    mri_cuda()->cuStreamSynchronize(NULL);
    for (int k = 0; k < 2; k++)
      if (mr_deallocate(chains[i], p[k], ALLOCATED, 0, NULL) != MR_OK) return 1;
  }
  mr_resource_release(cache);
  mr_resource_release(arena);
  mr_context_destroy(ctx);
  return 0;
}

static int child(size_t bytes) {
  /* Memory the tool accepts a heap in (see the top of the file). */
  mr_resource *mr = NULL;
  void *p = NULL;
  if (mr_resource_from_spec("arena(sync_device, chunk=1MiB)", 0, &mr) != MR_OK ||
      mr_allocate(mr, ALLOCATED, 0, NULL, &p) != MR_OK) {
    fprintf(stderr, "child: %s\n", mr_last_error());
    return 1;
  }
  gpu_fill(p, bytes, 7, NULL);
  mri_cuda()->cuStreamSynchronize(NULL);
  if (mr_deallocate(mr, p, ALLOCATED, 0, NULL) != MR_OK) return 1;
  mr_resource_release(mr);
  return bytes == ALLOCATED ? pool_chains() : 0;
}

static const char *sanitizer_path(void) {
  static char found[4096];
  const char *path = getenv("PATH");
  char *copy = strdup(path != NULL ? path : "");
  for (char *dir = strtok(copy, ":"); dir != NULL; dir = strtok(NULL, ":")) {
    snprintf(found, sizeof found, "%s/compute-sanitizer", dir);
    if (access(found, X_OK) == 0) {
      free(copy);
      return found;
    }
  }
  free(copy);
  snprintf(found, sizeof found, "/usr/local/cuda/bin/compute-sanitizer");
  return access(found, X_OK) == 0 ? found : NULL;
}

/* Run the child under memcheck. OUT: its output (caller frees). Returns
 * the exit status (42: memcheck found an error). */
static int run_child(const char *sanitizer, const char *self, size_t bytes, char **output) {
  char command[8192];
  snprintf(command, sizeof command, "'%s' --tool memcheck --error-exitcode 42 '%s' child %zu 2>&1",
           sanitizer, self, bytes);
  FILE *p = popen(command, "r");
  assert_non_null(p);
  char *text = NULL;
  size_t cap = 0;
  ssize_t n = getdelim(&text, &cap, '\0', p);
  if (n < 0) {
    free(text);
    text = strdup("");
  }
  int status = pclose(p);
  *output = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char *self_path;
static const char *sanitizer;

static void test_write_past_allocation_is_found(void **state) {
  char *output = NULL;
  int rc = run_child(sanitizer, self_path, ALLOCATED, &output);
  if (rc != 0 || strstr(output, "Warning") != NULL)
    fail_msg("writing what was allocated: exit %d (expected 0, no warnings)\n%s", rc, output);
  free(output);
  rc = run_child(sanitizer, self_path, ALLOCATED + 16, &output);
  if (rc != 42 || strstr(output, "Invalid __global__ write") == NULL)
    fail_msg("writing 16 bytes past the allocation, inside the chunk: exit %d (expected 42, "
             "an invalid write)\n%s",
             rc, output);
  fprintf(stderr, "%s", output);
  free(output);
}

int main(int argc, char **argv) {
  GPU_TEST_REQUIRE();
  if (argc == 3 && strcmp(argv[1], "child") == 0) return child(strtoull(argv[2], NULL, 10));
  sanitizer = sanitizer_path();
  if (sanitizer == NULL) {
    fprintf(stderr, "skipping: compute-sanitizer is not on PATH or in /usr/local/cuda/bin\n");
    return GPU_TEST_SKIP;
  }
  self_path = argv[0];
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_write_past_allocation_is_found)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
