/*
 * parse.c: the spec language's lexer and parser (config.h has the grammar).
 *
 * One parser serves strings, environment variables and files. Tokens keep
 * their line, column and byte offset, so every error -- here or later, when
 * a factory rejects a parameter -- can quote the line and point at the
 * column. Whitespace may appear between any two tokens; new lines separate
 * entries except inside parentheses, where they are whitespace too, so a
 * long spec may span lines in a file.
 *
 * The tree lives in a few large blocks owned by the mri_config, freed at
 * once; parsing is bounded (MRI_SPEC_MAX_DEPTH) so hostile text cannot
 * exhaust the stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

/* ---- the tree's memory ---------------------------------------------------- */

struct mri_parse_block {
  struct mri_parse_block *next;
  size_t used, capacity;
  _Alignas(max_align_t) unsigned char data[];
};

#define PARSE_BLOCK_MIN 4096

static void *parse_alloc(mri_config *config, size_t bytes) {
  bytes = mri_align_up(bytes, _Alignof(max_align_t));
  struct mri_parse_block *b = config->blocks;
  if (b == NULL || b->capacity - b->used < bytes) {
    size_t capacity = bytes > PARSE_BLOCK_MIN ? bytes : PARSE_BLOCK_MIN;
    b = mri_host_malloc(sizeof *b + capacity);
    if (b == NULL) {
      mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory parsing a memory configuration");
      return NULL;
    }
    b->next = config->blocks;
    b->used = 0;
    b->capacity = capacity;
    config->blocks = b;
  }
  void *p = b->data + b->used;
  b->used += bytes;
  return p;
}

static char *parse_strndup(mri_config *config, const char *s, size_t n) {
  char *copy = parse_alloc(config, n + 1);
  if (copy == NULL) return NULL;
  memcpy(copy, s, n);
  copy[n] = '\0';
  return copy;
}

void mri_config_free(mri_config *config) {
  if (config == NULL) return;
  struct mri_parse_block *b = config->blocks;
  while (b != NULL) {
    struct mri_parse_block *next = b->next;
    free(b);
    b = next;
  }
  free(config);
}

/* ---- characters ------------------------------------------------------------ */

static bool is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* Characters of a bare value: names, numbers, sizes, paths (the set
 * mri_spec_quote writes without quotes). */
static bool is_atom_char(unsigned char c) { return mri_is_word_char(c); }

int mri_spec_text_depth(const char *text) {
  int depth = 0, deepest = 0;
  bool quoted = false;
  for (const char *c = text; *c != '\0'; c++) {
    if (quoted) {
      if (*c == '\\' && c[1] != '\0')
        c++;
      else if (*c == '"')
        quoted = false;
    } else if (*c == '"') {
      quoted = true;
    } else if (*c == '(') {
      if (++depth > deepest) deepest = depth;
    } else if (*c == ')') {
      depth--;
    }
  }
  return deepest;
}

