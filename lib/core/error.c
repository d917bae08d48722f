/*
 * error.c: status names and the per-thread error message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

const char *mr_version(void) { return MRCTX_VERSION_STRING; }

const char *mr_status_name(mr_status status) {
  switch (status) {
#define MRI_NAME_CASE_(name, value, description) \
  case name:                                     \
    return #name;
    MR_STATUS_LIST(MRI_NAME_CASE_)
#undef MRI_NAME_CASE_
  }
  return "MR_ERR_UNKNOWN";
}

const char *mr_status_string(mr_status status) {
  switch (status) {
#define MRI_STRING_CASE_(name, value, description) \
  case name:                                       \
    return description;
    MR_STATUS_LIST(MRI_STRING_CASE_)
#undef MRI_STRING_CASE_
  }
  return "unknown status";
}

/* One fixed buffer per thread: recording an error never allocates, so
 * out-of-memory paths can still say what happened. */
static _Thread_local char tls_message[MRI_ERROR_CAPACITY];

const char *mr_last_error(void) { return tls_message; }

void mr_clear_error(void) { tls_message[0] = '\0'; }

mr_status mri_verror(mr_status status, const char *format, va_list args) {
  /* Format into a scratch buffer first: `args` may refer to the current
   * message (a caller re-reporting mr_last_error()). */
  char scratch[MRI_ERROR_CAPACITY];
  vsnprintf(scratch, sizeof scratch, format, args);
  memcpy(tls_message, scratch, sizeof scratch);
  return status;
}

mr_status mri_error(mr_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  mri_verror(status, format, args);
  va_end(args);
  return status;
}

mr_status mr_error(mr_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  if (format == NULL) format = "";
  mri_verror(status, format, args);
  va_end(args);
  return status;
}

mr_status mri_error_prefix(mr_status status, const char *format, ...) {
  char prefix[MRI_ERROR_CAPACITY];
  va_list args;
  va_start(args, format);
  vsnprintf(prefix, sizeof prefix, format, args);
  va_end(args);
  /* prefix + ": " + old message, truncated to the buffer. */
  char scratch[MRI_ERROR_CAPACITY];
  size_t n = strlen(prefix);
  memcpy(scratch, prefix, n + 1);
  if (tls_message[0] != '\0' && n + 2 < sizeof scratch) {
    memcpy(scratch + n, ": ", 3);
    n += 2;
    size_t rest = strlen(tls_message);
    if (rest > sizeof scratch - 1 - n) rest = sizeof scratch - 1 - n;
    memcpy(scratch + n, tls_message, rest);
    scratch[n + rest] = '\0';
  }
  memcpy(tls_message, scratch, sizeof scratch);
  return status;
}

void *mri_calloc(size_t count, size_t size) {
  void *p = mri_host_calloc(count, size);
  if (p == NULL && count != 0 && size != 0)
    mri_error(MR_ERR_OUT_OF_MEMORY,
              "out of host memory allocating %zu x %zu bytes of bookkeeping",
              count, size);
  return p;
}

char *mri_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = mri_host_malloc(n);
  if (copy == NULL) {
    mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory copying a %zu-byte string", n);
    return NULL;
  }
  memcpy(copy, s, n);
  return copy;
}

char *mri_asprintf(const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (n < 0) {
    mri_error(MR_ERR_INVALID_ARGUMENT, "could not format text");
    return NULL;
  }
  char *s = mri_host_malloc((size_t)n + 1);
  if (s == NULL) {
    mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory formatting %d bytes of text", n);
    return NULL;
  }
  va_start(args, format);
  vsnprintf(s, (size_t)n + 1, format, args);
  va_end(args);
  return s;
}

void mri_format_size(uint64_t bytes, char *buf, size_t cap) {
  /* Exact, so the text parses back to the same number: the largest unit
   * that divides the value evenly ("64MiB", "1536B", "3TiB"). */
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  uint64_t whole = bytes;
  while (unit < 4 && whole >= 1024 && whole % 1024 == 0) {
    whole /= 1024;
    unit++;
  }
  snprintf(buf, cap, "%llu%s", (unsigned long long)whole, units[unit]);
}
