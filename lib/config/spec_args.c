/*
 * spec_args.c: the mr_spec_args getters factories read their arguments
 * with (include/mrctx/config.h).
 *
 * Every getter marks the argument it read and remembers the key it asked
 * for, so that the resolver can refuse what the factory never read and
 * list the keys it knows ("arena: unknown parameter 'chnk' (known:
 * chunk)"). Errors point at the argument's place in the text.
 */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"
#include "driver/driver_internal.h"

static void add_known(mr_spec_args *args, const char *key) {
  size_t n = strlen(key);
  for (size_t at = 0; at < args->known_length; at += strlen(args->known + at) + 1)
    if (strcmp(args->known + at, key) == 0) return;
  if (args->known_length + n + 1 > sizeof args->known) return;
  memcpy(args->known + args->known_length, key, n + 1);
  args->known_length += n + 1;
}

void mri_spec_args_known_list(const mr_spec_args *args, char *buf, size_t cap) {
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

int mr_spec_args_device(const mr_spec_args *args) {
  return args != NULL ? mri_resolve_device(args->state) : -1;
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
      return mri_spec_args_config_error(
          args, args->call->args_pos,
          "needs an upstream resource as its first argument, e.g. %s(device)", args->call->text);
    return mri_spec_args_config_error(args, args->call->args_pos,
                                      "needs %zu upstream resources, got %zu", index + 1,
                                      mr_spec_args_positional_count(args));
  }
  return mri_spec_args_resolve(args, (size_t)i, out);
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
    return mri_spec_args_config_error(args, arg->value->pos, "%s expects %s, found %s", arg->key,
                                      expected, node_kind_words(arg->value));
  return MR_OK;
}

/* A bare number (no unit) below this, where a size is meant, is refused.
 * Every built-in size below it is at most a page: one or a few 256-byte
 * chunks, blocks or size classes, or a limit or cache of almost nothing,
 * which nobody sets on purpose without saying so; "chunk=64" meant 64MiB.
 * From a page up a bare number reads as a byte count written out on purpose
 * (bytes=1073741824). */
#define BARE_SIZE_FLOOR 4096

/* An alignment is a small byte count by nature (alignment=512), and its
 * factory checks it is a power of two: bare numbers stay accepted for a key
 * named "alignment" or ending in "_alignment". */
static bool is_alignment_key(const char *key) {
  size_t n = strlen(key);
  return strcmp(key, "alignment") == 0 || (n > 10 && strcmp(key + n - 10, "_alignment") == 0);
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
    return mri_spec_args_config_error(args, v->pos, "%s=%s: %s", key, text, why);
  uint64_t total = 0;
  if (size.percent) {
    int device = mr_spec_args_device(args);
    st = mri_device_total_memory(device, &total);
    /* Not a mistake in the text: the device is missing or unreadable.
     * Passed on unlocated, so a context can stand in for the resource. */
    if (st != MR_OK)
      return mri_error_prefix(st,
                              "%s: %s=%s is a share of device %d's memory, which cannot be "
                              "read",
                              args->call->text, key, text, device);
  }
  uint64_t bytes;
  if (mri_size_bytes(&size, total, &bytes, why, sizeof why) != MR_OK)
    return mri_spec_args_config_error(args, v->pos, "%s=%s: %s", key, text, why);
  size_t length = strlen(v->text);
  bool bare = length > 0 && v->text[length - 1] >= '0' && v->text[length - 1] <= '9';
  if (bare && bytes > 0 && bytes < BARE_SIZE_FLOOR && !is_alignment_key(key))
    return mri_spec_args_config_error(args, v->pos,
                                      "%s=%s: a size needs a unit (%sB, %sKiB, %sMiB); bare "
                                      "numbers below %d are refused as likely mistakes",
                                      key, text, text, text, text, BARE_SIZE_FLOOR);
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
      return mri_spec_args_config_error(args, v->pos,
                                        "%s=%s: expected a whole number (digits only)", key,
                                        mri_brief(v->text, brief));
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, (uint64_t)(*d - '0'), &value))
      return mri_spec_args_config_error(args, v->pos, "%s=%s: the number is larger than 2^64 - 1",
                                        key, mri_brief(v->text, brief));
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
    return mri_spec_args_config_error(
        args, v->pos, "%s expects a word or a quoted string, found %s", key, node_kind_words(v));
  *out = v->text;
  return MR_OK;
}

mr_status mr_spec_args_choice(const mr_spec_args *args, const char *key, const char *const *choices,
                              int fallback, int *out) {
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
    return mri_spec_args_config_error(args, v->pos, "%s=%s: expected one of %s", key,
                                      mri_brief(v->text, brief), list);
  return mri_spec_args_config_error(args, v->pos, "%s expects one of %s, found %s", key, list,
                                    node_kind_words(v));
}

mr_status mr_spec_args_spec(const mr_spec_args *args, const char *key, mr_resource **out) {
  if (out != NULL) *out = NULL;
  long i;
  mr_status st = start_getter("mr_spec_args_spec", args, key, out, &i);
  if (st != MR_OK || i < 0) return st;
  return mri_spec_args_resolve(args, (size_t)i, out);
}

mr_status mr_spec_args_error(const mr_spec_args *args, const char *key, const char *format, ...) {
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
  return mri_spec_args_config_error(args, pos, "%s", reason);
}