bool mri_is_identifier(const char *s, size_t n) {
  if (n == 0 || !(is_alpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (size_t i = 1; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!(is_alpha(c) || is_digit(c) || c == '_')) return false;
  }
  return true;
}

/* ---- messages ---------------------------------------------------------------- */

/* Show at most this many bytes either side of the caret on a long line. */
#define QUOTE_CONTEXT 60

static bool has_several_lines(const mri_text_source *src) {
  int lines = 0;
  bool content = false;
  for (size_t i = 0; i < src->length; i++) {
    unsigned char c = (unsigned char)src->text[i];
    if (c == '\n') {
      if (content) lines++;
      content = false;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      content = true;
    }
  }
  if (content) lines++;
  return lines > 1;
}

/* The quoted line and the caret line for `offset`, into buf. */
static void quote_line(const mri_text_source *src, size_t offset, char *buf, size_t cap) {
  const char *text = src->text;
  if (offset > src->length) offset = src->length;
  size_t start = offset;
  while (start > 0 && text[start - 1] != '\n') start--;
  size_t end = offset;
  while (end < src->length && text[end] != '\n') end++;
  if (end > start && text[end - 1] == '\r') end--;
  if (offset > end) offset = end;

  bool cut_left = false, cut_right = false;
  if (offset - start > QUOTE_CONTEXT) {
    start = offset - QUOTE_CONTEXT;
    while (start < offset && ((unsigned char)text[start] & 0xC0) == 0x80) start++;
    cut_left = true;
  }
  if (end - offset > QUOTE_CONTEXT) {
    end = offset + QUOTE_CONTEXT;
    while (end > offset && ((unsigned char)text[end] & 0xC0) == 0x80) end--;
    cut_right = true;
  }

  char line[3 * QUOTE_CONTEXT + 16];
  char caret[3 * QUOTE_CONTEXT + 16];
  size_t ln = 0, cn = 0;
  if (cut_left) {
    memcpy(line, "...", 3);
    memcpy(caret, "   ", 3);
    ln = cn = 3;
  }
  for (size_t i = start; i < end; i++) {
    unsigned char c = (unsigned char)text[i];
    /* Control characters would garble the message; show them as '?'. */
    line[ln++] = (c == '\t' || (c >= 0x20 && c != 0x7f)) ? (char)c : '?';
    if (i < offset && (c & 0xC0) != 0x80) caret[cn++] = c == '\t' ? '\t' : ' ';
  }
  if (cut_right) {
    memcpy(line + ln, "...", 3);
    ln += 3;
  }
  line[ln] = '\0';
  caret[cn++] = '^';
  caret[cn] = '\0';
  snprintf(buf, cap, "\n  %s\n  %s", line, caret);
}

mr_status mri_config_verror(const mri_text_source *src, mri_pos pos, mr_status status,
                            const char *format, va_list args) {
  /* Where, why, and the quoted line with its caret. The source's name and
   * the quote are bounded; the reason gets the rest of the buffer and, if
   * longer, loses its middle, so neither its end (why) nor the caret is
   * ever cut off. */
  char where[400], quote[2 * (3 * QUOTE_CONTEXT + 16) + 8];
  char name[301]; /* a long path keeps its beginning and its file name */
  mri_fit_text(name, sizeof name, src->name, strlen(src->name));
  if (src->is_file || has_several_lines(src))
    snprintf(where, sizeof where, "%s, line %d, column %d: ", name, pos.line, pos.column);
  else
    snprintf(where, sizeof where, "%s, column %d: ", name, pos.column);
  quote_line(src, pos.offset, quote, sizeof quote);
  char reason[MRI_ERROR_CAPACITY];
  mri_vformat_fit(reason, sizeof reason - strlen(where) - strlen(quote), format, args);
  return mri_error(status, "%s%s%s", where, reason, quote);
}

mr_status mri_config_error(const mri_text_source *src, mri_pos pos, mr_status status,
                           const char *format, ...) {
  va_list args;
  va_start(args, format);
  mri_config_verror(src, pos, status, format, args);
  va_end(args);
  return status;
}

/* ---- the lexer ------------------------------------------------------------------ */

typedef enum tok_kind {
  TOK_END,
  TOK_NEWLINE,
  TOK_SEMICOLON,
  TOK_EQUALS,
  TOK_AT,
  TOK_LPAREN,
  TOK_RPAREN,
  TOK_COMMA,
  TOK_ATOM,
  TOK_STRING,
} tok_kind;

typedef struct token {
  tok_kind kind;
  mri_pos pos, end;
  size_t start, length; /* the raw bytes (a string's include its quotes) */
} token;

typedef struct parser {
  mri_config *config;
  const mri_text_source *src; /* &config->source */
  const char *text;
  size_t length;
  mri_pos at;      /* the lexer's position */
  int paren_depth; /* new lines inside parentheses are whitespace */
  bool have_peek;
  token peeked;
} parser;

static void advance(parser *p) {
  unsigned char c = (unsigned char)p->text[p->at.offset++];
  if (c == '\n') {
    p->at.line++;
    p->at.column = 1;
  } else if ((c & 0xC0) != 0x80) {
    p->at.column++;
  }
}

static mr_status fail_at(parser *p, mri_pos pos, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static mr_status fail_at(parser *p, mri_pos pos, const char *format, ...) {
  va_list args;
  va_start(args, format);
  mri_config_verror(p->src, pos, MR_ERR_CONFIG, format, args);
  va_end(args);
  return MR_ERR_CONFIG;
}

static mr_status lex(parser *p, token *t) {
  for (;;) {
    if (p->at.offset >= p->length) {
      t->kind = TOK_END;
      t->pos = t->end = p->at;
      t->start = p->at.offset;
      t->length = 0;
      return MR_OK;
    }
    unsigned char c = (unsigned char)p->text[p->at.offset];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' ||
        (c == '\n' && p->paren_depth > 0)) {
      advance(p);
    } else if (c == '#') {
      while (p->at.offset < p->length && p->text[p->at.offset] != '\n') advance(p);
    } else {
      break;
    }
  }
  t->pos = p->at;
  t->start = p->at.offset;
  unsigned char c = (unsigned char)p->text[p->at.offset];
  static const struct {
    char c;
    tok_kind kind;
  } punctuation[] = {
      {'\n', TOK_NEWLINE}, {';', TOK_SEMICOLON}, {'=', TOK_EQUALS}, {'@', TOK_AT},
      {'(', TOK_LPAREN},   {')', TOK_RPAREN},    {',', TOK_COMMA},
  };
  for (size_t i = 0; i < MRI_ARRAY_SIZE(punctuation); i++) {
    if (c == (unsigned char)punctuation[i].c) {
      advance(p);
      t->kind = punctuation[i].kind;
      t->end = p->at;
      t->length = 1;
      return MR_OK;
    }
  }
  if (is_atom_char(c)) {
    while (p->at.offset < p->length && is_atom_char((unsigned char)p->text[p->at.offset]))
      advance(p);
    t->kind = TOK_ATOM;
  } else if (c == '"') {
    advance(p);
    for (;;) {
      if (p->at.offset >= p->length || p->text[p->at.offset] == '\n')
        return fail_at(p, t->pos, "unterminated string: a closing '\"' is missing");
      unsigned char s = (unsigned char)p->text[p->at.offset];
      if (s == '"') break;
      if (s < 0x20 && s != '\t') {
        return fail_at(p, p->at, "control character 0x%02x in a string", s);
      }
      if (s == '\\') {
        mri_pos escape = p->at;
        advance(p);
        if (p->at.offset >= p->length ||
            (p->text[p->at.offset] != '"' && p->text[p->at.offset] != '\\'))
          return fail_at(p, escape, "unknown escape in a string (only \\\" and \\\\ are known)");
      }
      advance(p);
    }
    advance(p);
    t->kind = TOK_STRING;
  } else if (c == '\'') {
    /* The spec language has no single quotes: a shell's quotes came along,
     * written inside another quoting (a file, a Python string, "'x'"). */
    return fail_at(p, p->at,
                   "unexpected character ''' (a shell quote reached the spec: quote the "
                   "value once, as in MYLIB_MEMORY='temp=cache(device)', and write no quotes "
                   "in a file, Python string or override text)");
  } else if (c >= 0x20 && c < 0x7f) {
    return fail_at(p, p->at, "unexpected character '%c'", c);
  } else {
    return fail_at(p, p->at, "unexpected byte 0x%02x", c);
  }
  t->end = p->at;
  t->length = p->at.offset - t->start;
  return MR_OK;
}

static mr_status peek(parser *p, const token **t) {
  if (!p->have_peek) {
    mr_status st = lex(p, &p->peeked);
    if (st != MR_OK) return st;
    p->have_peek = true;
  }
  *t = &p->peeked;
  return MR_OK;
}

/* Take the next token (after peek). */
static token take(parser *p) {
  p->have_peek = false;
  return p->peeked;
}

/* How a token reads in a message: "'64MiB'", "end of text". */
static void describe_token(const parser *p, const token *t, char *buf, size_t cap) {
  switch (t->kind) {
  case TOK_END:
    snprintf(buf, cap, "the end of the text");
    return;
  case TOK_NEWLINE:
    snprintf(buf, cap, "a new line");
    return;
  case TOK_STRING:
    snprintf(buf, cap, "a quoted string");
    return;
  default:
    break;
  }
  int n = t->length > 40 ? 40 : (int)t->length;
  snprintf(buf, cap, "'%.*s%s'", n, p->text + t->start, t->length > 40 ? "..." : "");
}

static mr_status fail_token(parser *p, const token *t, const char *expected) {
  char found[64];
  describe_token(p, t, found, sizeof found);
  return fail_at(p, t->pos, "expected %s, found %s", expected, found);
}

/* ---- the parser -------------------------------------------------------------------- */

static mri_spec_node *new_node(parser *p, mri_node_kind kind, const token *t) {
  mri_spec_node *node = parse_alloc(p->config, sizeof *node);
  if (node == NULL) return NULL;
  memset(node, 0, sizeof *node);
  node->kind = kind;
  node->pos = node->end = node->text_pos = node->args_pos = t->pos;
  return node;
}

static mr_status parse_call_rest(parser *p, mri_spec_node *node, int depth);

/* An atom that names a resource, with its argument list if one follows. */
static mr_status parse_call(parser *p, const token *name, int depth, mri_spec_node **out) {
  mri_spec_node *node = new_node(p, MRI_NODE_CALL, name);
  if (node == NULL) return MR_ERR_OUT_OF_MEMORY;
  node->text = parse_strndup(p->config, p->text + name->start, name->length);
  if (node->text == NULL) return MR_ERR_OUT_OF_MEMORY;
  node->end = node->args_pos = name->end;
  *out = node;
  return parse_call_rest(p, node, depth);
}

/* A tag's name, the next token. OUT: *name. */
static mr_status take_tag_name(parser *p, const char *expected, token *name) {
  const token *t;
  mr_status st = peek(p, &t);
  if (st != MR_OK) return st;
  if (t->kind != TOK_ATOM || !mri_is_identifier(p->text + t->start, t->length))
    return fail_token(p, t, expected);
  *name = take(p);
  return MR_OK;
}

/* ref := '@' tag (the next token is the '@') */
static mr_status parse_ref(parser *p, mri_spec_node **out) {
  token at = take(p);
  token name = {0}; /* set by take_tag_name on MR_OK; zeroed for -O3's flow analysis */
  mr_status st = take_tag_name(p, "a tag name after '@'", &name);
  if (st != MR_OK) return st;
  mri_spec_node *node = new_node(p, MRI_NODE_REF, &at);
  if (node == NULL) return MR_ERR_OUT_OF_MEMORY;
  node->text = parse_strndup(p->config, p->text + name.start, name.length);
  if (node->text == NULL) return MR_ERR_OUT_OF_MEMORY;
  node->text_pos = name.pos;
  node->end = node->args_pos = name.end;
  *out = node;
  return MR_OK;
}

/* spec := name [ '(' args ')' ] | '@' tag */
static mr_status parse_spec(parser *p, int depth, const char *expected, mri_spec_node **out) {
  const token *t;
  mr_status st = peek(p, &t);
  if (st != MR_OK) return st;
  if (t->kind == TOK_AT) return parse_ref(p, out);
  if (t->kind != TOK_ATOM) return fail_token(p, t, expected);
  if (!mri_is_identifier(p->text + t->start, t->length)) {
    int n = t->length > 40 ? 40 : (int)t->length;
    return fail_at(p, t->pos,
                   "expected %s, found '%.*s' (a resource name is letters, digits "
                   "and '_')",
                   expected, n, p->text + t->start);
  }
  token name = take(p);
  return parse_call(p, &name, depth, out);
}

/* An atom that must be a name (of a resource, a parameter). */
static mr_status expect_name(parser *p, const token *t, const char *what) {
  if (mri_is_identifier(p->text + t->start, t->length)) return MR_OK;
  int n = t->length > 40 ? 40 : (int)t->length;
  return fail_at(p, t->pos, "'%.*s' is not %s (letters, digits and '_')", n, p->text + t->start,
                 what);
}

/* value := size | number | word | "string" | spec */
static mr_status parse_value(parser *p, const char *key, int depth, mri_spec_node **out) {
  const token *t;
  mr_status st = peek(p, &t);
  if (st != MR_OK) return st;
  if (t->kind == TOK_AT) return parse_ref(p, out);
  if (t->kind == TOK_STRING) {
    token s = take(p);
    mri_spec_node *node = new_node(p, MRI_NODE_STRING, &s);
    if (node == NULL) return MR_ERR_OUT_OF_MEMORY;
    char *text = parse_alloc(p->config, s.length);
    if (text == NULL) return MR_ERR_OUT_OF_MEMORY;
    size_t n = 0;
    for (size_t i = s.start + 1; i < s.start + s.length - 1; i++) {
      if (p->text[i] == '\\') i++;
      text[n++] = p->text[i];
    }
    text[n] = '\0';
    node->text = text;
    node->end = s.end;
    *out = node;
    return MR_OK;
  }
  if (t->kind != TOK_ATOM) {
    char expected[96];
    snprintf(expected, sizeof expected, "a value for '%.40s'", key);
    return fail_token(p, t, expected);
  }
  token atom = take(p);
  st = peek(p, &t);
  if (st != MR_OK) return st;
  if (t->kind == TOK_LPAREN) {
    st = expect_name(p, &atom, "a resource name");
    return st == MR_OK ? parse_call(p, &atom, depth, out) : st;
  }
  mri_spec_node *node = new_node(p, MRI_NODE_ATOM, &atom);
  if (node == NULL) return MR_ERR_OUT_OF_MEMORY;
  node->text = parse_strndup(p->config, p->text + atom.start, atom.length);
  if (node->text == NULL) return MR_ERR_OUT_OF_MEMORY;
  /* A bare name here may still be used as a spec (key=device). */
  node->end = node->args_pos = atom.end;
  *out = node;
  return MR_OK;
}

/* A growing argument list, copied into the tree once it is complete. */
typedef struct arg_list {
  mri_spec_arg *items;
  size_t count, capacity;
} arg_list;

static mr_status arg_list_push(arg_list *list, mri_spec_arg arg) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 4;
    mri_spec_arg *items = mri_host_realloc(list->items, capacity * sizeof *items);
    if (items == NULL)
      return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory parsing a memory configuration");
    list->items = items;
    list->capacity = capacity;
  }
  list->items[list->count++] = arg;
  return MR_OK;
}

