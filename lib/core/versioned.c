/*
 * versioned.c: reading and filling the caller's size-first structs.
 *
 * Every public struct passed across the API starts with its size as the
 * caller's compiler saw it, and fields are only appended (docs/abi.md).
 * These two functions are the only places that act on that size, so every
 * call treats an older or newer caller the same way.
 */
#include <string.h>

#include "core/core.h"

static size_t size_field(const void *p) {
  size_t size;
  memcpy(&size, p, sizeof size);
  return size;
}

static mr_status check_size(size_t given, size_t known, size_t oldest, const char *who,
                            const char *type) {
  if (given < oldest)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %s.size is %zu, less than the %zu bytes of the oldest %s this "
                     "library reads (set it to sizeof(%s), %zu with this library's header)",
                     who, type, given, oldest, type, type, known);
  if (given > known + MRI_STRUCT_MAX_GROWTH)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %s.size is %zu, not a size this struct can have (set it to "
                     "sizeof(%s), %zu with this library's header)",
                     who, type, given, type, known);
  return MR_OK;
}

mr_status mri_struct_read(void *dst, size_t known, const void *src, size_t oldest, const char *who,
                          const char *type) {
  size_t given = size_field(src);
  mr_status st = check_size(given, known, oldest, who, type);
  if (st != MR_OK) return st;
  /* A newer header's fields may be used only as "not set": zero. */
  const unsigned char *tail = (const unsigned char *)src;
  for (size_t i = known; i < given; i++)
    if (tail[i] != 0)
      return mri_error(MR_ERR_UNSUPPORTED,
                       "%s: %s sets a field at byte %zu, past the %zu bytes this mrctx (%s) "
                       "knows: the program was built against a newer header and uses "
                       "something this library does not have",
                       who, type, i, known, mr_version());
  memcpy(dst, src, given < known ? given : known);
  memcpy(dst, &known, sizeof known);
  return MR_OK;
}

mr_status mri_struct_write(void *dst, const void *src, size_t known, size_t oldest, const char *who,
                           const char *type) {
  size_t given = size_field(dst);
  mr_status st = check_size(given, known, oldest, who, type);
  if (st != MR_OK) return st;
  size_t filled = given < known ? given : known;
  memcpy(dst, src, filled);
  if (given > known) memset((char *)dst + known, 0, given - known);
  memcpy(dst, &filled, sizeof filled);
  return MR_OK;
}
