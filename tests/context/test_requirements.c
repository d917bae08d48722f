/*
 * test_requirements.c: what a library requires of a tag's memory
 * (mr_context_desc.tag_requires), checked at creation for every device and
 * every source.
 *
 * Run twice: without a driver (unit.context.requirements), where device
 * tags resolve to stand-ins that carry the properties of what they stand
 * for, and over the fake driver's devices (fake.context.requirements),
 * where they are real.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_util.h"

enum { RESULT, STAGING, SCRATCH, TAG_COUNT };

static const mr_tag tags[TAG_COUNT] = {
    [RESULT] = {"result", "device"},
    [STAGING] = {"staging", "pinned"},
    [SCRATCH] = {"scratch", "host"},
};

/* result: kernels write it, and it is freed in stream order; staging: the
 * host fills it and kernels read it; scratch: the host's. */
static const uint32_t requires[TAG_COUNT] = {
    [RESULT] = MR_REQUIRE_DEVICE_ACCESSIBLE | MR_REQUIRE_STREAM_ORDERED,
    [STAGING] = MR_REQUIRE_DEVICE_ACCESSIBLE | MR_REQUIRE_HOST_ACCESSIBLE,
    [SCRATCH] = MR_REQUIRE_HOST_ACCESSIBLE,
};

static mr_context_desc desc_with(const char *overrides) {
  return (mr_context_desc){.size = sizeof(mr_context_desc),
                           .library = "mylib",
                           .tags = tags,
                           .tag_count = TAG_COUNT,
                           .overrides = overrides,
                           .tag_requires = requires};
}

static int devices(void) {
  int count = 0;
  if (mr_device_count(&count) != MR_OK || count < 1) return 1;
  return count;
}

static void creates(const mr_context_desc *desc) {
  mr_context *ctx = NULL;
  mr_status st = mr_context_create(desc, &ctx);
  if (st != MR_OK) print_error("%s\n", mr_last_error());
  assert_int_equal(st, MR_OK);
  mr_context_destroy(ctx);
}

/* Creation fails with MR_ERR_CONFIG, and the message says each of the
 * NULL-terminated `parts`. */
static void refused(const mr_context_desc *desc, const char *const *parts) {
  mr_context *ctx = (mr_context *)1;
  assert_status(mr_context_create(desc, &ctx), MR_ERR_CONFIG);
  assert_null(ctx);
  for (size_t i = 0; parts[i] != NULL; i++) assert_error_contains(parts[i]);
}

static void test_met_requirements_create(void **state) {
  (void)state;
  /* The defaults meet them; so do overrides of the same kinds. Without a
   * driver the device tags are stand-ins with the props of what they
   * stand for. */
  mr_context_desc desc = desc_with(NULL);
  creates(&desc);
  desc = desc_with("result=cache(device)\nstaging=fixed(pinned, block=1MiB, count=1)\n"
                   "scratch=managed");
  creates(&desc);
  desc = desc_with("staging=managed\nresult=retry(stats(device_default, peak=exact))");
  creates(&desc);
}

static void test_override_text(void **state) {
  (void)state;
  /* The case: result=host. */
  mr_context_desc desc = desc_with("result=host");
  refused(&desc,
          (const char *const[]){
              "override text, column 8: ",
              "mylib: tag 'result' needs device-accessible, stream-ordered memory", "on device 0",
              "the override text gives it 'host': pageable host memory, which is not "
              "device-accessible nor stream-ordered",
              "\n  result=host\n         ^", NULL});
  desc = desc_with("scratch=device");
  refused(&desc,
          (const char *const[]){"tag 'scratch' needs host-accessible memory",
                                "'device': device memory, which is not host-accessible", NULL});
  /* Stream order: sync_device frees at once (its stand-in says so too). */
  desc = desc_with("result=sync_device");
  refused(&desc, (const char *const[]){"'sync_device': device memory, which is not "
                                       "stream-ordered",
                                       NULL});
  /* Through a reference: the memory the other tag gives. */
  desc = desc_with("staging=@scratch");
  refused(&desc, (const char *const[]){"tag 'staging' needs device-accessible, host-accessible",
                                       "'@scratch': pageable host memory, which is not "
                                       "device-accessible",
                                       NULL});
}

