/*
 * resolve.c: turning a parsed spec into resources, and the mr_spec_args
 * getters factories read their arguments with.
 *
 * Each call node runs its factory with an mr_spec_args that records which
 * arguments the factory read. Afterwards, arguments it never asked for are
 * errors ("arena: unknown parameter 'chnk' (known: chunk)"), so a typo
 * cannot pass silently. Every error names the text's source and points at
 * the column of the part that is wrong.
 *
 * A factory that fails with MR_ERR_NO_DRIVER or MR_ERR_NO_DEVICE does not
 * fail the resolution: its call stands in as a resource that fails every
 * allocation with that status and message, the rest of the tree is still
 * built and checked, and the result says it is unavailable. Contexts keep
 * such a stand-in (device tags on a machine without a GPU);
 * mr_resource_from_spec reports the status instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "driver/cuda_driver.h"

typedef struct resolve_state {
  const mri_text_source *src;
  const mri_resolve_options *options;
  int depth; /* of the node being resolved, counted through @tag references */
  /* The thread's current message already names its place in the text. */
  bool located;
  mr_status unavailable;
  char *reason;
} resolve_state;

/* Keys a factory asked for, for "known: ..." lists; NUL-separated. */
#define KNOWN_KEYS_CAP 512

struct mr_spec_args {
  resolve_state *state;
  const mri_spec_node *call;
  bool *used;              /* per argument: the factory read it */
  mr_resource **resolved;  /* per argument: its resource, once resolved */
  size_t positional_asked; /* 1 + the highest positional index asked for */
  bool has_props_hint;
  mr_resource_props props_hint;
  size_t known_length;
  char known[KNOWN_KEYS_CAP];
};

static mr_status resolve_node(resolve_state *rs, const mri_spec_node *node, mr_resource **out);

static mr_status locate(resolve_state *rs, mri_pos pos, mr_status status, const char *format,
                        ...) __attribute__((format(printf, 4, 5)));

static mr_status locate(resolve_state *rs, mri_pos pos, mr_status status, const char *format,
                        ...) {
  va_list args;
  va_start(args, format);
  mri_config_verror(rs->src, pos, status, format, args);
  va_end(args);
  rs->located = true;
  return status;
}

static void note_unavailable(resolve_state *rs, mr_status status, const char *reason) {
  if (rs->unavailable != MR_OK) return;
  rs->unavailable = status;
  /* Without memory for the copy the status still says what happened. */
  rs->reason = mri_host_strdup(reason != NULL ? reason : "");
}

/* ---- arguments --------------------------------------------------------------- */

static void add_known(mr_spec_args *args, const char *key) {
  size_t n = strlen(key);
  for (size_t at = 0; at < args->known_length; at += strlen(args->known + at) + 1)
    if (strcmp(args->known + at, key) == 0) return;
  if (args->known_length + n + 1 > sizeof args->known) return;
  memcpy(args->known + args->known_length, key, n + 1);
  args->known_length += n + 1;
}

/* "chunk, max" from the NUL-separated list. */
static void known_list(const mr_spec_args *args, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (size_t at = 0; at < args->known_length; at += strlen(args->known + at) + 1) {
    int w = snprintf(buf + n, cap - n, "%s%s", n > 0 ? ", " : "", args->known + at);
    if (w < 0 || (size_t)w >= cap - n) break;
    n += (size_t)w;
  }
}

/* The argument `key`, marked as read; -1 if absent. */
static long find_key(const mr_spec_args *args, const char *key, bool mark) {
  mr_spec_args *a = (mr_spec_args *)args; /* bookkeeping only; the tree is untouched */
  add_known(a, key);
  for (size_t i = 0; i < args->call->arg_count; i++) {
    const char *k = args->call->args[i].key;
    if (k != NULL && strcmp(k, key) == 0) {
      if (mark) a->used[i] = true;
      return (long)i;
    }
  }
  return -1;
}

static long find_positional(const mr_spec_args *args, size_t index) {
  size_t seen = 0;
  for (size_t i = 0; i < args->call->arg_count; i++) {
    if (args->call->args[i].key != NULL) continue;
    if (seen++ == index) return (long)i;
  }
  return -1;
}

