/*
 * fuzz_config.c: libFuzzer target for the spec language.
 *
 * Each input is config text. It is parsed as a config and as a lone spec
 * (with its exact length, NUL bytes included), the spec resolved, and --
 * when it holds no NUL -- used as a context's override text, which checks
 * tags and names, picks specs by precedence, resolves every tag (with @tag
 * references and cycle detection) and builds the statistics wrappers.
 *
 * Resolution only describes (MR_CONTEXT_DESCRIBE_ONLY, and its
 * mri_resolve_options flag for a lone spec), as `mrctx resolve` does: every
 * factory and constructor runs with its checks and messages, and those that
 * would touch the world -- a log's file, memory taken up front (fixed, bin),
 * a pool -- stand in instead, so no input writes a file. The driver is kept
 * away as well (MRCTX_CUDA_DRIVER points nowhere, so device names stand in
 * as unavailable). Nothing may crash, leak or hang.
 *
 * One property is checked as well: every description parses back. For an
 * input that resolves, as a lone spec or as any tag of the context on any
 * device, the text mr_resource_describe gives must resolve again (the same
 * way) to a resource described exactly the same; and the input
 * itself, written as a quoted spec value (mri_spec_quote), must read back
 * as the same bytes. A violation aborts, so libFuzzer keeps the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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

/* The description of `text`, resolved only to describe it; NULL if it does
 * not resolve (with the message in mr_last_error()). */
static char *describe_only(const char *text, size_t length) {
  mri_text_source source = {.name = "description", .text = text, .length = length};
  mri_config *config = NULL;
  if (mri_spec_parse(&source, &config) != MR_OK) return NULL;
  mri_resolve_options options = {.device = 0, .describe_only = true};
  mri_resolved resolved;
  mr_status st = mri_spec_resolve(&config->source, config->entries[0].spec, &options, &resolved);
  mri_config_free(config);
  if (st != MR_OK) return NULL;
  char *description = strdup(mr_resource_describe(resolved.resource));
  mr_resource_release(resolved.resource);
  free(resolved.reason);
  return description;
}

/* `description` resolves to a resource with the same description. */
static void check_parses_back(const char *what, const char *description) {
  char *again = describe_only(description, strlen(description));
  if (again == NULL) {
    fprintf(stderr, "%s: the description does not parse back:\n  %s\n%s\n", what, description,
            mr_last_error());
    abort();
  }
  if (strcmp(again, description) != 0) {
    fprintf(stderr, "%s: the description\n  %s\nparses back as\n  %s\n", what, description, again);
    abort();
  }
  free(again);
}

/* The input as a quoted value reads back as the same bytes. */
static void check_quoting(const char *text) {
  char *quoted = NULL;
  if (mri_spec_quote("fuzz", text, &quoted) != MR_OK) return; /* a control character */
  size_t n = strlen(quoted) + 16;
  char *spec = malloc(n);
  if (spec == NULL) abort();
  snprintf(spec, n, "x(file=%s)", quoted);
  mri_text_source source = {.name = "quoted", .text = spec, .length = strlen(spec)};
  mri_config *config = NULL;
  if (mri_spec_parse(&source, &config) != MR_OK) {
    fprintf(stderr, "quoted text does not parse: %s\n%s\n", spec, mr_last_error());
    abort();
  }
  const mri_spec_node *call = config->entries[0].spec;
  if (call->arg_count != 1 || strcmp(call->args[0].value->text, text) != 0) abort();
  mri_config_free(config);
  free(spec);
  free(quoted);
}

static void walk_context(mr_context *ctx) {
  for (int t = 0; t < (int)mr_context_tag_count(ctx); t++) {
    for (int d = 0; d < mr_context_device_count(ctx); d++) {
      mr_resource *mr = mr_context_get_mr_on(ctx, t, d);
      if (mr == NULL) abort(); /* never NULL for a valid tag */
      mr_spec_source source = {.size = sizeof source};
      if (mr_context_get_source(ctx, t, d, &source) != MR_OK) abort();
      if (strlen(mr_resource_describe(mr)) == 0 && strlen(source.spec) == 0) abort();
      check_parses_back("a context's tag", mr_resource_describe(mr));
    }
  }
  mr_ignored_entry ignored = {.size = sizeof ignored};
  for (size_t i = 0; i < mr_context_ignored_count(ctx); i++)
    if (mr_context_get_ignored(ctx, i, &ignored) != MR_OK) abort();
  if (sink != NULL && mr_context_print_stats(ctx, sink) != MR_OK) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mri_text_source source = {.name = "fuzz", .text = (const char *)data, .length = size};
  mri_config *config = NULL;
  if (mri_config_parse(&source, &config) == MR_OK) mri_config_free(config);

  if (mri_spec_parse(&source, &config) == MR_OK) {
    mri_resolve_options options = {.device = 0, .describe_only = true};
    mri_resolved resolved;
    if (mri_spec_resolve(&config->source, config->entries[0].spec, &options, &resolved) == MR_OK) {
      check_parses_back("the spec", mr_resource_describe(resolved.resource));
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
  check_quoting(text);
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc),
      .library = "fuzz",
      .tags = fuzz_tags,
      .tag_count = sizeof fuzz_tags / sizeof fuzz_tags[0],
      .overrides = text,
      .flags = MR_CONTEXT_DESCRIBE_ONLY,
  };
  mr_context *ctx = NULL;
  if (mr_context_create(&desc, &ctx) == MR_OK) {
    walk_context(ctx);
    mr_context_destroy(ctx);
  } else if (ctx != NULL || mr_last_error()[0] == '\0') {
    abort(); /* a failure leaves no context and always says why */
  }
  free(text);
  return 0;
}
