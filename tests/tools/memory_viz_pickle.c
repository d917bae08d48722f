/*
 * memory_viz_pickle.c: the pickle writer of lib/core/memory_viz.c on the
 * values at the edges of each opcode, for check_memory_viz.py, which
 * unpickles standard output with Python's pickle and compares it with
 * what it expects (and checks the opcodes and batch sizes the page
 * reads). Misuses are checked here: each must make mri_pickle_finish
 * fail. Exit status 0, or 1 with a line on stderr.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory_viz.h"

static int misuse_fails(const char *what, void (*misuse)(mri_pickle *p)) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL) return 1;
  mri_pickle p;
  mri_pickle_begin(&p, f);
  misuse(&p);
  errno = 0;
  bool ok = mri_pickle_finish(&p);
  int saved = errno;
  fclose(f);
  free(buf);
  if (ok || saved != EINVAL) {
    fprintf(stderr, "memory_viz_pickle: %s was not refused\n", what);
    return 1;
  }
  return 0;
}

static void end_without_begin(mri_pickle *p) { mri_pickle_end(p); }

static void too_deep(mri_pickle *p) {
  for (int i = 0; i <= MRI_PICKLE_DEPTH; i++) mri_pickle_list(p);
  for (int i = 0; i <= MRI_PICKLE_DEPTH; i++) mri_pickle_end(p);
}

static void key_alone(mri_pickle *p) {
  mri_pickle_dict(p);
  mri_pickle_str(p, "key");
  mri_pickle_end(p);
}

static void left_open(mri_pickle *p) { mri_pickle_list(p); }

int main(void) {
  static const int64_t ints[] = {0,  1,    255,       256,           65535,     65536,    INT32_MAX,
                                 -1, -255, INT32_MIN, -2147483649LL, INT64_MAX, INT64_MIN};
  static const uint64_t uints[] = {(uint64_t)INT32_MAX + 1, UINT32_MAX,
                                   (uint64_t)1 << 32,       ((uint64_t)1 << 55) + 3,
                                   (uint64_t)INT64_MAX + 1, UINT64_MAX};
  mri_pickle p;
  mri_pickle_begin(&p, stdout);
  mri_pickle_dict(&p);
  mri_pickle_str(&p, "ints");
  mri_pickle_list(&p);
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) mri_pickle_int(&p, ints[i]);
  mri_pickle_end(&p);
  mri_pickle_str(&p, "uints");
  mri_pickle_list(&p);
  for (size_t i = 0; i < sizeof uints / sizeof uints[0]; i++) mri_pickle_uint(&p, uints[i]);
  mri_pickle_end(&p);
  mri_pickle_str(&p, "strings");
  mri_pickle_list(&p);
  mri_pickle_str(&p, "");
  mri_pickle_str(&p, NULL);
  mri_pickle_str(&p, "solver:results");
  mri_pickle_str(&p, "caf\xc3\xa9");           /* é */
  mri_pickle_str(&p, "bad\377byte");           /* not UTF-8: U+FFFD */
  mri_pickle_str(&p, "cut\xe2\x82");           /* a sequence cut short: two U+FFFD */
  mri_pickle_str(&p, "surrogate\xed\xa0\x80"); /* UTF-8 forbids it: three U+FFFD */
  mri_pickle_strn(&p, "abcdef", 3);
  mri_pickle_end(&p);
  /* Batches: 2500 entries in a list, 2100 items in a dict. */
  mri_pickle_str(&p, "list");
  mri_pickle_list(&p);
  for (int i = 0; i < 2500; i++) mri_pickle_int(&p, i);
  mri_pickle_end(&p);
  mri_pickle_str(&p, "dict");
  mri_pickle_dict(&p);
  for (int i = 0; i < 2100; i++) {
    char key[16];
    snprintf(key, sizeof key, "k%d", i);
    mri_pickle_str(&p, key);
    mri_pickle_int(&p, i);
  }
  mri_pickle_end(&p);
  mri_pickle_str(&p, "exactly_1000");
  mri_pickle_list(&p);
  for (int i = 0; i < 1000; i++) mri_pickle_none(&p);
  mri_pickle_end(&p);
  mri_pickle_str(&p, "tuple");
  mri_pickle_tuple(&p);
  mri_pickle_uint(&p, 0);
  mri_pickle_uint(&p, 7);
  mri_pickle_end(&p);
  mri_pickle_str(&p, "empty");
  mri_pickle_list(&p);
  mri_pickle_end(&p);
  mri_pickle_str(&p, "empty_dict");
  mri_pickle_dict(&p);
  mri_pickle_end(&p);
  mri_pickle_str(&p, "true");
  mri_pickle_bool(&p, true);
  mri_pickle_str(&p, "false");
  mri_pickle_bool(&p, false);
  mri_pickle_str(&p, "none");
  mri_pickle_none(&p);
  mri_pickle_end(&p);
  if (!mri_pickle_finish(&p)) {
    fprintf(stderr, "memory_viz_pickle: finish failed: %s\n", strerror(errno));
    return 1;
  }
  int failed = misuse_fails("an end without a begin", end_without_begin) +
               misuse_fails("nesting deeper than MRI_PICKLE_DEPTH", too_deep) +
               misuse_fails("a key without its value", key_alone) +
               misuse_fails("a container left open", left_open);
  return failed ? 1 : 0;
}
