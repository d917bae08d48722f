#include <errno.h>
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

/* ---- text for other programs ----------------------------------------------- */

/* The length of the UTF-8 character at `s` (`left` bytes to the end), 0 if
 * the bytes there are not one (overlong forms and surrogates included). The
 * library's JSON writer (context/json.c) decides the same way; the tools
 * cannot reach its internals. */
static size_t utf8_length(const unsigned char *s, size_t left) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (left < n) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD in UTF-8 */

void mrctx_write_json_string(FILE *f, const char *text) {
  fputc('"', f);
  const unsigned char *s = (const unsigned char *)text;
  size_t left = strlen(text);
  while (left > 0) {
    unsigned char c = *s;
    size_t n = 1;
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc(c, f);
    } else if (c == '\n') {
      fputs("\\n", f);
    } else if (c == '\t') {
      fputs("\\t", f);
    } else if (c == '\r') {
      fputs("\\r", f);
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(f, "\\u%04x", c);
    } else if (c >= 0x80) {
      n = utf8_length(s, left);
      if (n == 0) {
        fputs(REPLACEMENT, f);
        n = 1;
      } else {
        fwrite(s, 1, n, f);
      }
    } else {
      fputc(c, f);
    }
    s += n;
    left -= n;
  }
  fputc('"', f);
}

const char *mrctx_printable(const char *text, char *buf, size_t cap) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *s = (const unsigned char *)text;
  size_t left = strlen(text), used = 0;
  while (left > 0) {
    char escape[5] = {'\\', 'x', hex[*s >> 4], hex[*s & 15], '\0'};
    size_t n = *s >= 0x20 && *s < 0x7f ? 1 : *s >= 0x80 ? utf8_length(s, left) : 0;
    if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) n = 0; /* a C1 control */
    if (*s == '\\') n = 0, escape[1] = '\\', escape[2] = '\0';
    const char *piece = n == 0 ? escape : (const char *)s;
    size_t length = n == 0 ? strlen(escape) : n;
    if (used + length >= cap) break;
    memcpy(buf + used, piece, length);
    used += length;
    n = n == 0 ? 1 : n;
    s += n;
    left -= n;
  }
  buf[used] = '\0';
  return buf;
}

void mrctx_write_xml_text(FILE *f, const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  size_t left = strlen(text);
  while (left > 0) {
    unsigned char c = *s;
    size_t n = 1;
    switch (c) {
    case '<':
      fputs("&lt;", f);
      break;
    case '>':
      fputs("&gt;", f);
      break;
    case '&':
      fputs("&amp;", f);
      break;
    case '\'':
      fputs("&apos;", f);
      break;
    case '"':
      fputs("&quot;", f);
      break;
    case '\t':
    case '\n':
    case '\r':
      /* As references, so that an attribute keeps them (a parser turns a
       * literal one in an attribute into a space). */
      fprintf(f, "&#%d;", c);
      break;
    default:
      if (c < 0x20) {
        fputs(REPLACEMENT, f); /* XML 1.0 has no other C0 character */
      } else if (c < 0x80) {
        fputc(c, f);
      } else {
        n = utf8_length(s, left);
        /* U+FFFE and U+FFFF are no XML characters either. */
        if (n == 0 || (n == 3 && c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)) {
          fputs(REPLACEMENT, f);
          n = n == 0 ? 1 : n;
        } else {
          fwrite(s, 1, n, f);
        }
      }
    }
    s += n;
    left -= n;
  }
}
