/*
 * json.c: a recursive-descent JSON reader into a tree. See context/json.h
 * for what it accepts; JSON strings are written by core/text.c.
 */
#include <stdlib.h>
#include <string.h>

#include "context/json.h"

typedef struct reader {
  const char *text;
  size_t length, at;
  int line;
  size_t line_start; /* offset where the current line begins */
  const char *what;
} reader;

static int column_of(const reader *r, size_t at) { return (int)(at - r->line_start) + 1; }

static mr_status fail_at(const reader *r, size_t at, const char *problem) {
  return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: line %d, column %d: %s", r->what, r->line,
                   column_of(r, at), problem);
}

static void skip_space(reader *r) {
  while (r->at < r->length) {
    char c = r->text[r->at];
    if (c == '\n') {
      r->line++;
      r->line_start = r->at + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
    r->at++;
  }
}

static bool take_literal(reader *r, const char *word) {
  size_t n = strlen(word);
  if (r->length - r->at < n || memcmp(r->text + r->at, word, n) != 0) return false;
  r->at += n;
  return true;
}

static size_t put_utf8(char *out, uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xc0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xe0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  out[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

static bool read_hex4(reader *r, uint32_t *value) {
  if (r->length - r->at < 4) return false;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    char c = r->text[r->at + (size_t)i];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return false;
    v = v * 16 + (uint32_t)digit;
  }
  r->at += 4;
  *value = v;
  return true;
}

/* A string; r->at is at the opening quote. The decoded text is never
 * longer than the quoted one. */
static mr_status read_string(reader *r, char **out) {
  size_t start = r->at++;
  size_t end = r->at;
  while (end < r->length && r->text[end] != '"') end += r->text[end] == '\\' ? 2 : 1;
  if (end >= r->length) return fail_at(r, start, "the string does not end (no closing '\"')");
  char *s = mri_host_malloc(end - r->at + 1);
  if (s == NULL) return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory", r->what);
  size_t n = 0;
  while (r->text[r->at] != '"') {
    unsigned char c = (unsigned char)r->text[r->at];
    if (c < 0x20) {
      free(s);
      return fail_at(r, r->at,
                     c == '\n' ? "a line break inside a string (write \\n)"
                               : "a control character inside a string");
    }
    if (c != '\\') {
      size_t len = mri_utf8_length((const unsigned char *)r->text + r->at, end - r->at);
      if (len == 0) {
        free(s);
        return fail_at(r, r->at, "the text is not UTF-8");
      }
      memcpy(s + n, r->text + r->at, len);
      n += len;
      r->at += len;
      continue;
    }
    size_t escape = r->at++;
    char e = r->text[r->at++];
    uint32_t cp = 0;
    switch (e) {
    case '"':
    case '\\':
    case '/':
      s[n++] = e;
      continue;
    case 'b':
      s[n++] = '\b';
      continue;
    case 'f':
      s[n++] = '\f';
      continue;
    case 'n':
      s[n++] = '\n';
      continue;
    case 'r':
      s[n++] = '\r';
      continue;
    case 't':
      s[n++] = '\t';
      continue;
    case 'u':
      if (!read_hex4(r, &cp)) break;
      if (cp >= 0xd800 && cp <= 0xdbff) {
        uint32_t low = 0;
        if (!take_literal(r, "\\u") || !read_hex4(r, &low) || low < 0xdc00 || low > 0xdfff) {
          free(s);
          return fail_at(r, escape, "a \\u escape of a lone UTF-16 surrogate");
        }
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      } else if (cp >= 0xdc00 && cp <= 0xdfff) {
        free(s);
        return fail_at(r, escape, "a \\u escape of a lone UTF-16 surrogate");
      }
      if (cp == 0) {
        free(s);
        return fail_at(r, escape, "a NUL character (\\u0000) inside a string");
      }
      n += put_utf8(s + n, cp);
      continue;
    default:
      break;
    }
    free(s);
    return fail_at(r, escape,
                   "an unknown escape in a string (\\\", \\\\, \\/, \\b, \\f, \\n, "
                   "\\r, \\t, \\uXXXX)");
  }
  r->at++; /* the closing quote */
  s[n] = '\0';
  *out = s;
  return MR_OK;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static mr_status read_number(reader *r, char **out) {
  size_t start = r->at;
  if (r->text[r->at] == '-') r->at++;
  if (r->at >= r->length || !is_digit(r->text[r->at]))
    return fail_at(r, start, "a '-' that starts no number");
  if (r->text[r->at] == '0' && r->at + 1 < r->length && is_digit(r->text[r->at + 1]))
    return fail_at(r, start, "a number with a leading zero");
  while (r->at < r->length && is_digit(r->text[r->at])) r->at++;
  if (r->at < r->length && r->text[r->at] == '.') {
    r->at++;
    if (r->at >= r->length || !is_digit(r->text[r->at]))
      return fail_at(r, start, "a number with no digit after its '.'");
    while (r->at < r->length && is_digit(r->text[r->at])) r->at++;
  }
  if (r->at < r->length && (r->text[r->at] == 'e' || r->text[r->at] == 'E')) {
    r->at++;
    if (r->at < r->length && (r->text[r->at] == '+' || r->text[r->at] == '-')) r->at++;
    if (r->at >= r->length || !is_digit(r->text[r->at]))
      return fail_at(r, start, "a number with no digit in its exponent");
    while (r->at < r->length && is_digit(r->text[r->at])) r->at++;
  }
  size_t n = r->at - start;
  char *s = mri_host_malloc(n + 1);
  if (s == NULL) return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory", r->what);
  memcpy(s, r->text + start, n);
  s[n] = '\0';
  *out = s;
  return MR_OK;
}

static mr_status read_value(reader *r, mri_json *v, int depth);

/* Append a zeroed child to `v` (an array or object). */
static mri_json *add_item(reader *r, mri_json *v, size_t *capacity) {
  if (v->count == *capacity) {
    size_t grown = *capacity ? 2 * *capacity : 4;
    mri_json *items = mri_host_realloc(v->items, grown * sizeof *items);
    if (items == NULL) return NULL;
    v->items = items;
    *capacity = grown;
  }
  mri_json *item = &v->items[v->count++];
  memset(item, 0, sizeof *item);
  return item;
}

static int compare_members(const void *a, const void *b) {
  const mri_json *x = *(const mri_json *const *)a, *y = *(const mri_json *const *)b;
  int c = strcmp(x->key, y->key);
  return c != 0 ? c : x < y ? -1 : x > y;
}

/* No member name twice in the object: sorted by name (then position), a
 * repeat sits next to its first; the later one is reported. */
static mr_status check_unique(const reader *r, const mri_json *v) {
  if (v->count < 2) return MR_OK;
  const mri_json **sorted = mri_calloc(v->count, sizeof *sorted);
  if (sorted == NULL) return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory", r->what);
  for (size_t i = 0; i < v->count; i++) sorted[i] = &v->items[i];
  qsort(sorted, v->count, sizeof *sorted, compare_members);
  const mri_json *repeat = NULL;
  for (size_t i = 1; i < v->count; i++) {
    if (strcmp(sorted[i]->key, sorted[i - 1]->key) == 0 && (repeat == NULL || sorted[i] < repeat))
      repeat = sorted[i];
  }
  free(sorted);
  if (repeat == NULL) return MR_OK;
  char brief[MRI_BRIEF_CAP];
  return mri_error(MR_ERR_INVALID_ARGUMENT,
                   "%s: line %d, column %d: the member \"%s\" appears twice in one object", r->what,
                   repeat->line, repeat->column, mri_brief(repeat->key, brief));
}

static mr_status read_container(reader *r, mri_json *v, int depth) {
  bool object = v->type == MRI_JSON_OBJECT;
  char close = object ? '}' : ']';
  size_t open_at = r->at++;
  size_t capacity = 0;
  skip_space(r);
  if (r->at < r->length && r->text[r->at] == close) {
    r->at++;
    return MR_OK;
  }
  for (;;) {
    skip_space(r);
    if (r->at >= r->length)
      return fail_at(r, open_at,
                     object ? "the object does not end (no closing '}')"
                            : "the array does not end (no closing ']')");
    mri_json *item = add_item(r, v, &capacity);
    if (item == NULL) return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory", r->what);
    if (object) {
      if (r->text[r->at] != '"') return fail_at(r, r->at, "expected a member name in quotes");
      mr_status st = read_string(r, &item->key);
      if (st != MR_OK) return st;
      skip_space(r);
      if (r->at >= r->length || r->text[r->at] != ':')
        return fail_at(r, r->at, "expected ':' after the member name");
      r->at++;
      skip_space(r);
    }
    mr_status st = read_value(r, item, depth + 1);
    if (st != MR_OK) return st;
    skip_space(r);
    if (r->at < r->length && r->text[r->at] == ',') {
      r->at++;
      continue;
    }
    if (r->at < r->length && r->text[r->at] == close) {
      r->at++;
      return object ? check_unique(r, v) : MR_OK;
    }
    if (r->at >= r->length) continue; /* reported above as not ending */
    return fail_at(r, r->at,
                   object ? "expected ',' or '}' after a member"
                          : "expected ',' or ']' after an element");
  }
}

static mr_status read_value(reader *r, mri_json *v, int depth) {
  skip_space(r);
  if (r->at >= r->length) return fail_at(r, r->at, "the text ends where a value should be");
  v->line = r->line;
  v->column = column_of(r, r->at);
  if (depth > MRI_JSON_MAX_DEPTH) return fail_at(r, r->at, "nested too deeply");
  char c = r->text[r->at];
  if (c == '{' || c == '[') {
    v->type = c == '{' ? MRI_JSON_OBJECT : MRI_JSON_ARRAY;
    return read_container(r, v, depth);
  }
  if (c == '"') {
    v->type = MRI_JSON_STRING;
    return read_string(r, &v->text);
  }
  if (c == '-' || is_digit(c)) {
    v->type = MRI_JSON_NUMBER;
    return read_number(r, &v->text);
  }
  if (take_literal(r, "true")) {
    v->type = MRI_JSON_TRUE;
    return MR_OK;
  }
  if (take_literal(r, "false")) {
    v->type = MRI_JSON_FALSE;
    return MR_OK;
  }
  if (take_literal(r, "null")) {
    v->type = MRI_JSON_NULL;
    return MR_OK;
  }
  return fail_at(r, r->at,
                 "expected a value (an object, array, string, number, true, false "
                 "or null)");
}

static void free_children(mri_json *v) {
  for (size_t i = 0; i < v->count; i++) free_children(&v->items[i]);
  free(v->items);
  free(v->key);
  free(v->text);
}

void mri_json_free(mri_json *value) {
  if (value == NULL) return;
  free_children(value);
  free(value);
}

mr_status mri_json_parse(const char *text, size_t length, const char *what, mri_json **out) {
  *out = NULL;
  reader r = {.text = text, .length = length, .line = 1, .what = what};
  if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) r.at = r.line_start = 3;
  mri_json *root = mri_calloc(1, sizeof *root);
  if (root == NULL) return MR_ERR_OUT_OF_MEMORY;
  mr_status st = read_value(&r, root, 0);
  if (st == MR_OK) {
    skip_space(&r);
    if (r.at < r.length) st = fail_at(&r, r.at, "more text after the value");
  }
  if (st != MR_OK) {
    mri_json_free(root);
    return st;
  }
  *out = root;
  return MR_OK;
}

const mri_json *mri_json_member(const mri_json *object, const char *key) {
  if (object == NULL || object->type != MRI_JSON_OBJECT) return NULL;
  for (size_t i = 0; i < object->count; i++)
    if (strcmp(object->items[i].key, key) == 0) return &object->items[i];
  return NULL;
}

const char *mri_json_type_words(mri_json_type type) {
  switch (type) {
  case MRI_JSON_NULL:
    return "null";
  case MRI_JSON_FALSE:
  case MRI_JSON_TRUE:
    return "a boolean";
  case MRI_JSON_NUMBER:
    return "a number";
  case MRI_JSON_STRING:
    return "a string";
  case MRI_JSON_ARRAY:
    return "an array";
  case MRI_JSON_OBJECT:
    return "an object";
  }
  return "a value";
}
