/*
 * text.h (internal): text for people and for other programs, with no state
 * of the library's: messages cut to fit, byte counts in words, and strings
 * written as JSON, XML or terminal-safe text whatever their bytes.
 *
 * text.c is built as a static library of its own (mrctx_text, hidden
 * symbols) that libmrctx and the mrctx command both link: the command is
 * written against the public API and reaches these through it alone. So
 * nothing here may call into the rest of the library (no mri_error, no
 * mri_host_malloc).
 */
#ifndef MRCTX_LIB_CORE_TEXT_H
#define MRCTX_LIB_CORE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- fitting text into a buffer ------------------------------------------ */

/* Copy the `n` bytes at `text` into `buf` (`cap` bytes, NUL included); if
 * they do not fit, keep the beginning (a third) and the end, with " ... "
 * between, cut at UTF-8 character boundaries. */
void mri_fit_text(char *buf, size_t cap, const char *text, size_t n);

/* Text a message quotes from its input, at most MRI_BRIEF_MAX bytes of it:
 * `text` itself, or its beginning (whole UTF-8 characters) and "...". A
 * very long value then cannot push the reason out of the message. */
#define MRI_BRIEF_MAX 64
#define MRI_BRIEF_CAP (MRI_BRIEF_MAX + 4)
const char *mri_brief(const char *text, char buf[MRI_BRIEF_CAP]);

/* The length of the UTF-8 sequence starting at `s` (at most `left` bytes),
 * 0 if it is not valid UTF-8 (overlong forms and surrogates included). */
size_t mri_utf8_length(const unsigned char *s, size_t left);

/* ---- byte counts --------------------------------------------------------- */

/* Format a byte count as spec text: the largest binary unit that divides it
 * evenly ("64MiB", "1536B", "256B"), so it always parses back exactly. */
void mri_format_size(uint64_t bytes, char *buf, size_t cap);

/* Format a byte count for people, to one decimal of the largest binary unit
 * it reaches ("705.2 MiB", "512 B"); with `whole_bare`, a whole number of
 * that unit without the decimal ("16 GiB", the mrctx command's tables),
 * else with it ("16.0 GiB", the library's tables of statistics and
 * snapshots; the exact numbers are in the API and the JSON). */
void mri_format_bytes(uint64_t bytes, bool whole_bare, char *buf, size_t cap);

/* mri_format_bytes as the library's tables write counts ("16.0 GiB"). */
static inline void mri_format_bytes_human(uint64_t bytes, char *buf, size_t cap) {
  mri_format_bytes(bytes, false, buf, cap);
}

/* ---- strings for other programs ------------------------------------------ */

/* Write `text` as a JSON string, quoted and escaped: control characters as
 * escapes, bytes that are not UTF-8 as U+FFFD, so the output is always
 * valid JSON. */
void mri_json_write_string(FILE *out, const char *text);

/* Write `text` as XML character data or attribute value (either quote),
 * valid XML 1.0 whatever its bytes: markup characters as entities, tab and
 * line breaks as character references, bytes that are not UTF-8 and
 * characters XML cannot carry (other C0 controls, U+FFFE, U+FFFF) as
 * U+FFFD. */
void mri_xml_write_text(FILE *out, const char *text);

/* ---- text for terminals -------------------------------------------------- */

/* Names and messages that came from outside (a library's name, a snapshot
 * file's strings) are shown to people through these, so that no byte of
 * theirs can drive the terminal: control characters (C0, DEL and the C1
 * range U+0080..U+009F), bytes that are not UTF-8 and the backslash are
 * written as \xNN (the backslash as \\); printable UTF-8 is written as it
 * is. */

/* Write `text` escaped to `out`. */
void mri_write_printable(FILE *out, const char *text);

/* How many bytes mri_write_printable writes for `text` (a column's width). */
size_t mri_printable_length(const char *text);

/* `text` escaped into `buf` (`cap` bytes, NUL included; cap > 0): as much
 * as fits in whole characters and escapes, never cut inside one. Returns
 * buf. */
const char *mri_printable(const char *text, char *buf, size_t cap);

#endif /* MRCTX_LIB_CORE_TEXT_H */