/* The parameter a value given without its key most likely meant, for a
 * positional argument that is not a resource: limit(device, 8GiB) is
 * limit(device, bytes=8GiB). "key" for a call not listed. */
static const char *likely_key(const char *call) {
  static const char *const keys[][2] = {{"limit", "bytes"},     {"arena", "chunk"},
                                        {"fixed", "block"},     {"cache", "max"},
                                        {"align", "alignment"}, {"retry", "attempts"}};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strcmp(call, keys[i][0]) == 0) return keys[i][1];
  return "key";
}

/* arg := spec | key '=' value. `call`: the name of the call it is an
 * argument of, for messages. */
static mr_status parse_arg(parser *p, const char *call, int depth, arg_list *list) {
  const token *t;
  mr_status st = peek(p, &t);
  if (st != MR_OK) return st;
  mri_spec_arg arg = {0};
  if (t->kind == TOK_AT) {
    st = parse_ref(p, &arg.value);
    return st == MR_OK ? arg_list_push(list, arg) : st;
  }
  if (t->kind != TOK_ATOM) return fail_token(p, t, "an argument (a resource, or key=value)");
  token first = take(p);
  st = peek(p, &t);
  if (st != MR_OK) return st;
  if (t->kind == TOK_EQUALS) {
    st = expect_name(p, &first, "a parameter name");
    if (st != MR_OK) return st;
    take(p);
    char *key = parse_strndup(p->config, p->text + first.start, first.length);
    if (key == NULL) return MR_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < list->count; i++) {
      if (list->items[i].key != NULL && strcmp(list->items[i].key, key) == 0) {
        char brief[MRI_BRIEF_CAP];
        return fail_at(p, first.pos, "parameter '%s' given twice (first at column %d)",
                       mri_brief(key, brief), list->items[i].key_pos.column);
      }
    }
    arg.key = key;
    arg.key_pos = first.pos;
    st = parse_value(p, key, depth, &arg.value);
    return st == MR_OK ? arg_list_push(list, arg) : st;
  }
  /* A positional argument: the upstream resource. */
  if (!mri_is_identifier(p->text + first.start, first.length)) {
    int n = first.length > 40 ? 40 : (int)first.length;
    return fail_at(p, first.pos,
                   "expected a resource name or key=value, found '%.*s' (did you mean "
                   "%s=%.*s?)",
                   n, p->text + first.start, likely_key(call), n, p->text + first.start);
  }
  st = parse_call(p, &first, depth, &arg.value);
  return st == MR_OK ? arg_list_push(list, arg) : st;
}

