#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

bool mrctx_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return true;
  return false;
}

void mrctx_format_bytes(uint64_t bytes, char *buf, size_t cap) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) {
    snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
    return;
  }
  int unit = 0;
  double value = (double)bytes;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    unit++;
  }
  /* Whole numbers of a unit print without decimals ("16 GiB"). */
  if (bytes % ((uint64_t)1 << (10 * unit)) == 0)
    snprintf(buf, cap, "%.0f %s", value, units[unit]);
  else
    snprintf(buf, cap, "%.1f %s", value, units[unit]);
}

bool mrctx_read_all(FILE *file, char **text, size_t *length) {
  size_t capacity = 1 << 16, n = 0;
  char *buf = malloc(capacity);
  while (buf != NULL) {
    if (n == capacity) {
      char *grown = capacity <= SIZE_MAX / 2 ? realloc(buf, capacity * 2) : NULL;
      if (grown == NULL) break;
      buf = grown;
      capacity *= 2;
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
  free(buf);
  return false;
}
