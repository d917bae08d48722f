/*
 * fuzz_config.c: libFuzzer target for the spec language.
 *
 * Each input is config text. It is parsed as a config and as a lone spec
 * (with its exact length, NUL bytes included), the spec resolved, and --
 * when it holds no NUL -- used as a context's override text, which checks
 * tags and names, picks specs by precedence, resolves every tag (with @tag
 * references and cycle detection) and builds the statistics wrappers.
 *
 * Resolution is host-only: the driver is kept away (MRCTX_CUDA_DRIVER points
 * nowhere, so device names stand in as unavailable), and names whose
 * creation touches the file system or takes memory up front (log, fixed,
 * bin) are checked but not built. Nothing may crash, leak or hang.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "context/context_internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool host_only_skip(const char *name) {
  return strcmp(name, "log") == 0 || strcmp(name, "fixed") == 0 || strcmp(name, "bin") == 0;
}

static const mr_tag fuzz_tags[] = {
    {"a", "host"},
    {"b", "stats(host)"},
    {"c", "@a"},
    {"temp", "device"},
};

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  setenv("MRCTX_CUDA_DRIVER", "/nonexistent/libcuda-for-fuzzing.so", 1);
  sink = fopen("/dev/null", "w");
  return 0;
}

static void walk_context(mr_context *ctx) {
  for (int t = 0; t < (int)mr_context_tag_count(ctx); t++) {
    for (int d = 0; d < mr_context_device_count(ctx); d++) {
      mr_resource *mr = mr_context_get_mr_on(ctx, t, d);
      if (mr == NULL) abort(); /* never NULL for a valid tag */
      mr_spec_source source;
      if (mr_context_get_source(ctx, t, d, &source) != MR_OK) abort();
      if (strlen(mr_resource_describe(mr)) == 0 && strlen(source.spec) == 0) abort();
    }
  }
  mr_ignored_entry ignored;
  for (size_t i = 0; i < mr_context_ignored_count(ctx); i++)
    if (mr_context_get_ignored(ctx, i, &ignored) != MR_OK) abort();
  if (sink != NULL) mr_context_print_stats(ctx, sink);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mri_text_source source = {.name = "fuzz", .text = (const char *)data, .length = size};
  mri_config *config = NULL;
  if (mri_config_parse(&source, &config) == MR_OK) mri_config_free(config);

  if (mri_spec_parse(&source, &config) == MR_OK) {
    mri_resolve_options options = {.device = 0, .skip_factory = host_only_skip};
    mri_resolved resolved;
    if (mri_spec_resolve(&config->source, config->entries[0].spec, &options, &resolved) == MR_OK) {
      mr_resource_release(resolved.resource);
      free(resolved.reason);
    }
    mri_config_free(config);
  }

  if (memchr(data, '\0', size) != NULL) return 0;
  char *text = malloc(size + 1);
  if (text == NULL) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  mr_context_desc desc = {
      .library = "fuzz",
      .tags = fuzz_tags,
      .tag_count = sizeof fuzz_tags / sizeof fuzz_tags[0],
      .overrides = text,
  };
  mr_context *ctx = NULL;
  if (mri_context_create(&desc, host_only_skip, &ctx) == MR_OK) {
    walk_context(ctx);
    mr_context_destroy(ctx);
  } else if (ctx != NULL || mr_last_error()[0] == '\0') {
    abort(); /* a failure leaves no context and always says why */
  }
  free(text);
  return 0;
}
