/*
 * context/json.h (internal): the little JSON the snapshot files need: a
 * reader into a tree (strings are written by core/text.h).
 *
 * The reader takes RFC 8259 JSON (UTF-8, an optional byte-order mark),
 * keeps each value's line and column for messages, and refuses what a
 * snapshot never holds rather than guessing: a NUL in a string, a member
 * name given twice in one object, nesting deeper than MRI_JSON_MAX_DEPTH.
 * Numbers are kept as their text, so 64-bit counters convert exactly.
 */
#ifndef MRCTX_LIB_CONTEXT_JSON_H
#define MRCTX_LIB_CONTEXT_JSON_H

#include <stdio.h>

#include "core/core.h"

#define MRI_JSON_MAX_DEPTH 64

typedef enum mri_json_type {
  MRI_JSON_NULL,
  MRI_JSON_FALSE,
  MRI_JSON_TRUE,
  MRI_JSON_NUMBER,
  MRI_JSON_STRING,
  MRI_JSON_ARRAY,
  MRI_JSON_OBJECT,
} mri_json_type;

typedef struct mri_json mri_json;
struct mri_json {
  mri_json_type type;
  int line, column; /* where the value starts, from 1 */
  char *key;        /* the member's name, in an object */
  char *text;       /* a string (decoded) or a number (as written) */
  mri_json *items;  /* an array's elements or an object's members */
  size_t count;
};

/* Parse `length` bytes. OUT: *out, the root (mri_json_free). Text that is
 * not JSON is MR_ERR_INVALID_ARGUMENT, the message "`what`: line L, column
 * C: what is wrong". */
mr_status mri_json_parse(const char *text, size_t length, const char *what, mri_json **out);
void mri_json_free(mri_json *value);

/* The member `key` of an object, or NULL. */
const mri_json *mri_json_member(const mri_json *object, const char *key);

/* "a string", "a number", ... for messages. */
const char *mri_json_type_words(mri_json_type type);

/* Strings out, as JSON (mri_json_write_string) or for terminals
 * (mri_write_printable, mri_printable): core/text.h. */

#endif
