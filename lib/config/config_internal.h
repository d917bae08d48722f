/*
 * config/config_internal.h (internal): the parsed form of the spec language
 * and the resolver the context layer drives.
 *
 * Text is parsed once into a tree that remembers where every token was
 * (line, column, byte offset), so any later error -- a syntax error, an
 * unknown name, a bad parameter found by a factory, a cycle between tags --
 * can quote the line and point at the column.
 */
#ifndef MRCTX_LIB_CONFIG_INTERNAL_H
#define MRCTX_LIB_CONFIG_INTERNAL_H

#include "core/core.h"

/* Specs nest at most this deep (arena(limit(stats(...)))): a call at depth
 * MRI_SPEC_MAX_DEPTH - 1 has no arguments, so text has at most 31 levels of
 * parentheses. Deeper text is a config error, which keeps the recursive
 * parser and resolver bounded. The limit holds through @tag references too
 * (a tag's spec sits where the reference is), and a chain of references is
 * at most MRI_SPEC_MAX_DEPTH tags long. */
#define MRI_SPEC_MAX_DEPTH 32

/* A config file larger than this is refused (it is surely not a config). */
#define MRI_CONFIG_FILE_MAX ((size_t)1 << 20)

/* A place in a text. line and column are 1-based; columns count characters
 * (UTF-8 sequences count once, a tab counts once). */
typedef struct mri_pos {
  int line;
  int column;
  size_t offset; /* bytes from the start of the text */
} mri_pos;

/* Where a text came from, as messages name it. */
typedef struct mri_text_source {
  const char *name; /* "MYLIB_MEMORY", a file's path, "override text", ... */
  bool is_file;     /* messages always give the line */
  const char *text; /* the whole text; need not end in NUL */
  size_t length;
} mri_text_source;

typedef enum mri_node_kind {
  MRI_NODE_CALL,   /* name, with or without an argument list */
  MRI_NODE_REF,    /* '@' tag */
  MRI_NODE_ATOM,   /* a bare value: size, number, word, or a name */
  MRI_NODE_STRING, /* a double-quoted string, unescaped */
} mri_node_kind;

typedef struct mri_spec_node mri_spec_node;

typedef struct mri_spec_arg {
  const char *key; /* NULL for a positional argument */
  mri_pos key_pos;
  mri_spec_node *value;
} mri_spec_arg;

struct mri_spec_node {
  mri_node_kind kind;
  mri_pos pos;      /* the first character ('@' for a reference) */
  mri_pos end;      /* just past the last character */
  const char *text; /* CALL: the name; REF: the tag; ATOM: as written;
                        STRING: the contents */
  mri_pos text_pos; /* where `text` starts (after '@' for a reference) */
  bool has_parens;
  mri_pos args_pos; /* where arguments go: after '(' or after the name */
  mri_spec_arg *args;
  size_t arg_count;
};

/* One `tag[@device] = spec` line. In a parsed single spec (default specs,
 * mr_resource_from_spec) there is one entry with tag NULL. */
typedef struct mri_config_entry {
  const char *tag;
  mri_pos tag_pos;
  int device; /* -1: every device */
  mri_pos device_pos;
  mri_spec_node *spec;
  const char *spec_text; /* the spec exactly as written */
} mri_config_entry;

typedef struct mri_config mri_config;
struct mri_config {
  mri_text_source source; /* its text and name are the config's own copies */
  mri_config_entry *entries;
  size_t entry_count;
  struct mri_parse_block *blocks; /* everything above lives in these */
};

/* Parse config text (entries separated by ';' or new lines). OUT: *out,
 * free with mri_config_free. MR_ERR_CONFIG with a located message. */
mr_status mri_config_parse(const mri_text_source *source, mri_config **out);

/* Parse one spec (no tag, no '='). OUT: *out with one entry. */
mr_status mri_spec_parse(const mri_text_source *source, mri_config **out);

void mri_config_free(mri_config *config);

/* The deepest nesting of parentheses in spec text, those inside quoted
 * strings aside: what the parser's depth limit applies to. */
int mri_spec_text_depth(const char *text);

/* True for letters, digits and '_', not starting with a digit. */
bool mri_is_identifier(const char *s, size_t n);

/* Record `status` with a message that names the source, gives the column
 * (and line), and quotes the line with a caret under the column. */
mr_status mri_config_error(const mri_text_source *source, mri_pos pos, mr_status status,
                           const char *format, ...) __attribute__((format(printf, 4, 5)));
mr_status mri_config_verror(const mri_text_source *source, mri_pos pos, mr_status status,
                            const char *format, va_list args) __attribute__((format(printf, 4, 0)));

/* ---- sizes ---------------------------------------------------------------- */

/* A size as written: mantissa / 10^frac_digits, times a unit or a percent. */
typedef struct mri_size_text {
  uint64_t mantissa;
  unsigned frac_digits;
  uint64_t multiplier; /* bytes per unit; unused for percentages */
  bool percent;        /* of the device's total memory */
} mri_size_text;

/* Parse `text` as a size. On failure MR_ERR_CONFIG and `why` says what is
 * wrong (no error message is recorded). */
mr_status mri_size_parse(const char *text, mri_size_text *out, char *why, size_t cap);
/* The size in bytes; `total` is the device's memory for percentages.
 * Overflow past 2^64 - 1 and fractions of a byte are errors (in `why`). */