/* After a call's name: an optional '(' [ arg { ',' arg } ] ')'. */
static mr_status parse_call_rest(parser *p, mri_spec_node *node, int depth) {
  const token *t;
  mr_status st = peek(p, &t);
  if (st != MR_OK || t->kind != TOK_LPAREN) return st;
  token open = take(p);
  if (depth + 1 >= MRI_SPEC_MAX_DEPTH)
    return fail_at(p, open.pos, "specs nest deeper than %d levels", MRI_SPEC_MAX_DEPTH);
  p->paren_depth++;
  node->has_parens = true;
  node->args_pos = open.end;

  arg_list list = {0};
  st = peek(p, &t);
  if (st == MR_OK && t->kind != TOK_RPAREN) {
    for (;;) {
      st = peek(p, &t);
      if (st != MR_OK) break;
      if (t->kind == TOK_END) {
        st = fail_at(p, t->pos, "'(' at line %d, column %d is never closed", open.pos.line,
                     open.pos.column);
        break;
      }
      st = parse_arg(p, node->text, depth + 1, &list);
      if (st != MR_OK) break;
      st = peek(p, &t);
      if (st != MR_OK) break;
      if (t->kind == TOK_COMMA) {
        take(p);
        continue;
      }
      if (t->kind == TOK_RPAREN) break;
      if (t->kind == TOK_END)
        st = fail_at(p, t->pos, "'(' at line %d, column %d is never closed", open.pos.line,
                     open.pos.column);
      else
        st = fail_token(p, t, "',' or ')'");
      break;
    }
  }
  if (st == MR_OK) {
    token close = take(p);
    p->paren_depth--;
    node->end = close.end;
    if (list.count > 0) {
      node->args = parse_alloc(p->config, list.count * sizeof *node->args);
      if (node->args == NULL) {
        st = MR_ERR_OUT_OF_MEMORY;
      } else {
        memcpy(node->args, list.items, list.count * sizeof *node->args);
        node->arg_count = list.count;
      }
    }
  }
  free(list.items);
  return st;
}

