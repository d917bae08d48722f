/*
 * resolve.c: turning a parsed spec into resources.
 *
 * Each call node runs its factory with an mr_spec_args that records which
 * arguments the factory read (the getters are in spec_args.c). Afterwards,
 * arguments it never asked for are errors ("arena: unknown parameter
 * 'chnk' (known: chunk)"), so a typo cannot pass silently. Every error
 * names the text's source and points at the column of the part that is
 * wrong.
 *
 * A factory that fails with MR_ERR_NO_DRIVER or MR_ERR_NO_DEVICE does not
 * fail the resolution: its call stands in as a resource that fails every
 * allocation with that status and message, the rest of the tree is still
 * built and checked, and the result says it is unavailable. Contexts keep
 * such a stand-in (device tags on a machine without a GPU);
 * mr_resource_from_spec reports the status instead.
 *
 * Describe-only resolution (options->describe_only, a context created with
 * MR_CONTEXT_DESCRIBE_ONLY for `mrctx resolve`) is the same resolution --
 * same parser, factories, constructors, checks and messages -- with the
 * thread's describe-only mode set (core.h): the constructors skip what
 * would touch the world (a log's file, a pool's creation, preallocated
 * memory) and stand in with the description and properties they would
 * have had.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

struct mri_resolve_state {
  const mri_text_source *src;
  const mri_resolve_options *options;
  int depth; /* of the node being resolved, counted through @tag references */
  /* The thread's current message already names its place in the text. */
  bool located;
  mr_status unavailable;
  char *reason;
};

static mr_status resolve_node(mri_resolve_state *rs, const mri_spec_node *node, mr_resource **out);

static mr_status locate(mri_resolve_state *rs, mri_pos pos, mr_status status, const char *format,
                        ...) __attribute__((format(printf, 4, 5)));

static mr_status locate(mri_resolve_state *rs, mri_pos pos, mr_status status, const char *format,
                        ...) {
  va_list args;
  va_start(args, format);
  mri_config_verror(rs->src, pos, status, format, args);
  va_end(args);
  rs->located = true;
  return status;
}

static void note_unavailable(mri_resolve_state *rs, mr_status status, const char *reason) {
  if (rs->unavailable != MR_OK) return;
  rs->unavailable = status;
  /* Without memory for the copy the status still says what happened. */
  rs->reason = mri_host_strdup(reason != NULL ? reason : "");
}

/* ---- arguments --------------------------------------------------------------- */

int mri_resolve_device(const mri_resolve_state *rs) { return rs->options->device; }

/* A located MR_ERR_CONFIG, "name: reason". */
mr_status mri_spec_args_config_error(const mr_spec_args *args, mri_pos pos, const char *format,
                                     ...) {
  char reason[MRI_ERROR_CAPACITY];
  va_list ap;
  va_start(ap, format);
  vsnprintf(reason, sizeof reason, format, ap);
  va_end(ap);
  return locate(args->state, pos, MR_ERR_CONFIG, "%s: %s", args->call->text, reason);
}

mr_status mri_spec_args_resolve(const mr_spec_args *args, size_t i, mr_resource **out) {
  mr_spec_args *a = (mr_spec_args *)args;
  a->used[i] = true;
  if (a->resolved[i] == NULL) {
    mr_status st = resolve_node(a->state, args->call->args[i].value, &a->resolved[i]);
    if (st != MR_OK) return st;
  }
  *out = mr_resource_retain(a->resolved[i]);
  return MR_OK;
}

/* ---- calls ----------------------------------------------------------------------- */

