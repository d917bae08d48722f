/*
 * text.c: text for people and for other programs (see core/text.h). Built
 * into libmrctx and, as the static library mrctx_text, into the mrctx
 * command: it uses nothing of the library's but the C library.
 */
#include <inttypes.h>
#include <string.h>

#include "core/text.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD in UTF-8 */

/* ---- fitting text into a buffer ------------------------------------------ */

static bool is_utf8_continuation(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

void mri_fit_text(char *buf, size_t cap, const char *text, size_t n) {
  if (cap == 0) return;
  if (n < cap) {
    memmove(buf, text, n);
    buf[n] = '\0';
    return;
  }
  static const char gap[] = " ... ";
  size_t room = cap - 1;
  if (room < sizeof gap - 1 + 2) {
    memmove(buf, text, room);
    buf[room] = '\0';
    return;
  }
  room -= sizeof gap - 1;
  size_t head = room / 3, tail = room - head;
  while (head > 0 && is_utf8_continuation(text[head])) head--;
  size_t from = n - tail;
  while (from < n && is_utf8_continuation(text[from])) from++;
  tail = n - from;
  /* `text` may overlap `buf`: the tail moves first, to where it ends up. */
  memmove(buf + head + sizeof gap - 1, text + from, tail);
  memmove(buf, text, head);
  memcpy(buf + head, gap, sizeof gap - 1);
  buf[head + sizeof gap - 1 + tail] = '\0';
}

const char *mri_brief(const char *text, char buf[MRI_BRIEF_CAP]) {
  size_t n = strnlen(text, MRI_BRIEF_MAX + 1);
  if (n <= MRI_BRIEF_MAX) return text;
  n = MRI_BRIEF_MAX;
  while (n > 0 && is_utf8_continuation(text[n])) n--;
  memcpy(buf, text, n);
  memcpy(buf + n, "...", 4);
  return buf;
}

size_t mri_utf8_length(const unsigned char *s, size_t left) {
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

/* ---- byte counts --------------------------------------------------------- */

void mri_format_bytes(uint64_t bytes, bool whole_bare, char *buf, size_t cap) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) {
    snprintf(buf, cap, "%" PRIu64 " B", bytes);
    return;
  }
  double value = (double)bytes / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof units / sizeof units[0]) {
    value /= 1024;
    unit++;
  }
  bool whole = bytes % ((uint64_t)1 << (10 * (unit + 1))) == 0;
  snprintf(buf, cap, whole && whole_bare ? "%.0f %s" : "%.1f %s", value, units[unit]);
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

/* ---- strings for other programs ------------------------------------------ */

void mri_json_write_string(FILE *out, const char *text) {
  fputc('"', out);
  const unsigned char *s = (const unsigned char *)text;
  size_t left = strlen(text);
  while (left > 0) {
    unsigned char c = *s;
    if (c == '"' || c == '\\') {
      fputc('\\', out);
      fputc(c, out);
    } else if (c == '\n') {
      fputs("\\n", out);
    } else if (c == '\t') {
      fputs("\\t", out);
    } else if (c == '\r') {
      fputs("\\r", out);
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(out, "\\u%04x", c);
    } else if (c >= 0x80) {
      size_t n = mri_utf8_length(s, left);
      if (n == 0) {
        fputs(REPLACEMENT, out); /* U+FFFD, which reads back as itself */
        n = 1;
      } else {
        fwrite(s, 1, n, out);
      }
      s += n;
      left -= n;
      continue;
    } else {
      fputc(c, out);
    }
    s++;
    left--;
  }
  fputc('"', out);
}

void mri_xml_write_text(FILE *out, const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  size_t left = strlen(text);
  while (left > 0) {
    unsigned char c = *s;
    size_t n = 1;
    switch (c) {
    case '<':
      fputs("&lt;", out);
      break;
    case '>':
      fputs("&gt;", out);
      break;
    case '&':
      fputs("&amp;", out);
      break;
    case '\'':
      fputs("&apos;", out);
      break;
    case '"':
      fputs("&quot;", out);
      break;
    case '\t':
    case '\n':
    case '\r':
      /* As references, so that an attribute keeps them (a parser turns a
       * literal one in an attribute into a space). */
      fprintf(out, "&#%d;", c);
      break;
    default:
      if (c < 0x20) {
        fputs(REPLACEMENT, out); /* XML 1.0 has no other C0 character */
      } else if (c < 0x80) {
        fputc(c, out);
      } else {
        n = mri_utf8_length(s, left);
        /* U+FFFE and U+FFFF are no XML characters either. */
        if (n == 0 || (n == 3 && c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)) {
          fputs(REPLACEMENT, out);
          n = n == 0 ? 1 : n;
        } else {
          fwrite(s, 1, n, out);
        }
      }
    }
    s += n;
    left -= n;
  }
}

/* ---- text for terminals -------------------------------------------------- */

/* How `text` at `s` (`left` bytes to its end) is shown: the length of the
 * character taken as it is, or 0 and `escape` filled ("\\x1b", "\\\\")
 * for one byte taken escaped. */
static size_t printable_step(const unsigned char *s, size_t left, char escape[5]) {
  unsigned char c = *s;
  if (c == '\\') {
    memcpy(escape, "\\\\", 3);
    return 0;
  }
  if (c >= 0x20 && c < 0x7f) return 1;
  size_t n = c >= 0x80 ? mri_utf8_length(s, left) : 0;
  if (n != 0 && !(n == 2 && c == 0xc2 && s[1] < 0xa0)) return n; /* not a C1 control */
  static const char hex[] = "0123456789abcdef";
  escape[0] = '\\';
  escape[1] = 'x';
  escape[2] = hex[c >> 4];
  escape[3] = hex[c & 15];
  escape[4] = '\0';
  return 0;
}

void mri_write_printable(FILE *out, const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  size_t left = strlen(text);
  while (left > 0) {
    char escape[5];
    size_t n = printable_step(s, left, escape);
    if (n == 0) {
      fputs(escape, out);
      n = 1;
    } else {
      fwrite(s, 1, n, out);
    }
    s += n;
    left -= n;
  }
}

size_t mri_printable_length(const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  size_t left = strlen(text), length = 0;
  while (left > 0) {
    char escape[5];
    size_t n = printable_step(s, left, escape);
    length += n == 0 ? strlen(escape) : n;
    n = n == 0 ? 1 : n;
    s += n;
    left -= n;
  }
  return length;
}

const char *mri_printable(const char *text, char *buf, size_t cap) {
  const unsigned char *s = (const unsigned char *)text;
  size_t left = strlen(text), used = 0;
  while (left > 0) {
    char escape[5];
    size_t n = printable_step(s, left, escape);
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