/* After an entry or a lone spec: the entry must end here. */
static mr_status expect_entry_end(parser *p, bool single) {
  const token *t;
  mr_status st = peek(p, &t);
  if (st != MR_OK) return st;
  if (t->kind == TOK_END) return MR_OK;
  if (!single && (t->kind == TOK_NEWLINE || t->kind == TOK_SEMICOLON)) return MR_OK;
  return fail_token(p, t, single ? "the end of the spec" : "';' or a new line after the spec");
}

static mr_status push_entry(parser *p, mri_config_entry **entries, size_t *capacity,
                            const mri_config_entry *entry) {
  mri_config *config = p->config;
  if (config->entry_count == *capacity) {
    size_t grown = *capacity ? 2 * *capacity : 8;
    mri_config_entry *more = mri_host_realloc(*entries, grown * sizeof *more);
    if (more == NULL)
      return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory parsing a memory configuration");
    *entries = more;
    *capacity = grown;
  }
  (*entries)[config->entry_count++] = *entry;
  return MR_OK;
}

static mr_status set_spec(parser *p, mri_config_entry *entry) {
  size_t from = entry->spec->pos.offset, to = entry->spec->end.offset;
  entry->spec_text = parse_strndup(p->config, p->text + from, to - from);
  return entry->spec_text != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY;
}

