/*
 * test_describe.c: every description is spec text that parses back. For
 * many resources -- every built-in name and adaptor that needs no driver,
 * nested, with odd file names and sizes, and the stand-ins a context or
 * describe-only resolution puts where something is not built -- the text
 * mr_resource_describe gives resolves again to a resource with exactly the
 * same description. (test_describe_fake.c does the same over the fake
 * driver's devices.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config_internal.h"
#include "context/context_internal.h"
#include "test_util.h"

static char dir[] = "/tmp/mrctx-describe-XXXXXX";

static int setup(void **state) {
  if (mkdtemp(dir) == NULL) return -1;
  return 0;
}

/* Every log file the specs wrote, then the folder. */
static int teardown(void **state) {
  static const char *const names[] = {
      "plain.csv",
      "my log.csv",
      "a,b(c)=d#e;f@g.csv",
      "q\"uo\\te.csv",
      "\xc3\xa9t\xc3\xa9 \xe2\x82\xac.csv",
      "tab\there.csv",
      "(1).csv",
      "x.csv",
  };
  char path[256];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  return rmdir(dir);
}

/* `text` with every "DIR" replaced by the temporary folder. */
static char *with_dir(const char *text) {
  size_t n = strlen(text) + 1, d = strlen(dir);
  for (const char *p = strstr(text, "DIR"); p != NULL; p = strstr(p + 3, "DIR")) n += d;
  char *out = malloc(n);
  assert_non_null(out);
  size_t k = 0;
  for (const char *p = text; *p != '\0';) {
    if (strncmp(p, "DIR", 3) == 0) {
      memcpy(out + k, dir, d);
      k += d;
      p += 3;
    } else {
      out[k++] = *p++;
    }
  }
  out[k] = '\0';
  return out;
}

/* The description of `spec` resolves to a resource described the same way. */
static void assert_parses_back(const char *spec) {
  mr_resource *mr = NULL, *again = NULL;
  mr_status st = mr_resource_from_spec(spec, 0, &mr);
  if (st != MR_OK) {
    print_error("'%s' does not resolve: %s\n", spec, mr_last_error());
    fail();
  }
  const char *description = mr_resource_describe(mr);
  st = mr_resource_from_spec(description, 0, &again);
  if (st != MR_OK) {
    print_error("the description of '%s' does not resolve back:\n%s\n%s\n", spec, description,
                mr_last_error());
    fail();
  }
  if (strcmp(mr_resource_describe(again), description) != 0) {
    print_error("'%s' describes as\n  %s\nwhich describes as\n  %s\n", spec, description,
                mr_resource_describe(again));
    fail();
  }
  mr_resource_release(again);
  mr_resource_release(mr);
}

static void test_builtins_parse_back(void **state) {
  static const char *const specs[] = {
      "host",
      "host()",
      "stats(host)",
      "track(host)",
      "retry(host)",
      "retry(host, attempts=3)",
      "retry(host, attempts=7)",
      "retry(host, attempts=0)",
      "cache(host)",
      "cache(host, max=0)",
      "cache(host, max=1B)",
      "cache(host, max=1.5GiB)",
      "cache(host, max=16777215T)",
      "arena(host)",
      "arena(host, chunk=1B)",
      "arena(host, chunk=255B)",
      "arena(host, chunk=3000B)",
      "arena(host, chunk=1.25MiB)",
      "arena(host, chunk=3TiB)",
      "arena(host, chunk=9223372036854775552)",
      "fixed(host)",
      "fixed(host, block=1B, count=1)",
      "fixed(host, block=4097, count=3)",
      "fixed(host, block=1.5K, count=2)",
      "bin(host)",
      "bin(host, min=256B, max=256B, count=1)",
      "bin(host, min=1K, max=64K, count=2)",
      "limit(host, bytes=0)",
      "limit(host, bytes=1B)",
      "limit(host, bytes=18446744073709551615)",
      "limit(host, bytes=1.5T)",
      "align(host, alignment=1)",
      "align(host, alignment=256)",
      "align(host, alignment=2GiB)",
      "align(host, alignment=4k)",
      "log(host, file=DIR/plain.csv)",
      "log(host, file=\"DIR/my log.csv\")",
      "log(host, file=\"DIR/a,b(c)=d#e;f@g.csv\")",
      "log(host, file=\"DIR/q\\\"uo\\\\te.csv\")",
      "log(host, file=\"DIR/\xc3\xa9t\xc3\xa9 \xe2\x82\xac.csv\")",
      "log(host, file=\"DIR/tab\there.csv\")",
      "log(host, file=\"DIR/(1).csv\")",
      /* Nested, with comments, new lines and odd spacing in the text. */
      ("stats(track(retry(cache(arena(limit(align(host, alignment=512), bytes=1GiB), "
       "chunk=1MiB), max=64MiB), attempts=2)))"),
      "cache( # a comment\n  arena(host,\n chunk = 2MiB ) )",
      "log(stats(log(host, file=DIR/x.csv)), file=\"DIR/my log.csv\")",
      "bin(fixed(arena(host, chunk=4MiB), block=64K, count=4), min=512B, max=2K, count=3)",
      "retry(log(bin(limit(host, bytes=64MiB)), file=\"DIR/(1).csv\"), attempts=9)",
  };
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    char *spec = with_dir(specs[i]);
    assert_parses_back(spec);
    free(spec);
  }
}

/* Resolution only to describe (what the fuzzer and `mrctx resolve` use):
 * what it does not build (a log's file, fixed's slabs) and the stand-ins for
 * device calls without a driver describe themselves as the real resource
 * would, in text that must parse back too. */
