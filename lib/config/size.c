/*
 * size.c: sizes in the spec language.
 *
 *   size := number [ unit ] | number '%'
 *   number := digits [ '.' digits ]
 *   unit := B | K | KiB | M | MiB | G | GiB | T | TiB   (any letter case)
 *
 * Units are binary: K and KiB both mean 1024. "KB", "MB", ... are refused
 * rather than guessed at, since they mean 1000 to some readers and 1024 to
 * others. A fraction must come out as whole bytes ("1.5KiB" is 1536; "1.3KiB"
 * is an error); a percentage of the device's memory rounds down, and is at
 * most 100% (checked here, before anyone reads the device's memory, so the
 * mistake is reported with or without a driver). Arithmetic is exact and a
 * result past 2^64 - 1 is an error, never a wrap.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"

__extension__ typedef unsigned __int128 mri_u128;

static const struct {
  const char *name;
  uint64_t multiplier;
} units[] = {
    {"B", 1},
    {"K", (uint64_t)1 << 10},
    {"KiB", (uint64_t)1 << 10},
    {"M", (uint64_t)1 << 20},
    {"MiB", (uint64_t)1 << 20},
    {"G", (uint64_t)1 << 30},
    {"GiB", (uint64_t)1 << 30},
    {"T", (uint64_t)1 << 40},
    {"TiB", (uint64_t)1 << 40},
};

static const char *const ambiguous_units[] = {"KB", "MB", "GB", "TB"};

/* Keeps 10^digits * 100 well inside 128 bits. */
#define MAX_FRACTION_DIGITS 20

static bool accumulate(uint64_t *mantissa, const char *from, const char *to) {
  for (const char *d = from; d < to; d++) {
    if (__builtin_mul_overflow(*mantissa, 10, mantissa) ||
        __builtin_add_overflow(*mantissa, (uint64_t)(*d - '0'), mantissa))
      return false;
  }
  return true;
}

mr_status mri_size_parse(const char *text, mri_size_text *out, char *why, size_t cap) {
  memset(out, 0, sizeof *out);
  char brief[MRI_BRIEF_CAP];
  const char *quoted = mri_brief(text, brief);
  const char *s = text;
  if (!(*s >= '0' && *s <= '9')) {
    snprintf(why, cap,
             "'%s' is not a size (a number with an optional unit: B, K, KiB, M, "
             "MiB, G, GiB, T, TiB; or N%%)",
             quoted);
    return MR_ERR_CONFIG;
  }
  uint64_t mantissa = 0;
  const char *digits_end = s;
  while (*digits_end >= '0' && *digits_end <= '9') digits_end++;
  const char *fraction = NULL, *fraction_end = NULL;
  const char *rest = digits_end;
  if (*digits_end == '.') {
    fraction = digits_end + 1;
    fraction_end = fraction;
    while (*fraction_end >= '0' && *fraction_end <= '9') fraction_end++;
    if (fraction_end == fraction) {
      snprintf(why, cap, "'%s' is not a size: a digit must follow '.'", quoted);
      return MR_ERR_CONFIG;
    }
    rest = fraction_end;
    /* Trailing zeros add nothing and would only eat precision. */
    while (fraction_end > fraction && fraction_end[-1] == '0') fraction_end--;
  }
  unsigned frac_digits = fraction != NULL ? (unsigned)(fraction_end - fraction) : 0;
  if (frac_digits > MAX_FRACTION_DIGITS) {
    snprintf(why, cap, "'%s' has more than %d digits after the '.'", quoted, MAX_FRACTION_DIGITS);
    return MR_ERR_CONFIG;
  }
  if (!accumulate(&mantissa, s, digits_end) ||
      (fraction != NULL && !accumulate(&mantissa, fraction, fraction_end))) {
    snprintf(why, cap, "'%s' is too large a number", quoted);
    return MR_ERR_CONFIG;
  }
  out->mantissa = mantissa;
  out->frac_digits = frac_digits;
  if (strcmp(rest, "%") == 0) {
    /* mantissa / 10^frac_digits <= 100; 10^20 * 100 fits 128 bits. */
    mri_u128 hundred = 100;
    for (unsigned i = 0; i < frac_digits; i++) hundred *= 10;
    if ((mri_u128)mantissa > hundred) {
      snprintf(why, cap,
               "'%s' is more than 100%% (a size in %% is a share of the device's "
               "memory)",
               quoted);
      return MR_ERR_CONFIG;
    }
    out->percent = true;
    return MR_OK;
  }
  if (*rest == '\0') {
    out->multiplier = 1;
    return MR_OK;
  }
  for (size_t i = 0; i < MRI_ARRAY_SIZE(units); i++) {
    if (strcasecmp(rest, units[i].name) == 0) {
      out->multiplier = units[i].multiplier;
      return MR_OK;
    }
  }
  for (size_t i = 0; i < MRI_ARRAY_SIZE(ambiguous_units); i++) {
    if (strcasecmp(rest, ambiguous_units[i]) == 0) {
      int number = (int)(rest - text);
      char unit = ambiguous_units[i][0];
      if (number > MRI_BRIEF_MAX)
        snprintf(why, cap,
                 "'%s': the unit '%s' is ambiguous (units here are binary): write "
                 "%ciB or %c",
                 quoted, rest, unit, unit);
      else
        snprintf(why, cap,
                 "'%s': the unit '%s' is ambiguous (units here are binary): write "
                 "%.*s%ciB or %.*s%c",
                 quoted, rest, number, text, unit, number, text, unit);
      return MR_ERR_CONFIG;
    }
  }
  snprintf(why, cap,
           "'%s' has an unknown unit '%.16s' (known: B, K, KiB, M, MiB, G, GiB, T, "
           "TiB, %%)",
           quoted, rest);
  return MR_ERR_CONFIG;
}

mr_status mri_size_bytes(const mri_size_text *size, uint64_t total, uint64_t *bytes, char *why,
                         size_t cap) {
  *bytes = 0;
  mri_u128 scale = 1;
  for (unsigned i = 0; i < size->frac_digits; i++) scale *= 10;
  mri_u128 value;
  if (size->percent) {
    /* total * mantissa fits: both are below 2^64; at most 100% of total. */
    value = (mri_u128)total * size->mantissa / (scale * 100);
  } else {
    mri_u128 numerator = (mri_u128)size->mantissa * size->multiplier;
    if (numerator % scale != 0) {
      snprintf(why, cap, "the size is not a whole number of bytes");
      return MR_ERR_CONFIG;
    }
    value = numerator / scale;
  }
  if (value > UINT64_MAX) {
    snprintf(why, cap, "the size is larger than 2^64 - 1 bytes");
    return MR_ERR_CONFIG;
  }
  *bytes = (uint64_t)value;
  return MR_OK;
}