/* entry := tag [ '@' device ] '=' spec */
static mr_status parse_entry(parser *p, mri_config_entry *entry) {
  token tag = {0}; /* as in parse_ref */
  mr_status st = take_tag_name(p, "a tag name (tag=spec)", &tag);
  if (st != MR_OK) return st;
  const token *t;
  entry->tag = parse_strndup(p->config, p->text + tag.start, tag.length);
  if (entry->tag == NULL) return MR_ERR_OUT_OF_MEMORY;
  entry->tag_pos = tag.pos;
  entry->device = -1;
  st = peek(p, &t);
  if (st != MR_OK) return st;
  if (t->kind == TOK_AT) {
    take(p);
    st = peek(p, &t);
    if (st != MR_OK) return st;
    if (t->kind != TOK_ATOM) return fail_token(p, t, "a device number after '@'");
    long long device = 0;
    for (size_t i = 0; i < t->length; i++) {
      unsigned char c = (unsigned char)p->text[t->start + i];
      if (!is_digit(c)) return fail_token(p, t, "a device number after '@'");
      device = device * 10 + (c - '0');
      if (device > 0x7fffffff) {
        int n = t->length > MRI_BRIEF_MAX ? MRI_BRIEF_MAX : (int)t->length;
        return fail_at(p, t->pos, "device number %.*s%s is too large", n, p->text + t->start,
                       t->length > MRI_BRIEF_MAX ? "..." : "");
      }
    }
    token number = take(p);
    entry->device = (int)device;
    entry->device_pos = number.pos;
    st = peek(p, &t);
    if (st != MR_OK) return st;
  }
  if (t->kind != TOK_EQUALS) {
    char expected[96];
    snprintf(expected, sizeof expected, "'=' after the tag '%.40s'", entry->tag);
    return fail_token(p, t, expected);
  }
  take(p);
  st = parse_spec(p, 0, "a resource name or @tag after '='", &entry->spec);
  if (st != MR_OK) return st;
  st = set_spec(p, entry);
  if (st != MR_OK) return st;
  return expect_entry_end(p, false);
}