/* After the factory: every argument must have been read. */
static mr_status check_unused(const mr_spec_args *args) {
  const mri_spec_node *call = args->call;
  for (size_t i = 0; i < call->arg_count; i++) {
    if (args->used[i]) continue;
    const mri_spec_arg *arg = &call->args[i];
    if (arg->key != NULL) {
      char known[MRI_KNOWN_KEYS_CAP], brief[MRI_BRIEF_CAP];
      const char *key = mri_brief(arg->key, brief);
      mri_spec_args_known_list(args, known, sizeof known);
      if (known[0] == '\0')
        return mri_spec_args_config_error(
            args, arg->key_pos, "unknown parameter '%s' (%s takes no parameters)", key, call->text);
      return mri_spec_args_config_error(args, arg->key_pos, "unknown parameter '%s' (known: %s)",
                                        key, known);
    }
    size_t takes = args->positional_asked;
    char count[32] = "no";
    if (takes > 0) snprintf(count, sizeof count, "%zu", takes);
    const mri_spec_node *v = arg->value;
    size_t length = v->end.offset - v->pos.offset;
    return mri_spec_args_config_error(
        args, v->pos, "unexpected argument '%.*s%s' (%s takes %s upstream resource%s)",
        length > 40 ? 40 : (int)length, args->state->src->text + v->pos.offset,
        length > 40 ? "..." : "", call->text, count, takes == 1 ? "" : "s");
  }
  return MR_OK;
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
  mri_resolve_state *rs = args->state;
  mr_resource_props props = mri_memory_kind_props(MR_MEMORY_DEVICE, rs->options->device, true, 0);
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
  mr_status st = mri_unavailable_resource_create(status, reason, &props, text, out);
  free(text);
  return st;
}

/* Does the message already begin with "name:" or "name("? */
static bool names_itself(const char *message, const char *name) {
  size_t n = strlen(name);
  return strncmp(message, name, n) == 0 && (message[n] == ':' || message[n] == '(');
}

/* The factory registered under the call's name. */
static mr_status find_factory(mri_resolve_state *rs, const mri_spec_node *node, mr_factory_fn *fn,
                              void **user) {
  mr_status st = mri_factory_lookup(node->text, fn, user);
  if (st != MR_ERR_CONFIG) return st;
  char names[1024], brief[MRI_BRIEF_CAP];
  mri_factory_names(names, sizeof names);
  return locate(rs, node->text_pos, MR_ERR_CONFIG, "unknown resource '%s' (known: %s)",
                mri_brief(node->text, brief), names);
}

/* A call's mr_spec_args and the arrays behind it: which arguments the
 * factory read, and what those it resolved became. A call without
 * arguments uses the one-element arrays here. */
typedef struct call_args {
  mr_spec_args args;
  bool no_used[1];
  mr_resource *no_resolved[1];
} call_args;

static mr_status open_args(call_args *c, mri_resolve_state *rs, const mri_spec_node *node) {
  memset(c, 0, sizeof *c);
  c->args.state = rs;
  c->args.call = node;
  c->args.used = c->no_used;
  c->args.resolved = c->no_resolved;
  if (node->arg_count == 0) return MR_OK;
  c->args.used = mri_calloc(node->arg_count, sizeof *c->args.used);
  c->args.resolved = mri_calloc(node->arg_count, sizeof *c->args.resolved);
  if (c->args.used != NULL && c->args.resolved != NULL) return MR_OK;
  free(c->args.used);
  free(c->args.resolved);
  return MR_ERR_OUT_OF_MEMORY;
}

static void close_args(call_args *c) {
  size_t count = c->args.call->arg_count;
  for (size_t i = 0; i < count; i++) mr_resource_release(c->args.resolved[i]);
  if (count > 0) {
    free(c->args.used);
    free(c->args.resolved);
  }
}

/* Run the call's factory, one level deeper for the arguments it resolves.
 * OUT: *made, a resource exactly when the status is MR_OK. */
static mr_status run_factory(mri_resolve_state *rs, mr_factory_fn fn, void *user,
                             mr_spec_args *args, mr_resource **made) {
  const mri_spec_node *node = args->call;
  *made = NULL;
  rs->located = false;
  /* The parser keeps one text within the limit; through @tag references a
   * spec sits deeper than it was written. */
  if (node->arg_count > 0 && rs->depth + 1 >= MRI_SPEC_MAX_DEPTH)
    return locate(rs, node->pos, MR_ERR_CONFIG,
                  "specs nest deeper than %d levels through @tag references (this spec is used "
                  "%d level%s deep)",
                  MRI_SPEC_MAX_DEPTH, rs->options->depth, rs->options->depth == 1 ? "" : "s");
  rs->depth++;
  mr_status st = fn(user, args, made);
  rs->depth--;
  if (st != MR_OK && *made != NULL) {
    mr_resource_release(*made); /* a factory that broke the out-pointer rule */
    *made = NULL;
  }
  if (st == MR_OK && *made == NULL)
    st = locate(rs, node->text_pos, MR_ERR_CONFIG,
                "the factory for '%s' reported success but made no resource", node->text);
  return st;
}