static mr_status arg_error(const mr_spec_args *args, mri_pos pos, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* A located MR_ERR_CONFIG, "name: reason". */
static mr_status arg_error(const mr_spec_args *args, mri_pos pos, const char *format, ...) {
  char reason[MRI_ERROR_CAPACITY];
  va_list ap;
  va_start(ap, format);
  vsnprintf(reason, sizeof reason, format, ap);
  va_end(ap);
  return locate(args->state, pos, MR_ERR_CONFIG, "%s: %s", args->call->text, reason);
}

static const char *node_kind_words(const mri_spec_node *node) {
  switch (node->kind) {
  case MRI_NODE_CALL:
    return "a resource spec";
  case MRI_NODE_REF:
    return "a tag reference";
  case MRI_NODE_STRING:
    return "a quoted string";
  case MRI_NODE_ATOM:
    break;
  }
  return "a word";
}

/* Resolve argument i (a positional upstream or a spec-valued key) once;
 * OUT: *out, a new reference for the factory. */
static mr_status resolve_arg(const mr_spec_args *args, size_t i, mr_resource **out) {
  mr_spec_args *a = (mr_spec_args *)args;
  a->used[i] = true;
  if (a->resolved[i] == NULL) {
    mr_status st = resolve_node(a->state, args->call->args[i].value, &a->resolved[i]);
    if (st != MR_OK) return st;
  }
  *out = mr_resource_retain(a->resolved[i]);
  return MR_OK;
}

int mr_spec_args_device(const mr_spec_args *args) {
  return args != NULL ? args->state->options->device : -1;
}

const char *mr_spec_args_name(const mr_spec_args *args) {
  return args != NULL ? args->call->text : "";
}

size_t mr_spec_args_positional_count(const mr_spec_args *args) {
  if (args == NULL) return 0;
  size_t n = 0;
  for (size_t i = 0; i < args->call->arg_count; i++)
    if (args->call->args[i].key == NULL) n++;
  return n;
}

mr_status mr_spec_args_upstream(const mr_spec_args *args, size_t index, mr_resource **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_spec_args_upstream: out is NULL");
  *out = NULL;
  if (args == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_spec_args_upstream: args is NULL");
  mr_spec_args *a = (mr_spec_args *)args;
  if (index + 1 > a->positional_asked) a->positional_asked = index + 1;
  long i = find_positional(args, index);
  if (i < 0) {
    if (index == 0)
      return arg_error(args, args->call->args_pos,
                       "needs an upstream resource as its first argument, e.g. %s(device)",
                       args->call->text);
    return arg_error(args, args->call->args_pos, "needs %zu upstream resources, got %zu",
                     index + 1, mr_spec_args_positional_count(args));
  }
  return resolve_arg(args, (size_t)i, out);
}

bool mr_spec_args_has(const mr_spec_args *args, const char *key) {
  if (args == NULL || key == NULL) return false;
  return find_key(args, key, false) >= 0;
}

const char *mri_spec_args_peek(const mr_spec_args *args, const char *key) {
  long i = find_key(args, key, false);
  if (i < 0) return NULL;
  const mri_spec_node *v = args->call->args[i].value;
  return v->kind == MRI_NODE_ATOM ? v->text : NULL;
}

void mri_spec_args_hint_props(const mr_spec_args *args, const mr_resource_props *props) {
  mr_spec_args *a = (mr_spec_args *)args;
  a->has_props_hint = true;
  a->props_hint = *props;
}

/* What every key getter does first: check its arguments and find `key`.
 * OUT: *index, -1 when the key is absent (the getter then gives its
 * fallback). */
static mr_status start_getter(const char *getter, const mr_spec_args *args, const char *key,
                              const void *out, long *index) {
  *index = -1;
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: out is NULL", getter);
  if (args == NULL || key == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: args or key is NULL", getter);
  *index = find_key(args, key, true);
  return MR_OK;
}

/* The value node of `key` if it is a bare word/number; errors otherwise. */
static mr_status atom_value(const mr_spec_args *args, long i, const char *expected,
                            const mri_spec_node **node) {
  const mri_spec_arg *arg = &args->call->args[i];
  *node = arg->value;
  if (arg->value->kind != MRI_NODE_ATOM)
    return arg_error(args, arg->value->pos, "%s expects %s, found %s", arg->key, expected,
                     node_kind_words(arg->value));
  return MR_OK;
}

mr_status mr_spec_args_size(const mr_spec_args *args, const char *key, uint64_t fallback,
                            uint64_t *out) {
  if (out != NULL) *out = 0;
  long i;
  mr_status st = start_getter("mr_spec_args_size", args, key, out, &i);
  if (st != MR_OK || i < 0) {
    if (st == MR_OK) *out = fallback;
    return st;
  }
  const mri_spec_node *v;
  st = atom_value(args, i, "a size", &v);
  if (st != MR_OK) return st;
  char why[256];
  mri_size_text size;
  char brief[MRI_BRIEF_CAP];
  const char *text = mri_brief(v->text, brief);
  if (mri_size_parse(v->text, &size, why, sizeof why) != MR_OK)
    return arg_error(args, v->pos, "%s=%s: %s", key, text, why);
  uint64_t total = 0;
  if (size.percent) {
    int device = mr_spec_args_device(args);
    st = mri_device_total_memory(device, &total);
    /* Not a mistake in the text: the device is missing or unreadable.
     * Passed on unlocated, so a context can stand in for the resource. */
    if (st != MR_OK)
      return mri_error_prefix(st, "%s: %s=%s is a share of device %d's memory, which cannot be "
                              "read", args->call->text, key, text, device);
  }
  uint64_t bytes;
  if (mri_size_bytes(&size, total, &bytes, why, sizeof why) != MR_OK)
    return arg_error(args, v->pos, "%s=%s: %s", key, text, why);
  *out = bytes;
  return MR_OK;
}

mr_status mr_spec_args_uint(const mr_spec_args *args, const char *key, uint64_t fallback,
                            uint64_t *out) {
  if (out != NULL) *out = 0;
  long i;
  mr_status st = start_getter("mr_spec_args_uint", args, key, out, &i);
  if (st != MR_OK || i < 0) {
    if (st == MR_OK) *out = fallback;
    return st;
  }
  const mri_spec_node *v;
  st = atom_value(args, i, "a whole number", &v);
  if (st != MR_OK) return st;
  uint64_t value = 0;
  char brief[MRI_BRIEF_CAP];
  for (const char *d = v->text; *d != '\0'; d++) {
    if (*d < '0' || *d > '9')
      return arg_error(args, v->pos, "%s=%s: expected a whole number (digits only)", key,
                       mri_brief(v->text, brief));
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, (uint64_t)(*d - '0'), &value))
      return arg_error(args, v->pos, "%s=%s: the number is larger than 2^64 - 1", key,
                       mri_brief(v->text, brief));
  }
  *out = value;
  return MR_OK;
}

mr_status mr_spec_args_word(const mr_spec_args *args, const char *key, const char *fallback,
                            const char **out) {
  if (out != NULL) *out = NULL;
  long i;
  mr_status st = start_getter("mr_spec_args_word", args, key, out, &i);
  if (st != MR_OK || i < 0) {
    if (st == MR_OK) *out = fallback;
    return st;
  }
  const mri_spec_node *v = args->call->args[i].value;
  if (v->kind != MRI_NODE_ATOM && v->kind != MRI_NODE_STRING)
    return arg_error(args, v->pos, "%s expects a word or a quoted string, found %s", key,
                     node_kind_words(v));
  *out = v->text;
  return MR_OK;
}

mr_status mr_spec_args_choice(const mr_spec_args *args, const char *key,
                              const char *const *choices, int fallback, int *out) {
  if (out != NULL) *out = fallback;
  if (choices == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_spec_args_choice: choices is NULL");
  long i;
  mr_status st = start_getter("mr_spec_args_choice", args, key, out, &i);
  if (st != MR_OK || i < 0) return st;
  const mri_spec_node *v = args->call->args[i].value;
  if (v->kind == MRI_NODE_ATOM) {
    for (int c = 0; choices[c] != NULL; c++) {
      if (strcmp(choices[c], v->text) == 0) {
        *out = c;
        return MR_OK;
      }
    }
  }
  char list[256];
  size_t n = 0;
  list[0] = '\0';
  for (int c = 0; choices[c] != NULL && n < sizeof list; c++) {
    int w = snprintf(list + n, sizeof list - n, "%s%s", c > 0 ? ", " : "", choices[c]);
    if (w < 0) break;
    n += (size_t)w;
  }
  char brief[MRI_BRIEF_CAP];
  if (v->kind == MRI_NODE_ATOM)
    return arg_error(args, v->pos, "%s=%s: expected one of %s", key, mri_brief(v->text, brief),
                     list);
  return arg_error(args, v->pos, "%s expects one of %s, found %s", key, list,
                   node_kind_words(v));
}

mr_status mr_spec_args_spec(const mr_spec_args *args, const char *key, mr_resource **out) {
  if (out != NULL) *out = NULL;
  long i;
  mr_status st = start_getter("mr_spec_args_spec", args, key, out, &i);
  if (st != MR_OK || i < 0) return st;
  return resolve_arg(args, (size_t)i, out);
}

mr_status mr_spec_args_error(const mr_spec_args *args, const char *key, const char *format,
                             ...) {
  if (args == NULL) return mri_error(MR_ERR_CONFIG, "mr_spec_args_error: args is NULL");
  char reason[MRI_ERROR_CAPACITY] = "";
  if (format != NULL) {
    va_list ap;
    va_start(ap, format);
    vsnprintf(reason, sizeof reason, format, ap);
    va_end(ap);
  }
  mri_pos pos = args->call->text_pos;
  long i = key != NULL ? find_key(args, key, false) : -1;
  if (i >= 0) pos = args->call->args[i].key_pos;
  return arg_error(args, pos, "%s", reason);
}

/* ---- calls ----------------------------------------------------------------------- */

/* After the factory: every argument must have been read. */
static mr_status check_unused(const mr_spec_args *args) {
  const mri_spec_node *call = args->call;
  for (size_t i = 0; i < call->arg_count; i++) {
    if (args->used[i]) continue;
    const mri_spec_arg *arg = &call->args[i];
    if (arg->key != NULL) {
      char known[KNOWN_KEYS_CAP], brief[MRI_BRIEF_CAP];
      const char *key = mri_brief(arg->key, brief);
      known_list(args, known, sizeof known);
      if (known[0] == '\0')
        return arg_error(args, arg->key_pos, "unknown parameter '%s' (%s takes no parameters)",
                         key, call->text);
      return arg_error(args, arg->key_pos, "unknown parameter '%s' (known: %s)", key, known);
    }
    size_t takes = args->positional_asked;
    char count[32] = "no";
    if (takes > 0) snprintf(count, sizeof count, "%zu", takes);
    const mri_spec_node *v = arg->value;
    size_t length = v->end.offset - v->pos.offset;
    return arg_error(args, v->pos, "unexpected argument '%.*s%s' (%s takes %s upstream resource%s)",
                     length > 40 ? 40 : (int)length, args->state->src->text + v->pos.offset,
                     length > 40 ? "..." : "", call->text, count, takes == 1 ? "" : "s");
  }
  return MR_OK;
}

/* Host-only resolution (the fuzzer): check the call's arguments and resolve
 * its upstreams, but build nothing. */
static mr_status skip_call(mr_spec_args *args) {
  for (size_t i = 0; i < args->call->arg_count; i++) {
    const mri_spec_node *v = args->call->args[i].value;
    args->used[i] = true;
    bool spec = v->kind == MRI_NODE_CALL || v->kind == MRI_NODE_REF;
    if (spec) {
      mr_resource *r;
      mr_status st = resolve_arg(args, i, &r);
      if (st != MR_OK) return st;
      mr_resource_release(r);
    }
  }
  return mri_error(MR_ERR_UNSUPPORTED, "%s: not built in host-only resolution",
                   args->call->text);
}

/* ---- stand-ins' spec text ---------------------------------------------------------- */

/* A growing string; `failed` once host memory ran out. */
typedef struct text_buf {
  char *text;
  size_t length, capacity;
  bool failed;
} text_buf;

static void put(text_buf *b, const char *s, size_t n) {
  if (b->failed) return;
  if (b->length + n + 1 > b->capacity) {
    size_t capacity = b->capacity ? b->capacity : 64;
    while (capacity < b->length + n + 1) capacity *= 2;
    char *grown = mri_host_realloc(b->text, capacity);
    if (grown == NULL) {
      b->failed = true;
      return;
    }
    b->text = grown;
    b->capacity = capacity;
  }
  memcpy(b->text + b->length, s, n);
  b->length += n;
  b->text[b->length] = '\0';
}

static void put_str(text_buf *b, const char *s) { put(b, s, strlen(s)); }

/* A parsed value as spec text: one line, no comments, one space after each
 * comma, strings quoted (so a string stays a string when read back). */
static void put_node(text_buf *b, const mri_spec_node *node) {
  switch (node->kind) {
  case MRI_NODE_REF:
    put_str(b, "@");
    put_str(b, node->text);
    return;
  case MRI_NODE_ATOM:
    put_str(b, node->text);
    return;
  case MRI_NODE_STRING:
    put_str(b, "\"");
    for (const char *c = node->text; *c != '\0'; c++) {
      if (*c == '"' || *c == '\\') put_str(b, "\\");
      put(b, c, 1);
    }
    put_str(b, "\"");
    return;
  case MRI_NODE_CALL:
    break;
  }
  put_str(b, node->text);
  if (node->arg_count == 0) return;
  put_str(b, "(");
  for (size_t i = 0; i < node->arg_count; i++) {
    if (i > 0) put_str(b, ", ");
    if (node->args[i].key != NULL) {
      put_str(b, node->args[i].key);
      put_str(b, "=");
    }
    put_node(b, node->args[i].value);
  }
  put_str(b, ")");
}

/* What a stand-in for `args`' call says it is: the call as spec text, with
 * the arguments already resolved written as the resources they became. Not
 * the text as written, which may hold comments and new lines (a comment in
 * a description would swallow the rest of an adaptor's around it) or an
 * @tag (which means nothing outside the context). NULL without memory. */
static char *stand_in_text(const mr_spec_args *args) {
  const mri_spec_node *call = args->call;
  text_buf b = {0};
  put_str(&b, call->text);
  if (call->arg_count > 0) {
    put_str(&b, "(");
    for (size_t i = 0; i < call->arg_count; i++) {
      if (i > 0) put_str(&b, ", ");
      if (call->args[i].key != NULL) {
        put_str(&b, call->args[i].key);
        put_str(&b, "=");
      }
      if (args->resolved[i] != NULL)
        put_str(&b, mr_resource_describe(args->resolved[i]));
      else
        put_node(&b, call->args[i].value);
    }
    put_str(&b, ")");
  }
  if (b.failed || b.text == NULL) {
    free(b.text);
    mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory describing '%s'", call->text);
    return NULL;
  }
  return b.text;
}

/* A resource for a call that could not be built for want of a driver or a
 * device: it fails every allocation with that status and message. */
static mr_status stand_in(const mr_spec_args *args, mr_status status, const char *reason,
                          mr_resource **out) {
  resolve_state *rs = args->state;
  mr_resource_props props = {
      .size = sizeof(mr_resource_props),
      .kind = MR_MEMORY_DEVICE,
      .device = rs->options->device,
      .host_accessible = false,
      .device_accessible = true,
      .stream_ordered = true,
      .native_alignment = 0,
  };
  if (args->has_props_hint) {
    props = args->props_hint;
  } else {
    for (size_t i = 0; i < args->call->arg_count; i++) {
      if (args->call->args[i].key == NULL && args->resolved[i] != NULL) {
        props = args->resolved[i]->props;
        break;
      }
    }
  }
  char *text = stand_in_text(args);
  if (text == NULL) return MR_ERR_OUT_OF_MEMORY;
  mr_status st = mri_failing_resource_create(status, reason, &props, text, out);
  free(text);
  return st;
}

/* Does the message already begin with "name:" or "name("? */
static bool names_itself(const char *message, const char *name) {
  size_t n = strlen(name);
  return strncmp(message, name, n) == 0 && (message[n] == ':' || message[n] == '(');
}

static mr_status resolve_call(resolve_state *rs, const mri_spec_node *node, mr_resource **out) {
  mr_factory_fn fn;
  void *user;
  mr_status st = mri_factory_lookup(node->text, &fn, &user);
  if (st == MR_ERR_CONFIG) {
    char names[1024], brief[MRI_BRIEF_CAP];
    mri_factory_names(names, sizeof names);
    return locate(rs, node->text_pos, MR_ERR_CONFIG, "unknown resource '%s' (known: %s)",
                  mri_brief(node->text, brief), names);
  }
  if (st != MR_OK) return st;

  mr_spec_args args;
  memset(&args, 0, sizeof args);
  args.state = rs;
  args.call = node;
  bool used_storage[1];
  mr_resource *resolved_storage[1];
  args.used = used_storage;
  args.resolved = resolved_storage;
  if (node->arg_count > 0) {
    args.used = mri_calloc(node->arg_count, sizeof *args.used);
    args.resolved = mri_calloc(node->arg_count, sizeof *args.resolved);
    if (args.used == NULL || args.resolved == NULL) {
      free(args.used);
      free(args.resolved);
      return MR_ERR_OUT_OF_MEMORY;
    }
  }

  mr_resource *made = NULL;
  rs->located = false;
  /* The parser keeps one text within the limit; through @tag references a
   * spec sits deeper than it was written. */
  if (node->arg_count > 0 && rs->depth + 1 >= MRI_SPEC_MAX_DEPTH) {
    st = locate(rs, node->pos, MR_ERR_CONFIG,
                "specs nest deeper than %d levels through @tag references (this spec is used "
                "%d level%s deep)",
                MRI_SPEC_MAX_DEPTH, rs->options->depth, rs->options->depth == 1 ? "" : "s");
  } else {
    rs->depth++; /* the arguments the factory resolves */
    if (rs->options->skip_factory != NULL && rs->options->skip_factory(node->text))
      st = skip_call(&args);
    else
      st = fn(user, &args, &made);
    rs->depth--;
  }
  if (st != MR_OK && made != NULL) {
    mr_resource_release(made); /* a factory that broke the out-pointer rule */
    made = NULL;
  }
  if (st == MR_OK && made == NULL)
    st = locate(rs, node->text_pos, MR_ERR_CONFIG,
                "the factory for '%s' reported success but made no resource", node->text);

  bool unavailable = !rs->located && (st == MR_ERR_NO_DRIVER || st == MR_ERR_NO_DEVICE ||
                                      (st == MR_ERR_UNSUPPORTED &&
                                       rs->options->skip_factory != NULL &&
                                       rs->options->skip_factory(node->text)));
  if (unavailable) {
    mr_status why = st;
    char reason[MRI_ERROR_CAPACITY];
    snprintf(reason, sizeof reason, "%s", mr_last_error());
    note_unavailable(rs, why, reason);
    /* A misspelt parameter is still an error, driver or not. */
    st = check_unused(&args);
    if (st == MR_OK) st = stand_in(&args, why, reason, &made);
  } else if (st == MR_OK) {
    st = check_unused(&args);
    if (st != MR_OK) {
      mr_resource_release(made);
      made = NULL;
    }
  } else if (!rs->located) {
    /* The factory's own complaint (a constructor refused a value): give it
     * its place. Running out of memory or a driver failure are not the
     * text's fault and keep their status. */
    mr_status status = st == MR_ERR_OUT_OF_MEMORY || st == MR_ERR_DRIVER ? st : MR_ERR_CONFIG;
    char message[MRI_ERROR_CAPACITY];
    snprintf(message, sizeof message, "%s", mr_last_error());
    if (names_itself(message, node->text))
      st = locate(rs, node->text_pos, status, "%s", message);
    else
      st = locate(rs, node->text_pos, status, "%s: %s", node->text, message);
  }

  for (size_t i = 0; i < node->arg_count; i++) mr_resource_release(args.resolved[i]);
  if (node->arg_count > 0) {
    free(args.used);
    free(args.resolved);
  }
  *out = made;
  return st;
}

static mr_status resolve_ref(resolve_state *rs, const mri_spec_node *node, mr_resource **out) {
  const mri_resolve_options *o = rs->options;
  char brief[MRI_BRIEF_CAP];
  if (o->lookup_tag == NULL)
    return locate(rs, node->pos, MR_ERR_CONFIG,
                  "'@%s' refers to a tag, and tags exist only in a context: name a resource "
                  "here",
                  mri_brief(node->text, brief));
  mr_status unavailable = MR_OK;
  const char *reason = NULL;
  mr_status st = o->lookup_tag(o->lookup_user, node->text, rs->src, node->pos, rs->depth,
                               o->device, out, &unavailable, &reason);
  if (st != MR_OK) {
    rs->located = true;
    return st;
  }
  if (unavailable != MR_OK) note_unavailable(rs, unavailable, reason);
  return MR_OK;
}

static mr_status resolve_node(resolve_state *rs, const mri_spec_node *node, mr_resource **out) {
  *out = NULL;
  switch (node->kind) {
  case MRI_NODE_REF:
    return resolve_ref(rs, node, out);
  case MRI_NODE_CALL:
    return resolve_call(rs, node, out);
  case MRI_NODE_ATOM:
    /* key=device: a bare name used as a spec. */
    if (mri_is_identifier(node->text, strlen(node->text))) return resolve_call(rs, node, out);
    char brief[MRI_BRIEF_CAP];
    return locate(rs, node->pos, MR_ERR_CONFIG, "expected a resource, found '%s'",
                  mri_brief(node->text, brief));
  case MRI_NODE_STRING:
    break;
  }
  return locate(rs, node->pos, MR_ERR_CONFIG, "expected a resource, found a quoted string");
}

mr_status mri_spec_resolve(const mri_text_source *source, const mri_spec_node *node,
                           const mri_resolve_options *options, mri_resolved *out) {
  memset(out, 0, sizeof *out);
  resolve_state rs = {.src = source, .options = options, .depth = options->depth};
  mr_resource *resource;
  mr_status st = resolve_node(&rs, node, &resource);
  /* The description must read back: a tag resolved earlier, on its own,
   * may have been spelled out here deeper than text may nest. */
  if (st == MR_OK &&
      options->depth + mri_spec_text_depth(mr_resource_describe(resource)) >= MRI_SPEC_MAX_DEPTH) {
    mr_resource_release(resource);
    st = mri_config_error(source, node->pos, MR_ERR_CONFIG,
                          "the resource would be described nested deeper than %d levels, more "
                          "than spec text may",
                          MRI_SPEC_MAX_DEPTH);
  }
  if (st != MR_OK) {
    free(rs.reason);
    return st;
  }
  out->resource = resource;
  out->unavailable = rs.unavailable;
  out->reason = rs.reason;
  return MR_OK;
}

/* ---- checks without building ------------------------------------------------------ */

mr_status mri_spec_check_names(const mri_text_source *source, const mri_spec_node *node,
                               bool (*tag_known)(void *user, const char *tag), void *user,
                               const char *tag_list) {
  char brief[MRI_BRIEF_CAP];
  if (node->kind == MRI_NODE_REF) {
    if (tag_known == NULL)
      return mri_config_error(source, node->pos, MR_ERR_CONFIG,
                              "'@%s' refers to a tag, and tags exist only in a context",
                              mri_brief(node->text, brief));
    if (!tag_known(user, node->text))
      return mri_config_error(source, node->text_pos, MR_ERR_CONFIG,
                              "unknown tag '%s' (tags: %s)", mri_brief(node->text, brief),
                              tag_list);
    return MR_OK;
  }
  if (node->kind != MRI_NODE_CALL) return MR_OK; /* a word: its factory judges it */
  mr_factory_fn fn;
  void *fn_user;
  mr_status st = mri_factory_lookup(node->text, &fn, &fn_user);
  if (st == MR_ERR_CONFIG) {
    char names[1024];
    mri_factory_names(names, sizeof names);
    return mri_config_error(source, node->text_pos, MR_ERR_CONFIG,
                            "unknown resource '%s' (known: %s)", mri_brief(node->text, brief),
                            names);
  }
  if (st != MR_OK) return st;
  for (size_t i = 0; i < node->arg_count; i++) {
    st = mri_spec_check_names(source, node->args[i].value, tag_known, user, tag_list);
    if (st != MR_OK) return st;
  }
  return MR_OK;
}

/* ---- mr_resource_from_spec ------------------------------------------------------ */

mr_status mr_resource_from_spec(const char *spec, int device, mr_resource **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_from_spec: out is NULL");
  *out = NULL;
  if (spec == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_from_spec: spec is NULL");
  if (device < 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_from_spec: device %d is negative",
                     device);
  mri_text_source source = {.name = "spec", .text = spec, .length = strlen(spec)};
  mri_config *config;
  mr_status st = mri_spec_parse(&source, &config);
  if (st != MR_OK) return st;
  mri_resolve_options options = {.device = device};
  mri_resolved resolved;
  st = mri_spec_resolve(&config->source, config->entries[0].spec, &options, &resolved);
  mri_config_free(config);
  if (st != MR_OK) return st;
  if (resolved.unavailable != MR_OK) {
    mr_resource_release(resolved.resource);
    st = mri_error(resolved.unavailable, "%s", resolved.reason != NULL ? resolved.reason : "");
    free(resolved.reason);
    return st;
  }
  free(resolved.reason);
  *out = resolved.resource;
  return MR_OK;
}