static mr_status parser_start(const mri_text_source *source, parser *p, mri_config **out) {
  *out = NULL;
  mri_config *config = mri_calloc(1, sizeof *config);
  if (config == NULL) return MR_ERR_OUT_OF_MEMORY;
  /* The config keeps its own copy of the text and name: errors found later
   * (by factories, at resolution) still quote it. */
  char *text = parse_strndup(config, source->text != NULL ? source->text : "", source->length);
  char *name = parse_strndup(config, source->name, strlen(source->name));
  if (text == NULL || name == NULL) {
    mri_config_free(config);
    return MR_ERR_OUT_OF_MEMORY;
  }
  config->source = (mri_text_source){
      .name = name, .is_file = source->is_file, .text = text, .length = source->length};
  memset(p, 0, sizeof *p);
  p->config = config;
  p->src = &config->source;
  p->text = text;
  p->length = source->length;
  p->at = (mri_pos){.line = 1, .column = 1, .offset = 0};
  *out = config;
  return MR_OK;
}

/* Hand the config over, or free it on failure. */
static mr_status parser_finish(mri_config *config, mr_status st, mri_config **out) {
  if (st != MR_OK) {
    mri_config_free(config);
    return st;
  }
  *out = config;
  return MR_OK;
}

mr_status mri_config_parse(const mri_text_source *source, mri_config **out) {
  *out = NULL;
  mri_config *config;
  parser p;
  mr_status st = parser_start(source, &p, &config);
  if (st != MR_OK) return st;
  mri_config_entry *entries = NULL;
  size_t capacity = 0;
  for (;;) {
    const token *t;
    st = peek(&p, &t);
    if (st != MR_OK || t->kind == TOK_END) break;
    if (t->kind == TOK_NEWLINE || t->kind == TOK_SEMICOLON) {
      take(&p);
      continue;
    }
    mri_config_entry entry = {0};
    st = parse_entry(&p, &entry);
    if (st == MR_OK) st = push_entry(&p, &entries, &capacity, &entry);
    if (st != MR_OK) break;
  }
  if (st == MR_OK && entries != NULL) {
    config->entries = parse_alloc(config, config->entry_count * sizeof *entries);
    if (config->entries == NULL)
      st = MR_ERR_OUT_OF_MEMORY;
    else
      memcpy(config->entries, entries, config->entry_count * sizeof *entries);
  }
  free(entries);
  return parser_finish(config, st, out);
}

mr_status mri_spec_parse(const mri_text_source *source, mri_config **out) {
  *out = NULL;
  mri_config *config;
  parser p;
  mr_status st = parser_start(source, &p, &config);
  if (st != MR_OK) return st;
  /* A lone spec may stand on its own line among comments and blank lines. */
  p.paren_depth = 1;
  mri_config_entry *entry = parse_alloc(config, sizeof *entry);
  if (entry == NULL) st = MR_ERR_OUT_OF_MEMORY;
  if (st == MR_OK) {
    memset(entry, 0, sizeof *entry);
    entry->device = -1;
    st = parse_spec(&p, 0, "a resource name or @tag", &entry->spec);
  }
  if (st == MR_OK) st = set_spec(&p, entry);
  if (st == MR_OK) {
    const token *t;
    st = peek(&p, &t);
    if (st == MR_OK && t->kind != TOK_END) st = fail_token(&p, t, "the end of the spec");
  }
  if (st == MR_OK) {
    config->entries = entry;
    config->entry_count = 1;
  }
  return parser_finish(config, st, out);
}