mr_status mri_size_bytes(const mri_size_text *size, uint64_t total, uint64_t *bytes, char *why,
                         size_t cap);

/* ---- the registry ------------------------------------------------------- */

/* Look a name up. OUT: *fn and *user. MR_ERR_CONFIG (no message) if the
 * name is not registered; another status, with its message, if the
 * built-in names could not be registered. */
mr_status mri_factory_lookup(const char *name, mr_factory_fn *fn, void **user);

/* "align, arena, bin, ..." into buf (truncated with ", ..."). */
void mri_factory_names(char *buf, size_t cap);

/* Registers the built-in names (factories.c), through the same path as
 * mr_register_factory. Called once, under the registry's once-guard. */
mr_status mri_register_builtin_factories(mr_status (*add)(const char *name, mr_factory_fn fn,
                                                          void *user));

/* ---- resolving ---------------------------------------------------------- */

/* How a context answers `@tag` for `device`. OUT: *out, a new reference to
 * the tag's resource (the instance other tags share), and *unavailable /
 * *reason when that resource is a stand-in for a missing driver or device
 * (MR_OK otherwise). Errors are recorded already located. */
typedef mr_status (*mri_tag_lookup_fn)(void *user, const char *tag, const mri_text_source *source,
                                       mri_pos pos, int depth, int device, mr_resource **out,
                                       mr_status *unavailable, const char **reason);

typedef struct mri_resolve_options {
  int device;
  /* How deep the spec sits: 0, or for a tag's spec resolved for an @tag,
   * the depth of the reference (passed to lookup_tag). */
  int depth;
  mri_tag_lookup_fn lookup_tag; /* NULL: @tag is an error (no context) */
  void *lookup_user;
  /* Resolve only to describe (MR_CONTEXT_DESCRIBE_ONLY): the factories and
   * constructors run as always, with this thread's describe-only mode set
   * (core.h), so the steps with effects outside the resource are skipped
   * or stand in. */
  bool describe_only;
} mri_resolve_options;

typedef struct mri_resolved {
  mr_resource *resource; /* a new reference */
  /* MR_OK, or MR_ERR_NO_DRIVER / MR_ERR_NO_DEVICE when part of the tree
   * could not be built for want of a driver or device and stands in as a
   * resource that fails every allocation; `reason` (malloc'd) says why. */
  mr_status unavailable;
  char *reason;
} mri_resolved;

/* Resolve `node` (from `source`) into a resource. On failure no reference
 * is left in *out and the message is located. A resource whose description
 * would nest deeper than spec text may (see MRI_SPEC_MAX_DEPTH), so that it
 * could not be read back, is refused. */
mr_status mri_spec_resolve(const mri_text_source *source, const mri_spec_node *node,
                           const mri_resolve_options *options, mri_resolved *out);

/* Check what can be checked without building anything: every name is
 * registered, and every @tag passes `tag_known` (NULL: @tag is an error). */
mr_status mri_spec_check_names(const mri_text_source *source, const mri_spec_node *node,
                               bool (*tag_known)(void *user, const char *tag), void *user,
                               const char *tag_list);

/* ---- factory arguments ----------------------------------------------------- */

/* One resolution's state (resolve.c); the arguments of each call point at
 * it. */
typedef struct mri_resolve_state mri_resolve_state;

/* Keys a factory asked for, for "known: ..." lists; NUL-separated. */
#define MRI_KNOWN_KEYS_CAP 512

/* What a factory gets for one call node. The resolver fills in the call
 * and the per-argument arrays; the getters (spec_args.c) record what the
 * factory read, which the resolver checks afterwards. */
struct mr_spec_args {
  mri_resolve_state *state;
  const mri_spec_node *call;
  bool *used;              /* per argument: the factory read it */
  mr_resource **resolved;  /* per argument: its resource, once resolved */
  size_t positional_asked; /* 1 + the highest positional index asked for */
  bool has_props_hint;
  mr_resource_props props_hint;
  size_t known_length;
  char known[MRI_KNOWN_KEYS_CAP];
};

/* The getters' side (spec_args.c). */

/* For factories of device-bound names: the properties the resource would
 * have had, used for the stand-in when the factory fails for want of a
 * driver or device (MR_ERR_NO_DRIVER / MR_ERR_NO_DEVICE). */
void mri_spec_args_hint_props(const mr_spec_args *args, const mr_resource_props *props);

/* The text of `key`'s value if it is a bare word or number (NULL if absent
 * or not one); does not count as reading the argument. */
const char *mri_spec_args_peek(const mr_spec_args *args, const char *key);

/* "chunk, max": the keys the factory asked for, into buf (truncated). */
void mri_spec_args_known_list(const mr_spec_args *args, char *buf, size_t cap);

/* The resolver's side (resolve.c). */

/* The device being resolved for. */
int mri_resolve_device(const mri_resolve_state *rs);

/* A located MR_ERR_CONFIG, "name: reason", for the call of `args`. */
mr_status mri_spec_args_config_error(const mr_spec_args *args, mri_pos pos, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Resolve argument i (a positional upstream or a spec-valued key) once and
 * mark it read. OUT: *out, a new reference for the factory. */
mr_status mri_spec_args_resolve(const mr_spec_args *args, size_t i, mr_resource **out);

#endif /* MRCTX_LIB_CONFIG_INTERNAL_H */