/* The factory failed for want of a driver or a device (`why`): the call
 * stands in for what it would have made. */
static mr_status stand_in_for(mr_spec_args *args, mr_status why, mr_resource **made) {
  char reason[MRI_ERROR_CAPACITY];
  snprintf(reason, sizeof reason, "%s", mr_last_error());
  note_unavailable(args->state, why, reason);
  /* A misspelt parameter is still an error, driver or not. */
  mr_status st = check_unused(args);
  if (st == MR_OK) st = stand_in(args, why, reason, made);
  return st;
}

/* The factory's own complaint (a constructor refused a value), `st`, at
 * the call's place in the text. Running out of memory or a driver failure
 * are not the text's fault and keep their status. */
static mr_status place_complaint(mri_resolve_state *rs, const mri_spec_node *node, mr_status st) {
  mr_status status = st == MR_ERR_OUT_OF_MEMORY || st == MR_ERR_DRIVER ? st : MR_ERR_CONFIG;
  char message[MRI_ERROR_CAPACITY];
  snprintf(message, sizeof message, "%s", mr_last_error());
  if (names_itself(message, node->text)) return locate(rs, node->text_pos, status, "%s", message);
  return locate(rs, node->text_pos, status, "%s: %s", node->text, message);
}

static mr_status resolve_call(mri_resolve_state *rs, const mri_spec_node *node, mr_resource **out) {
  mr_factory_fn fn;
  void *user;
  mr_status st = find_factory(rs, node, &fn, &user);
  if (st != MR_OK) return st;
  call_args c;
  st = open_args(&c, rs, node);
  if (st != MR_OK) return st;
  mr_resource *made = NULL;
  st = run_factory(rs, fn, user, &c.args, &made);
  if (!rs->located && (st == MR_ERR_NO_DRIVER || st == MR_ERR_NO_DEVICE)) {
    st = stand_in_for(&c.args, st, &made);
  } else if (st == MR_OK) {
    st = check_unused(&c.args);
    if (st != MR_OK) {
      mr_resource_release(made);
      made = NULL;
    }
  } else if (!rs->located) {
    st = place_complaint(rs, node, st);
  }
  close_args(&c);
  *out = made;
  return st;
}

static mr_status resolve_ref(mri_resolve_state *rs, const mri_spec_node *node, mr_resource **out) {
  const mri_resolve_options *o = rs->options;
  char brief[MRI_BRIEF_CAP];
  if (o->lookup_tag == NULL)
    return locate(rs, node->pos, MR_ERR_CONFIG,
                  "'@%s' refers to a tag, and tags exist only in a context: name a resource "
                  "here",
                  mri_brief(node->text, brief));
  mr_status unavailable = MR_OK;
  const char *reason = NULL;
  mr_status st = o->lookup_tag(o->lookup_user, node->text, rs->src, node->pos, rs->depth, o->device,
                               out, &unavailable, &reason);
  if (st != MR_OK) {
    rs->located = true;
    return st;
  }
  if (unavailable != MR_OK) note_unavailable(rs, unavailable, reason);
  return MR_OK;
}

static mr_status resolve_node(mri_resolve_state *rs, const mri_spec_node *node, mr_resource **out) {
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
  mri_resolve_state rs = {.src = source, .options = options, .depth = options->depth};
  mr_resource *resource;
  /* A describe-only resolution reaches @tag specs through the same call:
   * the mode holds for them too, and is put back afterwards. */
  bool was_describing = mri_set_describe_only(options->describe_only || mri_describe_only());
  mr_status st = resolve_node(&rs, node, &resource);
  mri_set_describe_only(was_describing);
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
      return mri_config_error(source, node->text_pos, MR_ERR_CONFIG, "unknown tag '%s' (tags: %s)",
                              mri_brief(node->text, brief), tag_list);
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
