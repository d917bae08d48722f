/*
 * test_mylib.c: the example library in use, as an application would use it
 * (public API only): defaults, an operator's MYLIB_MEMORY, the
 * application's override text, a tag that resolves to memory mylib cannot
 * use, and the per-tag statistics it leaves behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mylib.h"

static const int32_t input[] = {5, 3, 5, 1, 3, 9, 1, 1, 7, 5};
static const int32_t expected[] = {1, 3, 5, 7, 9};
#define INPUT_COUNT (sizeof input / sizeof input[0])

static void test_defaults_need_a_driver_for_staging(void **state) {
  unsetenv(MYLIB_MEMORY_VARIABLE);
  mr_context *ctx = NULL;
  assert_int_equal(mylib_context_create(NULL, &ctx), MR_OK);
  int32_t *out = (int32_t *)0x1;
  size_t n = 7;
  /* The unit suite has no driver: pinned staging cannot allocate, and the
   * message says which tag and why. */
  assert_int_equal(mylib_unique(ctx, input, INPUT_COUNT, NULL, &out, &n), MR_ERR_NO_DRIVER);
  assert_null(out);
  assert_int_equal(n, 0);
  assert_non_null(strstr(mr_last_error(), "mylib:staging on device 0: pinned:"));
  mr_context_destroy(ctx);
}

static void test_operator_overrides_staging(void **state) {
  /* What an operator on a machine without a GPU would set. */
  setenv(MYLIB_MEMORY_VARIABLE, "staging=host", 1);
  mr_context *ctx = NULL;
  assert_int_equal(mylib_context_create(NULL, &ctx), MR_OK);
  int32_t *out = NULL;
  size_t n = 0;
  assert_int_equal(mylib_unique(ctx, input, INPUT_COUNT, NULL, &out, &n), MR_OK);
  assert_int_equal(n, 5);
  assert_memory_equal(out, expected, sizeof expected);

  mr_stats s;
  mr_stats_init(&s);
  assert_int_equal(mr_context_get_stats(ctx, MYLIB_RESULT, -1, &s), MR_OK);
  assert_int_equal(s.current_bytes, sizeof expected);
  assert_int_equal(s.current_count, 1);
  assert_int_equal(mr_context_get_stats(ctx, MYLIB_TEMP, -1, &s), MR_OK);
  assert_int_equal(s.current_bytes, 0);
  assert_int_equal(s.total_bytes, sizeof input);
  assert_int_equal(mr_context_get_stats(ctx, MYLIB_STAGING, -1, &s), MR_OK);
  assert_int_equal(s.peak_bytes, sizeof input);
  assert_int_equal(mylib_free(ctx, out, n, NULL), MR_OK);
  assert_int_equal(mr_context_get_stats(ctx, MYLIB_RESULT, -1, &s), MR_OK);
  assert_int_equal(s.current_bytes, 0);

  mr_spec_source src = {.size = sizeof src};
  assert_int_equal(mr_context_get_source(ctx, MYLIB_STAGING, 0, &src), MR_OK);
  assert_int_equal(src.origin, MR_SPEC_ENV);
  assert_string_equal(src.where, "MYLIB_MEMORY");

  /* The statistics table an application might print at exit. */
  char *text = NULL;
  size_t length = 0;
  FILE *f = open_memstream(&text, &length);
  assert_int_equal(mr_context_print_stats(ctx, f), MR_OK);
  fclose(f);
  assert_non_null(strstr(text, "mylib memory by tag\n"));
  assert_non_null(
      strstr(text, "staging      0        0 B       40 B       40 B        0          1"));
  free(text);
  mr_context_destroy(ctx);
  unsetenv(MYLIB_MEMORY_VARIABLE);
}

static void test_application_overrides_and_operator_wins(void **state) {
  mr_context *ctx = NULL;
  assert_int_equal(mylib_context_create("staging=host; temp=stats(host)", &ctx), MR_OK);
  assert_string_equal(mr_resource_describe(ctx_get_mr(ctx, MYLIB_TEMP)), "stats(host)");
  int32_t *out = NULL;
  size_t n = 0;
  assert_int_equal(mylib_unique(ctx, input, INPUT_COUNT, NULL, &out, &n), MR_OK);
  assert_int_equal(mylib_free(ctx, out, n, NULL), MR_OK);
  mr_context_destroy(ctx);

  /* The operator's variable beats the application's text. */
  setenv(MYLIB_MEMORY_VARIABLE, "temp=host", 1);
  assert_int_equal(mylib_context_create("staging=host; temp=stats(host)", &ctx), MR_OK);
  assert_string_equal(mr_resource_describe(ctx_get_mr(ctx, MYLIB_TEMP)), "host");
  mr_context_destroy(ctx);

  /* A typo fails creation with the variable's name and a caret. */
  setenv(MYLIB_MEMORY_VARIABLE, "temp=hots", 1);
  assert_int_equal(mylib_context_create(NULL, &ctx), MR_ERR_CONFIG);
  assert_null(ctx);
  assert_non_null(strstr(mr_last_error(), "MYLIB_MEMORY, column 6: unknown resource 'hots'"));
  assert_non_null(strstr(mr_last_error(), "\n  temp=hots\n       ^"));
  unsetenv(MYLIB_MEMORY_VARIABLE);
}

static void test_memory_mylib_cannot_use(void **state) {
  mr_context *ctx = NULL;
  /* device memory for a host library: mylib requires host-accessible
   * memory of every tag, and creation says which tag, where the spec came
   * from and what it lacks -- on this machine without a driver too. */
  assert_int_equal(mylib_context_create("staging=host; result=device", &ctx), MR_ERR_CONFIG);
  assert_null(ctx);
  assert_non_null(strstr(mr_last_error(),
                         "override text, column 22: mylib: tag 'result' needs host-accessible "
                         "memory, but on device 0 the override text gives it 'device': device "
                         "memory, which is not host-accessible"));
  setenv(MYLIB_MEMORY_VARIABLE, "temp=arena(managed, chunk=1MiB); staging=host", 1);
  assert_int_equal(mylib_context_create(NULL, &ctx), MR_OK);
  unsetenv(MYLIB_MEMORY_VARIABLE);
  int32_t *out;
  size_t n;
  /* An empty input needs no memory at all. */
  assert_int_equal(mylib_unique(ctx, input, 0, NULL, &out, &n), MR_OK);
  assert_null(out);
  assert_int_equal(n, 0);
  mr_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults_need_a_driver_for_staging),
      cmocka_unit_test(test_operator_overrides_staging),
      cmocka_unit_test(test_application_overrides_and_operator_wins),
      cmocka_unit_test(test_memory_mylib_cannot_use),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
