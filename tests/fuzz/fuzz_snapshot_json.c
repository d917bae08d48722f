/*
 * fuzz_snapshot_json.c: libFuzzer target for the snapshot reader: the JSON
 * reader (lib/context/json.c) and the schema over it
 * (lib/context/snapshot_json.c), what `mrctx snapshot FILE`, `mrctx plot`
 * and Python's mrctx.read_snapshot run on files from elsewhere.
 *
 * Each input is a file's bytes, NUL bytes included. Nothing may crash,
 * leak or hang, and what the reader promises is checked; a violation
 * aborts, so libFuzzer keeps the input:
 *   - mri_json_parse: a failure says why; every string of a tree it reads
 *     written back with mri_json_write_string parses to the same bytes;
 *   - mr_snapshot_read: a failure says why and leaves no snapshot; a
 *     snapshot it reads writes as JSON that reads back and writes the same
 *     bytes again (the round trip snapshot_json.c promises), and its text
 *     tables hold no control character but the line breaks, whatever its
 *     strings hold (names are escaped for the terminal).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context/json.h"
#include "context/snapshot_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool condition, const char *what) {
  if (!condition) {
    fprintf(stderr, "fuzz_snapshot_json: %s\n", what);
    abort();
  }
}

/* `text` written as a JSON string parses back as the same string. Only
 * for UTF-8 text, which is all the reader hands out. */
static void check_string(const char *text) {
  char *written = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&written, &length);
  check(out != NULL, "open_memstream failed");
  mri_json_write_string(out, text);
  check(fclose(out) == 0, "writing a string failed");
  mri_json *back = NULL;
  check(mri_json_parse(written, length, "written", &back) == MR_OK,
        "a string written by mri_json_write_string does not parse");
  check(back->type == MRI_JSON_STRING && strcmp(back->text, text) == 0,
        "a string written by mri_json_write_string reads back differently");
  mri_json_free(back);
  free(written);
}

static void check_tree(const mri_json *v) {
  if (v->key != NULL) check_string(v->key);
  if (v->type == MRI_JSON_STRING) check_string(v->text);
  check(v->type != MRI_JSON_NUMBER || (v->text != NULL && v->text[0] != '\0'),
        "a number without text");
  for (size_t i = 0; i < v->count; i++) check_tree(&v->items[i]);
}

/* The snapshot as JSON (malloc'd, *length bytes). */
static char *as_json(const mr_snapshot *snap, size_t *length) {
  char *text = NULL;
  FILE *out = open_memstream(&text, length);
  check(out != NULL, "open_memstream failed");
  check(mr_snapshot_write_json(snap, out) == MR_OK, "writing a snapshot read as JSON failed");
  check(fclose(out) == 0, "writing a snapshot read as JSON failed");
  return text;
}

static void check_text(const mr_snapshot *snap) {
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  check(out != NULL, "open_memstream failed");
  check(mr_snapshot_write_text(snap, out) == MR_OK, "writing a snapshot read as text failed");
  check(fclose(out) == 0, "writing a snapshot read as text failed");
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)text[i];
    check(c == '\n' || (c >= 0x20 && c != 0x7f), "the text tables hold a control character");
    /* A C1 control (U+0080..U+009F) is 0xc2 0x80..0x9f in UTF-8. */
    check(!(c == 0xc2 && i + 1 < length && (unsigned char)text[i + 1] < 0xa0),
          "the text tables hold a C1 control character");
  }
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  mri_json *root = NULL;
  mr_status st = mri_json_parse(text, size, "fuzz", &root);
  if (st == MR_OK) {
    check(root != NULL, "a parse without a tree");
    check_tree(root);
    mri_json_free(root);
  } else {
    check(root == NULL && mr_last_error()[0] != '\0', "a failed parse says nothing");
  }

  mr_snapshot *snap = NULL;
  mr_status read = mr_snapshot_read(text, size, &snap);
  if (read != MR_OK) {
    check(snap == NULL && mr_last_error()[0] != '\0', "a failed read says nothing");
    return 0;
  }
  check(st == MR_OK, "a snapshot read from text that is not JSON");
  size_t first_length = 0, second_length = 0;
  char *first = as_json(snap, &first_length);
  check_text(snap);
  mr_snapshot_destroy(snap);

  mr_snapshot *again = NULL;
  if (mr_snapshot_read(first, first_length, &again) != MR_OK) {
    fprintf(stderr, "%s\n%.*s\n", mr_last_error(), (int)first_length, first);
    check(false, "a snapshot written as JSON does not read back");
  }
  char *second = as_json(again, &second_length);
  mr_snapshot_destroy(again);
  if (second_length != first_length || memcmp(first, second, first_length) != 0) {
    fprintf(stderr, "first:\n%.*s\nsecond:\n%.*s\n", (int)first_length, first, (int)second_length,
            second);
    check(false, "a snapshot read back writes other bytes");
  }
  free(first);
  free(second);
  return 0;
}