static void test_file_and_environment(void **state) {
  (void)state;
  char dir[] = "/tmp/mrctx-requires-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/mylib.conf", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("# mylib\nscratch = host\nstaging = host\n", f);
  fclose(f);
  mr_context_desc desc = desc_with(NULL);
  desc.config_file = path;
  char where[128];
  snprintf(where, sizeof where, "the config file %s gives it 'host'", path);
  refused(&desc, (const char *const[]){"line 3", "tag 'staging'", where, NULL});

  /* The environment variable wins over the file; its entry is refused. */
  desc.env_var = "MYLIB_REQUIRES_MEMORY";
  setenv("MYLIB_REQUIRES_MEMORY", "staging=pinned; result=pinned; result=host", 1);
  refused(&desc, (const char *const[]){
                     "MYLIB_REQUIRES_MEMORY, column 39: ",
                     "the environment variable MYLIB_REQUIRES_MEMORY gives it 'host'", NULL});
  /* A kind that meets them: pinned is device-accessible, and the pinned
   * pool frees in stream order. */
  setenv("MYLIB_REQUIRES_MEMORY", "staging=pinned; result=pinned", 1);
  creates(&desc);
  unsetenv("MYLIB_REQUIRES_MEMORY");
  unlink(path);
  rmdir(dir);
}

static void test_library_default(void **state) {
  (void)state;
  /* A library's own default that breaks its own requirement. */
  static const mr_tag wrong[] = {{"result", "host"}};
  static const uint32_t needs[] = {MR_REQUIRE_DEVICE_ACCESSIBLE};
  mr_context_desc desc = {.size = sizeof desc,
                          .library = "mylib",
                          .tags = wrong,
                          .tag_count = 1,
                          .tag_requires = needs};
  refused(&desc, (const char *const[]){"default spec of mylib tag 'result'",
                                       "its default spec gives it 'host'", NULL});
}

static void test_every_device(void **state) {
  (void)state;
  /* An entry for one device is checked on that device; an entry for a
   * device the context does not have is ignored, and not checked. */
  mr_context_desc desc = desc_with("result@1=host");
  if (devices() >= 2) {
    refused(&desc, (const char *const[]){"on device 1", "'host'", NULL});
  } else {
    creates(&desc);
  }
  desc = desc_with("result@99=host");
  creates(&desc);
}

static void test_bad_requirements(void **state) {
  (void)state;
  /* Bits this library does not know: a newer header asks for more. */
  static const uint32_t unknown[TAG_COUNT] = {[STAGING] = (uint32_t)1 << 9};
  mr_context_desc desc = desc_with(NULL);
  desc.tag_requires = unknown;
  mr_context *ctx = (mr_context *)1;
  assert_status(mr_context_create(&desc, &ctx), MR_ERR_UNSUPPORTED);
  assert_null(ctx);
  assert_error_contains("mylib: tag 'staging' requires 0x200");
  /* An older desc, without the field: nothing is required, and whatever
   * lies past its size is not read. */
  desc = desc_with("result=host");
  desc.size = offsetof(mr_context_desc, tag_requires);
  creates(&desc);
  /* No array: nothing required. */
  desc = desc_with("result=host");
  desc.tag_requires = NULL;
  creates(&desc);
}

static void test_describe_only_checks_too(void **state) {
  (void)state;
  mr_context_desc desc = desc_with("result=host");
  desc.flags = MR_CONTEXT_DESCRIBE_ONLY;
  refused(&desc, (const char *const[]){"tag 'result' needs device-accessible", NULL});
  desc = desc_with(NULL);
  desc.flags = MR_CONTEXT_DESCRIBE_ONLY;
  creates(&desc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_met_requirements_create),
      cmocka_unit_test(test_override_text),
      cmocka_unit_test(test_file_and_environment),
      cmocka_unit_test(test_library_default),
      cmocka_unit_test(test_every_device),
      cmocka_unit_test(test_bad_requirements),
      cmocka_unit_test(test_describe_only_checks_too),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
