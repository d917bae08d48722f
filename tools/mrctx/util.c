#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"

bool mrctx_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return true;
  return false;
}

int mrctx_read_options(int argc, char **argv, const char *shorts, const struct option *longs,
                       void (*usage)(FILE *out), bool *skip_bad,
                       int (*take)(void *options, int c, char *arg), void *options) {
  optind = 1;
  opterr = 1; /* getopt says what is wrong, then the usage follows */
  int c;
  while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
    if (c == 'h') {
      usage(stdout);
      return MRCTX_EXIT_OK;
    }
    if (c == '?' || c == ':') {
      usage(stderr);
      return MRCTX_EXIT_USAGE;
    }
    if (c == 'k' && skip_bad != NULL) {
      *skip_bad = true;
      continue;
    }
    int status = take(options, c, optarg);
    if (status >= 0) return status;
  }
  return -1;
}

int mrctx_take_string(void *options, int c, char *arg) {
  for (const mrctx_string_option *s = options; s->c != 0; s++)
    if (s->c == c) *s->value = arg;
  return -1;
}

int mrctx_getopt(const char *verb, int argc, char **argv, const char *shorts,
                 const struct option *longs) {
  char spec[32];
  snprintf(spec, sizeof spec, "+:%s", shorts);
  opterr = 0;
  int at = optind; /* the argument getopt reads now, whole, for a message */
  int c = getopt_long(argc, argv, spec, longs, NULL);
  if (c == ':') {
    fprintf(stderr, "mrctx %s: %s needs a value\n", verb, argv[at]);
  } else if (c == '?') {
    fprintf(stderr, "mrctx %s: unknown argument '%s'\n", verb, argv[at]);
  } else if (c == -1 && optind < argc) {
    fprintf(stderr, "mrctx %s: unknown argument '%s'\n", verb, argv[optind]);
    c = '?';
  }
  return c;
}

const char *mrctx_name_and_path(const char *arg, char **name) {
  struct stat st;
  const char *eq = strchr(arg, '=');
  if (eq != NULL && eq != arg && stat(arg, &st) != 0) {
    *name = strndup(arg, (size_t)(eq - arg));
    return eq + 1;
  }
  const char *base = strrchr(arg, '/');
  base = base != NULL ? base + 1 : arg;
  size_t n = strlen(base);
  if (n > 4 && strcmp(base + n - 4, ".csv") == 0) n -= 4;
  *name = strndup(base, n);
  return arg;
}

mr_resource *mrctx_find_cache(mr_resource *mr) {
  for (mr_resource *r = mr; r != NULL; r = mr_resource_upstream(r)) {
    mr_cache_stats stats = {.size = sizeof stats};
    if (mr_cache_resource_get_stats(r, &stats) == MR_OK) return r;
  }
  return NULL;
}

bool mrctx_read_all(FILE *file, size_t limit, char **text, size_t *length) {
  /* Room for one byte past the limit: a file of exactly the limit is read
   * whole, and only a longer one is refused. */
  size_t capacity = 1 << 16, n = 0;
  if (limit < SIZE_MAX && capacity > limit + 1) capacity = limit + 1;
  char *buf = malloc(capacity);
  while (buf != NULL) {
    if (n > limit) {
      free(buf);
      errno = EFBIG;
      return false;
    }
    if (n == capacity) {
      size_t grown_capacity = capacity <= SIZE_MAX / 2 ? capacity * 2 : SIZE_MAX;
      if (limit < SIZE_MAX && grown_capacity > limit + 1) grown_capacity = limit + 1;
      char *grown = realloc(buf, grown_capacity);
      if (grown == NULL) break;
      buf = grown;
      capacity = grown_capacity;
    }
    size_t got = fread(buf + n, 1, capacity - n, file);
    n += got;
    if (got == 0) {
      if (ferror(file)) break;
      *text = buf;
      *length = n;
      return true;
    }
  }
  int error = buf == NULL || !ferror(file) ? ENOMEM : errno;
  free(buf);
  errno = error;
  return false;
}

/* ---- output files ---------------------------------------------------------------- */

FILE *mrctx_output_open(mri_output *out, const char *verb, const char *path,
                        const char *const *inputs, size_t input_count) {
  char why[1024];
  if (mri_output_open(out, path, 0, inputs, input_count, why, sizeof why) != 0) {
    fprintf(stderr, "mrctx %s: cannot write '%s': %s\n", verb, path, why);
    return NULL;
  }
  FILE *stream = mri_output_stream(out);
  if (stream == NULL) {
    fprintf(stderr, "mrctx %s: cannot write '%s': %s\n", verb, path, strerror(errno));
    mri_output_abort(out);
  }
  return stream;
}

bool mrctx_output_commit(mri_output *out, const char *verb) {
  char why[1024];
  if (mri_output_commit(out, 0, why, sizeof why) == 0) return true;
  fprintf(stderr, "mrctx %s: writing '%s' failed: %s\n", verb, out->path, why);
  return false;
}

void mrctx_output_abort(mri_output *out) { mri_output_abort(out); }

const char **mrctx_input_paths(char *const *args, size_t count) {
  const char **paths = calloc(count > 0 ? count : 1, sizeof *paths);
  for (size_t i = 0; paths != NULL && i < count; i++) {
    char *name = NULL;
    paths[i] = mrctx_name_and_path(args[i], &name);
    free(name);
  }
  return paths;
}