static char *resolve_describe_only(const char *text) {
  mri_text_source source = {.name = "spec", .text = text, .length = strlen(text)};
  mri_config *config = NULL;
  mr_status st = mri_spec_parse(&source, &config);
  if (st != MR_OK) {
    print_error("'%s' does not parse: %s\n", text, mr_last_error());
    fail();
  }
  mri_resolve_options options = {.device = 0, .describe_only = true};
  mri_resolved resolved;
  st = mri_spec_resolve(&config->source, config->entries[0].spec, &options, &resolved);
  mri_config_free(config);
  if (st != MR_OK) {
    print_error("'%s' does not resolve: %s\n", text, mr_last_error());
    fail();
  }
  char *description = strdup(mr_resource_describe(resolved.resource));
  mr_resource_release(resolved.resource);
  free(resolved.reason);
  return description;
}

static void test_stand_ins_parse_back(void **state) {
  static const struct {
    const char *spec, *description;
  } cases[] = {
      {"log(host, file=x)", "log(host, file=x)"},
      {"log(host,file=\"a b\")", "log(host, file=\"a b\")"},
      {"stats(log(  host , # why\n file = \"a) # b\"))", "stats(log(host, file=\"a) # b\"))"},
      {"fixed(stats(host), count=2,\n block=64K)", "fixed(stats(host), block=64KiB, count=2)"},
      {"bin(arena(host, chunk=1M), max=4K)",
       "bin(arena(host, chunk=1MiB), min=256B, max=4KiB, count=64)"},
      {"stats(device)", "stats(device)"},
      {"arena(device, chunk=1.5M)", "arena(device, chunk=1536KiB)"},
      {"limit(device, # share\n bytes=50%)", "limit(device, bytes=50%)"},
      {"pool(kind=pinned,\n\tmax=1G, release=max)", "pool(kind=pinned, max=1G, release=max)"},
      {"sync_device(reason=\"x # y\")", "sync_device(reason=\"x # y\")"},
      {"sync_pinned(reason=why)", "sync_pinned(reason=why)"},
      {"device()", "device"},
      {"log(device, file=\"q\\\"\\\\\")", "log(device, file=\"q\\\"\\\\\")"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *description = resolve_describe_only(cases[i].spec);
    if (strcmp(description, cases[i].description) != 0) {
      print_error("'%s' describes as\n  %s\nnot\n  %s\n", cases[i].spec, description,
                  cases[i].description);
      fail();
    }
    char *again = resolve_describe_only(description);
    assert_string_equal(again, description);
    free(again);
    free(description);
  }
}

/* A context's resources, stand-ins for device tags included. */
static void test_context_resources_parse_back(void **state) {
  static const mr_tag tags[] = {
      {"a", "stats(host)"},         {"b", "arena(device, # comment\n chunk=8MiB)"},
      {"c", "limit(@b, bytes=1%)"}, {"d", "pool(kind=managed,\n initial=1M)"},
      {"e", "cache(@a, max=2M)"},
  };
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "lib", .tags = tags, .tag_count = 5};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  for (int t = 0; t < 5; t++) {
    const char *description = mr_resource_describe(mr_context_get_mr_on(ctx, t, 0));
    if (strchr(description, '#') != NULL || strchr(description, '\n') != NULL) {
      print_error("tag %d: the description holds a comment or a new line: %s\n", t, description);
      fail();
    }
    char *again = resolve_describe_only(description);
    assert_string_equal(again, description);
    free(again);
  }
  mr_context_destroy(ctx);
}

/* Nested text repeated: "stats(" x levels + inner + ")" x levels. */
static char *nest(int levels, const char *inner) {
  size_t n = (size_t)levels * 7 + strlen(inner) + 1;
  char *text = malloc(n);
  assert_non_null(text);
  size_t k = 0;
  for (int i = 0; i < levels; i++) k += (size_t)sprintf(text + k, "stats(");
  k += (size_t)sprintf(text + k, "%s", inner);
  for (int i = 0; i < levels; i++) text[k++] = ')';
  text[k] = '\0';
  return text;
}

/* Through @tag references specs may not nest deeper than the spec language
 * lets text nest (32 levels), or the description of the referring tag, which
 * spells the other tag's resource out, would not parse back. */
static void test_nesting_through_references(void **state) {
  char *a = nest(30, "@b"), *b = nest(30, "host"), *fits = nest(1, "@b");
  mr_tag tags[] = {{"a", a}, {"b", b}};
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "lib", .tags = tags, .tag_count = 2};
  mr_context *ctx = (mr_context *)1;
  assert_status(mr_context_create(&desc, &ctx), MR_ERR_CONFIG);
  assert_null(ctx);
  assert_error_contains("default spec of lib tag 'b', column 7: specs nest deeper than 32 levels "
                        "through @tag references (this spec is used 30 levels deep)");
  /* b resolved first, a refers to it afterwards: caught all the same. */
  mr_tag reversed[] = {{"b", b}, {"a", a}};
  desc.tags = reversed;
  assert_status(mr_context_create(&desc, &ctx), MR_ERR_CONFIG);
  assert_error_contains("default spec of lib tag 'a', column 1: the resource would be described "
                        "nested deeper than 32 levels, more than spec text may");
  /* 31 levels, the most text may have, through a reference, are fine. */
  tags[0].default_spec = fits;
  desc.tags = tags;
  assert_ok(mr_context_create(&desc, &ctx));
  const char *description = mr_resource_describe(mr_context_get_mr_on(ctx, 0, 0));
  char *again = resolve_describe_only(description);
  assert_string_equal(again, description);
  free(again);
  mr_context_destroy(ctx);
  free(a);
  free(b);
  free(fits);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builtins_parse_back),
      cmocka_unit_test(test_stand_ins_parse_back),
      cmocka_unit_test(test_context_resources_parse_back),
      cmocka_unit_test(test_nesting_through_references),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
