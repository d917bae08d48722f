/*
 * context.c: a library's memory policy, one resource per tag and device.
 *
 * Creation does all the work: it checks the library's tags, takes each
 * (tag, device)'s spec from its sources (sources.c: the default, override
 * text, config file, environment variable), resolves every tag for every
 * device -- @tag sharing the other tag's instance, cycles refused --
 * checks what the library requires of each tag's memory, and wraps each in
 * a stats adaptor for the per-tag statistics. After that the context never
 * changes: the table is a flat array read without locks, and ctx_get_mr is
 * a bounds check and a load.
 *
 * Live contexts are also on a process-wide list, for snapshots: a context
 * joins it as the last step of creation and leaves it as the first step of
 * destruction, under one mutex that nothing on the allocation path takes.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adaptors/adaptors_internal.h"
#include "config/config_internal.h"
#include "context/context_internal.h"
#include "context/json.h"
#include "context/snapshot_internal.h"
#include "context/sources.h"
#include "core/reclaim.h"
#include "core/variables.h"
#include "driver/driver_internal.h"

enum { SLOT_UNRESOLVED, SLOT_RESOLVING, SLOT_DONE };

/* The MR_REQUIRE_* flags this library checks. */
#define MRI_REQUIRE_KNOWN \
  (MR_REQUIRE_DEVICE_ACCESSIBLE | MR_REQUIRE_HOST_ACCESSIBLE | MR_REQUIRE_STREAM_ORDERED)

/* A tag's name and index, kept sorted by name so a name is found by binary
 * search: a library may declare many tags, and checking or looking up each
 * name against all the others would be quadratic. */
typedef struct tag_key {
  const char *name;
  size_t index;
} tag_key;

/* Everything known about one (tag, device). */
typedef struct slot {
  const mr_context *ctx; /* for the out-of-memory report */
  int tag, device;
  mr_spec_source source;         /* what get_source reports */
  const mri_config *config;      /* the text the spec came from */
  const mri_config_entry *entry; /* the chosen entry in it */
  mr_resource *inner;            /* the tag's resource (creation only) */
  char *reason;                  /* why it is unavailable, or NULL */
  int state;
} slot;

struct mr_context {
  /* The lookup table first: all the allocation path reads. */
  mr_resource **table; /* [tag * device_count + device], stats wrappers */
  size_t tag_count;
  int device_count;

  char *library;
  char **tag_names;
  tag_key *tags_by_name; /* every tag, sorted by name */
  slot *slots;
  mri_spec_sources sources; /* the specs' texts (sources.c) */
  char *tag_list;           /* "temp, pinned, result" for messages */
  uint32_t *requires;       /* per tag: MR_REQUIRE_* flags; NULL: none */
  bool describe_only;       /* MR_CONTEXT_DESCRIBE_ONLY: it never allocates */

  /* The list of live contexts (under live_lock); id 0: not on it. */
  uint64_t live_id;
  mr_context *live_prev, *live_next;
};

/* ---- the live contexts ---------------------------------------------------------- */

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static mr_context *live_first, *live_last;
static uint64_t live_ids;
/* live_lock across fork(): snapshots read resources under it. */
static mri_fork_lockable live_fork;
__attribute__((constructor)) static void live_fork_register(void) {
  mri_fork_register_mutex(&live_fork, &live_lock, MRI_FORK_RANK_CONTEXTS);
}

static void live_add(mr_context *ctx) {
  pthread_mutex_lock(&live_lock);
  ctx->live_id = ++live_ids;
  ctx->live_prev = live_last;
  if (live_last != NULL)
    live_last->live_next = ctx;
  else
    live_first = ctx;
  live_last = ctx;
  pthread_mutex_unlock(&live_lock);
}

/* Waits for a snapshot that is reading the context. */
static void live_remove(mr_context *ctx) {
  pthread_mutex_lock(&live_lock);
  if (ctx->live_id != 0) {
    if (ctx->live_prev != NULL)
      ctx->live_prev->live_next = ctx->live_next;
    else
      live_first = ctx->live_next;
    if (ctx->live_next != NULL)
      ctx->live_next->live_prev = ctx->live_prev;
    else
      live_last = ctx->live_prev;
    ctx->live_id = 0;
  }
  pthread_mutex_unlock(&live_lock);
}

mr_status mri_context_foreach_live(mr_status (*fn)(void *user, const mr_context *ctx, uint64_t id),
                                   void *user) {
  mr_status st = MR_OK;
  pthread_mutex_lock(&live_lock);
  for (mr_context *ctx = live_first; ctx != NULL && st == MR_OK; ctx = ctx->live_next)
    st = fn(user, ctx, ctx->live_id);
  pthread_mutex_unlock(&live_lock);
  return st;
}

/* ---- the allocation path ------------------------------------------------------ */

static mr_resource *invalid_lookup(const mr_context *ctx, int tag, int device)
    __attribute__((noinline, cold));

static mr_resource *invalid_lookup(const mr_context *ctx, int tag, int device) {
  if (ctx == NULL) {
    mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_get_mr: the context is NULL");
  } else if (tag < 0 || (size_t)tag >= ctx->tag_count) {
    mri_error(MR_ERR_INVALID_ARGUMENT, "%s: tag %d does not exist (the context has %zu tags)",
              ctx->library, tag, ctx->tag_count);
  } else {
    mri_error(MR_ERR_NO_DEVICE, "%s: device %d is not one of the context's %d device slot%s",
              ctx->library, device, ctx->device_count, ctx->device_count == 1 ? "" : "s");
  }
  return NULL;
}

static inline mr_resource *lookup(const mr_context *ctx, int tag, int device) {
  if (MRI_LIKELY(ctx != NULL && (unsigned)tag < ctx->tag_count &&
                 (unsigned)device < (unsigned)ctx->device_count))
    return ctx->table[(size_t)tag * (size_t)ctx->device_count + (size_t)device];
  return invalid_lookup(ctx, tag, device);
}

mr_resource *mr_context_get_mr_on(const mr_context *ctx, int tag, int device) {
  return lookup(ctx, tag, device);
}

mr_resource *mr_context_get_mr(const mr_context *ctx, int tag) {
  return lookup(ctx, tag, mri_current_device());
}

/* ---- creation: the tags --------------------------------------------------------- */

static int compare_tag_keys(const void *a, const void *b) {
  const tag_key *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (c != 0) return c;
  return x->index < y->index ? -1 : x->index > y->index;
}

int mri_context_find_tag(const mr_context *ctx, const char *name) {
  size_t lo = 0, hi = ctx->tag_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(ctx->tags_by_name[mid].name, name);
    if (c == 0) return (int)ctx->tags_by_name[mid].index;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

const char *mri_context_tag_list(const mr_context *ctx) { return ctx->tag_list; }

/* The first tag (lowest index) whose name an earlier tag already has, among
 * `keys` sorted by name then index. OUT: *second, that tag, and *first, the
 * earliest tag of that name. false if the names are all different. */
static bool find_duplicate(const tag_key *keys, size_t count, size_t *first, size_t *second) {
  bool found = false;
  for (size_t i = 1; i < count; i++) {
    /* keys[i] repeats the name of keys[i - 1]; only a group's second tag
     * can be the earliest repeat, and the group starts at its first. */
    if (strcmp(keys[i].name, keys[i - 1].name) != 0) continue;
    if (i >= 2 && strcmp(keys[i - 1].name, keys[i - 2].name) == 0) continue;
    if (!found || keys[i].index < *second) {
      *first = keys[i - 1].index;
      *second = keys[i].index;
      found = true;
    }
  }
  return found;
}

/* Check the description. OUT: *sorted, every tag by name (the caller owns
 * it). Reports what the tags' order would find first: a tag's own name and
 * spec, then whether an earlier tag has the same name. */
static mr_status validate_desc(const mr_context_desc *desc, tag_key **sorted) {
  *sorted = NULL;
  if (desc->library == NULL || desc->library[0] == '\0')
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_create: desc.library is missing");
  const char *lib = desc->library;
  if (desc->tags == NULL || desc->tag_count == 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: mr_context_create: the library declares no tags",
                     lib);
  if (desc->tag_count > INT_MAX)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: mr_context_create: %zu tags are too many", lib,
                     desc->tag_count);
  /* The first tag that is wrong in itself; duplicates before it win. */
  size_t valid = desc->tag_count;
  for (size_t t = 0; t < desc->tag_count && valid == desc->tag_count; t++) {
    const char *name = desc->tags[t].name;
    if (name == NULL || !mri_is_identifier(name, strlen(name)) ||
        desc->tags[t].default_spec == NULL)
      valid = t;
  }
  tag_key *keys = mri_calloc(desc->tag_count, sizeof *keys);
  if (keys == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t t = 0; t < valid; t++) keys[t] = (tag_key){desc->tags[t].name, t};
  qsort(keys, valid, sizeof *keys, compare_tag_keys);
  size_t first = 0, second = 0;
  if (find_duplicate(keys, valid, &first, &second)) {
    free(keys);
    char brief[MRI_BRIEF_CAP];
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: tags %zu and %zu are both named '%s'", lib,
                     first, second, mri_brief(desc->tags[second].name, brief));
  }
  if (valid < desc->tag_count) {
    free(keys);
    const char *name = desc->tags[valid].name;
    char brief[MRI_BRIEF_CAP];
    if (name == NULL || !mri_is_identifier(name, strlen(name)))
      return mri_error(MR_ERR_INVALID_ARGUMENT,
                       "%s: tag %zu's name '%s' is not valid (letters, digits and '_', not "
                       "starting with a digit)",
                       lib, valid, name != NULL ? mri_brief(name, brief) : "(null)");
    name = mri_brief(name, brief);
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: tag '%s' has no default spec", lib, name);
  }
  if (desc->tag_requires != NULL) {
    for (size_t t = 0; t < desc->tag_count; t++) {
      uint32_t unknown = desc->tag_requires[t] & ~MRI_REQUIRE_KNOWN;
      if (unknown == 0) continue;
      free(keys);
      char brief[MRI_BRIEF_CAP];
      return mri_error(MR_ERR_UNSUPPORTED,
                       "%s: tag '%s' requires 0x%x, which this mrctx (%s) does not know "
                       "(it knows MR_REQUIRE_* 0x%x): the program was built against a newer "
                       "header",
                       lib, mri_brief(desc->tags[t].name, brief), (unsigned)unknown, mr_version(),
                       (unsigned)MRI_REQUIRE_KNOWN);
    }
  }
  *sorted = keys;
  return MR_OK;
}

/* ---- creation: resolving -------------------------------------------------------- */

typedef struct builder {
  mr_context *ctx;
  bool describe_only; /* MR_CONTEXT_DESCRIBE_ONLY */
  int *chain;         /* the tags being resolved, innermost last (for cycles) */
  size_t chain_length;
} builder;

static mr_status resolve_slot(builder *b, int tag, int device, const mri_text_source *ref_source,
                              mri_pos ref_pos, int depth);

static mr_status lookup_tag(void *user, const char *name, const mri_text_source *source,
                            mri_pos pos, int depth, int device, mr_resource **out,
                            mr_status *unavailable, const char **reason) {
  builder *b = user;
  *out = NULL;
  int tag = mri_context_find_tag(b->ctx, name);
  char brief[MRI_BRIEF_CAP];
  if (tag < 0)
    return mri_config_error(source, pos, MR_ERR_CONFIG, "unknown tag '%s' (tags: %s)",
                            mri_brief(name, brief), b->ctx->tag_list);
  mr_status st = resolve_slot(b, tag, device, source, pos, depth);
  if (st != MR_OK) return st;
  const slot *s = &b->ctx->slots[(size_t)tag * (size_t)b->ctx->device_count + (size_t)device];
  *out = mr_resource_retain(s->inner);
  *unavailable = s->source.status;
  *reason = s->source.reason;
  return MR_OK;
}

/* "a -> b -> tag": the chain of tags being resolved from `tag`'s first
 * appearance (or from the start), then `tag`. */
static void chain_path(const builder *b, int tag, char *path, size_t cap) {
  size_t n = 0;
  size_t from = 0;
  while (from < b->chain_length && b->chain[from] != tag) from++;
  if (from == b->chain_length) from = 0;
  path[0] = '\0';
  for (size_t i = from; i < b->chain_length && n < cap; i++) {
    int w = snprintf(path + n, cap - n, "%s -> ", b->ctx->tag_names[b->chain[i]]);
    if (w < 0) break;
    n += (size_t)w;
  }
  if (n < cap) snprintf(path + n, cap - n, "%s", b->ctx->tag_names[tag]);
}

static mr_status cycle_error(builder *b, int tag, const mri_text_source *source, mri_pos pos) {
  char path[1024];
  chain_path(b, tag, path, sizeof path);
  return mri_config_error(source, pos, MR_ERR_CONFIG, "tags refer to each other in a cycle: %s",
                          path);
}

/* The stand-in for a tag that cannot be built on this device: it fails
 * every allocation at once, saying which tag and why. */
static mr_status make_unavailable(mr_context *ctx, size_t tag, int device, slot *s,
                                  mri_resolved *resolved) {
  s->reason = mri_asprintf("%s:%s on device %d: %s", ctx->library, ctx->tag_names[tag], device,
                           resolved->reason != NULL ? resolved->reason : "unavailable");
  if (s->reason == NULL) return MR_ERR_OUT_OF_MEMORY;
  return mri_unavailable_resource_create(resolved->unavailable, s->reason,
                                         &resolved->resource->props,
                                         mr_resource_describe(resolved->resource), &s->inner);
}

/* The default chains of device tags include retry (the contract): a chain
 * over device-side memory (device, pinned, managed) that has no retry of its
 * own gets one on top, so transient out-of-memory (frees pending on other
 * streams, memory parked in caches and arenas) is recovered from. It holds
 * no memory and costs one call on the allocation path. Host chains have
 * nothing to wait for and stay as written. */
static mr_status add_default_retry(mr_resource **inner) {
  mr_resource_props props = {.size = sizeof props};
  mr_status st = mr_resource_get_props(*inner, &props);
  if (st != MR_OK || props.kind == MR_MEMORY_HOST) return st;
  for (mr_resource *r = *inner; r != NULL; r = mr_resource_upstream(r))
    if (mri_is_retry(r)) return MR_OK;
  mr_resource *wrapped = NULL;
  st = mr_retry_resource_create(*inner, 0, NULL, NULL, &wrapped);
  if (st != MR_OK) return st;
  mr_resource_release(*inner);
  *inner = wrapped;
  return MR_OK;
}

/* `depth`: where the tag's spec sits, 0 or the depth of the @tag that asks
 * for it (the spec language's nesting limit counts through references). */
static mr_status resolve_slot(builder *b, int tag, int device, const mri_text_source *ref_source,
                              mri_pos ref_pos, int depth) {
  mr_context *ctx = b->ctx;
  slot *s = &ctx->slots[(size_t)tag * (size_t)ctx->device_count + (size_t)device];
  if (s->state == SLOT_DONE) return MR_OK;
  if (s->state == SLOT_RESOLVING) return cycle_error(b, tag, ref_source, ref_pos);
  /* Each reference resolves the other tag within this call's stack: a
   * chain is bounded like nesting, not left to exhaust the stack. */
  if (b->chain_length >= MRI_SPEC_MAX_DEPTH) {
    char path[1024];
    chain_path(b, tag, path, sizeof path);
    return mri_config_error(ref_source, ref_pos, MR_ERR_CONFIG,
                            "tags refer on to each other more than %d deep: %s", MRI_SPEC_MAX_DEPTH,
                            path);
  }
  s->state = SLOT_RESOLVING;
  b->chain[b->chain_length++] = tag;

  mri_resolve_options options = {
      .device = device,
      .depth = depth,
      .lookup_tag = lookup_tag,
      .lookup_user = b,
      .describe_only = b->describe_only,
  };
  mri_resolved resolved;
  mr_status st = mri_spec_resolve(&s->config->source, s->entry->spec, &options, &resolved);
  if (st != MR_OK) return st;
  if (resolved.unavailable == MR_OK) {
    s->inner = resolved.resource;
    if (s->entry->spec->kind != MRI_NODE_REF) st = add_default_retry(&s->inner);
    /* The retry is one more level its description must be read back with. */
    if (st == MR_OK &&
        depth + mri_spec_text_depth(mr_resource_describe(s->inner)) >= MRI_SPEC_MAX_DEPTH)
      st = mri_config_error(&s->config->source, s->entry->spec->pos, MR_ERR_CONFIG,
                            "with the retry a context puts on device chains, the resource "
                            "would be described nested deeper than %d levels, more than spec "
                            "text may (give the chain a retry of its own, or nest it less)",
                            MRI_SPEC_MAX_DEPTH);
  } else if (s->entry->spec->kind == MRI_NODE_REF) {
    /* tag=@other: the same instance, stand-in or not. */
    s->inner = resolved.resource;
    s->reason = resolved.reason;
    resolved.reason = NULL;
  } else {
    st = make_unavailable(ctx, (size_t)tag, device, s, &resolved);
    mr_resource_release(resolved.resource);
  }
  free(resolved.reason);
  if (st != MR_OK) return st;
  if (resolved.unavailable != MR_OK) {
    s->source.status = resolved.unavailable;
    s->source.reason = s->reason != NULL ? s->reason : "";
  }
  b->chain_length--;
  s->state = SLOT_DONE;
  return MR_OK;
}

/* A tag's allocation failed for lack of memory (the wrapper's hook). */
static void report_oom(void *user, size_t bytes, mr_stream stream) {
  const slot *s = user;
  mri_oom_report(s->ctx->library, s->ctx->tag_names[s->tag], s->device, bytes, stream);
}

/* ---- creation: what the library requires of a tag's memory ------------------------ */

/* "pageable host memory" and the like: what a resource hands out, in the
 * words of resource.h. */
static const char *memory_words(mr_memory_kind kind) {
  switch (kind) {
  case MR_MEMORY_HOST:
    return "pageable host memory";
  case MR_MEMORY_PINNED:
    return "pinned host memory";
  case MR_MEMORY_DEVICE:
    return "device memory";
  case MR_MEMORY_MANAGED:
    return "managed memory";
  }
  return "memory of an unknown kind";
}

/* "device-accessible, stream-ordered" (joined by `joint` before the last),
 * the requirements in `flags`. */
static void requirement_words(uint32_t flags, const char *joint, char *buf, size_t cap) {
  static const struct {
    uint32_t flag;
    const char *words;
  } all[] = {{MR_REQUIRE_DEVICE_ACCESSIBLE, "device-accessible"},
             {MR_REQUIRE_HOST_ACCESSIBLE, "host-accessible"},
             {MR_REQUIRE_STREAM_ORDERED, "stream-ordered"}};
  size_t n = 0, left = 0;
  for (size_t i = 0; i < MRI_ARRAY_SIZE(all); i++) left += (flags & all[i].flag) != 0;
  buf[0] = '\0';
  for (size_t i = 0; i < MRI_ARRAY_SIZE(all) && n < cap; i++) {
    if ((flags & all[i].flag) == 0) continue;
    left--;
    int w = snprintf(buf + n, cap - n, "%s%s", all[i].words,
                     left == 0   ? ""
                     : left == 1 ? joint
                                 : ", ");
    if (w < 0) break;
    n += (size_t)w;
  }
}

/* Where the slot's spec came from, for the message: "the environment
 * variable MYLIB_MEMORY", "the config file mylib.conf", ... */
static void source_words(const mr_context *ctx, const slot *s, char *buf, size_t cap) {
  switch (s->source.origin) {
  case MR_SPEC_DEFAULT:
    snprintf(buf, cap, "its default spec");
    return;
  case MR_SPEC_OVERRIDE:
    snprintf(buf, cap, "the override text");
    return;
  case MR_SPEC_FILE:
    snprintf(buf, cap, "the config file %s", s->source.where);
    return;
  case MR_SPEC_ENV:
    snprintf(buf, cap, "the environment variable %s", s->source.where);
    return;
  }
  snprintf(buf, cap, "its spec");
}

/* The library's requirements of the slot's tag, against the properties of
 * the resource its spec resolved to (a stand-in's are those of what it
 * stands for, so a device tag without a driver is checked as a device
 * tag). Refused at the spec, in its source. */
static mr_status check_requirements(const mr_context *ctx, const slot *s) {
  if (ctx->requires == NULL || ctx->requires[s->tag] == 0) return MR_OK;
  uint32_t wanted = ctx->requires[s->tag];
  const mr_resource_props *p = &s->inner->props;
  uint32_t have = (p->device_accessible ? MR_REQUIRE_DEVICE_ACCESSIBLE : 0) |
                  (p->host_accessible ? MR_REQUIRE_HOST_ACCESSIBLE : 0) |
                  (p->stream_ordered ? MR_REQUIRE_STREAM_ORDERED : 0);
  uint32_t missing = wanted & ~have;
  if (missing == 0) return MR_OK;
  char needs[96], lacks[96], from[400], brief[MRI_BRIEF_CAP];
  requirement_words(wanted, ", ", needs, sizeof needs);
  requirement_words(missing, " nor ", lacks, sizeof lacks);
  source_words(ctx, s, from, sizeof from);
  return mri_config_error(&s->config->source, s->entry->spec->pos, MR_ERR_CONFIG,
                          "%s: tag '%s' needs %s memory, but on device %d %s gives it '%s': "
                          "%s, which is not %s",
                          ctx->library, ctx->tag_names[s->tag], needs, s->device, from,
                          mri_brief(s->source.spec, brief), memory_words(p->kind), lacks);
}

static mr_status build_table(mr_context *ctx, bool describe_only) {
  size_t slots = ctx->tag_count * (size_t)ctx->device_count;
  builder b = {.ctx = ctx, .describe_only = describe_only};
  b.chain = mri_calloc(ctx->tag_count, sizeof *b.chain);
  if (b.chain == NULL) return MR_ERR_OUT_OF_MEMORY;
  mr_status st = MR_OK;
  for (int device = 0; device < ctx->device_count && st == MR_OK; device++) {
    for (size_t tag = 0; tag < ctx->tag_count && st == MR_OK; tag++) {
      b.chain_length = 0;
      st = resolve_slot(&b, (int)tag, device, NULL, (mri_pos){0}, 0);
    }
  }
  free(b.chain);
  for (size_t i = 0; i < slots && st == MR_OK; i++) {
    slot *s = &ctx->slots[i];
    s->ctx = ctx;
    s->tag = (int)(i / (size_t)ctx->device_count);
    s->device = (int)(i % (size_t)ctx->device_count);
    st = check_requirements(ctx, s);
    if (st != MR_OK) break;
    /* Only described: the tree was built without effects (core.h), and
     * none of it is kept: the tag is an inert stand-in that describes
     * itself as the tree did, so nothing can allocate through it. (A tag
     * that could not be built is such a stand-in already.) */
    if (describe_only && s->source.status == MR_OK) {
      mr_resource *inert = NULL;
      st = mri_described_resource_create(&s->inner->props, mr_resource_describe(s->inner), NULL,
                                         &inert);
      if (st != MR_OK) break;
      mr_resource_release(s->inner);
      s->inner = inert;
    }
    char owner[256];
    snprintf(owner, sizeof owner, "%s:%s", ctx->library, ctx->tag_names[s->tag]);
    /* Per-tag statistics: the same adaptor as stats(UP), described as the
     * resource it wraps, with the context's hooks. Exact peaks where the
     * tag's spec asks its own stats(...) for them: read from that adaptor
     * where it counts just this tag's allocations (no other tag reaches it
     * through @tag), else kept by the wrapper as well. */
    bool alone = false;
    mri_stats_exact *exact = mri_stats_exact_below(s->inner, &alone);
    mri_tag_hooks hooks = {.label = owner, .on_oom = report_oom, .user = s};
    if (alone) hooks.shared_exact = exact;
    st = mri_tag_resource_create(s->inner, mr_resource_describe(s->inner),
                                 exact != NULL ? MR_STATS_PEAK_EXACT : MR_STATS_PEAK_SHARDED,
                                 &hooks, &ctx->table[i]);
    if (st != MR_OK) break;
    mri_resource_set_owner(ctx->table[i], owner);
    /* The chain's resources that keep idle memory are named after the
     * first tag that holds them, in snapshots, MRCTX_VERBOSE and the
     * messages of allocations that still fail after a reclaim. */
    if (!describe_only)
      for (const mr_resource *r = s->inner; r != NULL; r = mr_resource_upstream(r))
        mri_reclaimer_label(r, owner);
  }
  /* The wrappers hold the references now. */
  for (size_t i = 0; i < slots; i++) {
    mr_resource_release(ctx->slots[i].inner);
    ctx->slots[i].inner = NULL;
  }
  return st;
}

static mr_status make_tag_list(mr_context *ctx) {
  size_t length = 1;
  for (size_t t = 0; t < ctx->tag_count; t++) length += strlen(ctx->tag_names[t]) + 2;
  ctx->tag_list = mri_host_malloc(length);
  if (ctx->tag_list == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory creating the %s context",
                     ctx->library);
  size_t n = 0;
  for (size_t t = 0; t < ctx->tag_count; t++)
    n += (size_t)snprintf(ctx->tag_list + n, length - n, "%s%s", t > 0 ? ", " : "",
                          ctx->tag_names[t]);
  return MR_OK;
}

static mr_status allocate_context(mr_context *ctx, const mr_context_desc *desc) {
  ctx->tag_count = desc->tag_count;
  ctx->library = mri_strdup(desc->library);
  if (ctx->library == NULL) return MR_ERR_OUT_OF_MEMORY;
  ctx->tag_names = mri_calloc(ctx->tag_count, sizeof *ctx->tag_names);
  if (ctx->tag_names == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t t = 0; t < ctx->tag_count; t++) {
    ctx->tag_names[t] = mri_strdup(desc->tags[t].name);
    if (ctx->tag_names[t] == NULL) return MR_ERR_OUT_OF_MEMORY;
  }
  /* The sorted index now names the context's own copies. */
  for (size_t i = 0; i < ctx->tag_count; i++)
    ctx->tags_by_name[i].name = ctx->tag_names[ctx->tags_by_name[i].index];
  mr_status st = make_tag_list(ctx);
  if (st != MR_OK) return st;
  if (desc->tag_requires != NULL) {
    ctx->requires = mri_calloc(ctx->tag_count, sizeof *ctx->requires);
    if (ctx->requires == NULL) return MR_ERR_OUT_OF_MEMORY;
    memcpy(ctx->requires, desc->tag_requires, ctx->tag_count * sizeof *ctx->requires);
  }

  /* No driver, or no device: one slot, where device tags stand in as
   * resources that fail with the reason. */
  int count = 0;
  if (mr_device_count(&count) != MR_OK || count <= 0) count = 1;
  ctx->device_count = count;
  size_t slots = ctx->tag_count * (size_t)count;
  ctx->slots = mri_calloc(slots, sizeof *ctx->slots);
  ctx->table = mri_calloc(slots, sizeof *ctx->table);
  if (ctx->slots == NULL || ctx->table == NULL) return MR_ERR_OUT_OF_MEMORY;
  return MR_OK;
}

/* MRCTX_VERBOSE and MRCTX_STATS_AT_EXIT (at the end of this file). */
static void operators_on_create(const mr_context *ctx, bool describe_only);

mr_status mr_context_create(const mr_context_desc *desc, mr_context **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_create: ctx is NULL");
  *out = NULL;
  if (desc == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_create: desc is NULL");
  /* The caller's desc, as this library's struct: fields past its size are
   * absent (NULL, 0). */
  mr_context_desc given = {0};
  mr_status st = MRI_STRUCT_READ(&given, desc, mr_context_desc, overrides, "mr_context_create");
  if (st != MR_OK) return st;
  desc = &given;
  if ((desc->flags & ~MR_CONTEXT_DESCRIBE_ONLY) != 0)
    return mri_error(MR_ERR_UNSUPPORTED,
                     "mr_context_create: desc.flags 0x%x holds flags this library does not "
                     "know (it knows MR_CONTEXT_DESCRIBE_ONLY, 0x%x)",
                     (unsigned)desc->flags, (unsigned)MR_CONTEXT_DESCRIBE_ONLY);
  tag_key *sorted;
  st = validate_desc(desc, &sorted);
  if (st != MR_OK) return st;
  mr_context *ctx = mri_calloc(1, sizeof *ctx);
  if (ctx == NULL) {
    free(sorted);
    return MR_ERR_OUT_OF_MEMORY;
  }
  ctx->tags_by_name = sorted;
  ctx->describe_only = (desc->flags & MR_CONTEXT_DESCRIBE_ONLY) != 0;
  st = allocate_context(ctx, desc);
  if (st == MR_OK) st = mri_sources_read(&ctx->sources, ctx, desc);
  if (st == MR_OK) {
    for (size_t t = 0; t < ctx->tag_count; t++) {
      for (int d = 0; d < ctx->device_count; d++) {
        slot *s = &ctx->slots[t * (size_t)ctx->device_count + (size_t)d];
        mri_sources_choose(&ctx->sources, t, d, &s->config, &s->entry, &s->source);
      }
    }
    st = build_table(ctx, (desc->flags & MR_CONTEXT_DESCRIBE_ONLY) != 0);
  }
  if (st != MR_OK) {
    mr_context_destroy(ctx);
    return st;
  }
  live_add(ctx);
  *out = ctx;
  operators_on_create(ctx, (desc->flags & MR_CONTEXT_DESCRIBE_ONLY) != 0);
  return MR_OK;
}

void mr_context_destroy(mr_context *ctx) {
  if (ctx == NULL) return;
  /* Its final figures for MRCTX_STATS_AT_EXIT, while it is whole: a
   * context that was created (on the live list) and could allocate. */
  if (ctx->live_id != 0 && !ctx->describe_only) mri_destroyed_keep(ctx, ctx->live_id);
  live_remove(ctx);
  size_t slots = ctx->slots != NULL ? ctx->tag_count * (size_t)ctx->device_count : 0;
  for (size_t i = 0; i < slots; i++) {
    if (ctx->table != NULL) mr_resource_release(ctx->table[i]);
    mr_resource_release(ctx->slots[i].inner);
    free(ctx->slots[i].reason);
  }
  for (size_t t = 0; ctx->tag_names != NULL && t < ctx->tag_count; t++) free(ctx->tag_names[t]);
  mri_sources_free(&ctx->sources, ctx->tag_count);
  free(ctx->tags_by_name);
  free(ctx->tag_list);
  free(ctx->requires);
  free(ctx->tag_names);
  free(ctx->slots);
  free(ctx->table);
  free(ctx->library);
  free(ctx);
}

/* ---- reading a context ---------------------------------------------------------- */

const char *mr_context_library(const mr_context *ctx) { return ctx != NULL ? ctx->library : ""; }

size_t mr_context_tag_count(const mr_context *ctx) { return ctx != NULL ? ctx->tag_count : 0; }

const char *mr_context_tag_name(const mr_context *ctx, int tag) {
  if (ctx == NULL || tag < 0 || (size_t)tag >= ctx->tag_count) return NULL;
  return ctx->tag_names[tag];
}

int mr_context_device_count(const mr_context *ctx) { return ctx != NULL ? ctx->device_count : 0; }

const char *mr_spec_origin_name(mr_spec_origin origin) {
  switch (origin) {
  case MR_SPEC_DEFAULT:
    return "default";
  case MR_SPEC_OVERRIDE:
    return "override";
  case MR_SPEC_FILE:
    return "file";
  case MR_SPEC_ENV:
    return "env";
  }
  return "unknown";
}

static mr_status check_slot(const mr_context *ctx, const char *what, int tag, int device) {
  if (ctx == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: the context is NULL", what);
  if (tag < 0 || (size_t)tag >= ctx->tag_count)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: %s has no tag %d (it has %zu)", what,
                     ctx->library, tag, ctx->tag_count);
  if (device < 0 || device >= ctx->device_count)
    return mri_error(MR_ERR_NO_DEVICE, "%s: device %d is not one of %s's %d device slot%s", what,
                     device, ctx->library, ctx->device_count, ctx->device_count == 1 ? "" : "s");
  return MR_OK;
}

mr_status mr_context_get_source(const mr_context *ctx, int tag, int device,
                                mr_spec_source *source) {
  if (source == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_get_source: source is NULL");
  mr_status st = check_slot(ctx, "mr_context_get_source", tag, device);
  if (st != MR_OK) return st;
  return MRI_STRUCT_WRITE(
      source, &ctx->slots[(size_t)tag * (size_t)ctx->device_count + (size_t)device].source,
      mr_spec_source, reason, "mr_context_get_source");
}

size_t mr_context_ignored_count(const mr_context *ctx) {
  return ctx != NULL ? ctx->sources.ignored_count : 0;
}

mr_status mr_context_get_ignored(const mr_context *ctx, size_t index, mr_ignored_entry *entry) {
  if (ctx == NULL || entry == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_get_ignored: NULL argument");
  if (index >= ctx->sources.ignored_count)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_context_get_ignored: index %zu is past the %zu ignored entries", index,
                     ctx->sources.ignored_count);
  const mri_ignored_item *item = &ctx->sources.ignored[index];
  mr_ignored_entry full = {
      .size = sizeof full, .tag = item->tag, .device = item->device, .source = &item->source};
  return MRI_STRUCT_WRITE(entry, &full, mr_ignored_entry, source, "mr_context_get_ignored");
}

/* One slot's counters. */
static mr_status read_slot_stats(const mr_context *ctx, size_t tag, int device, mr_stats *out) {
  mr_stats_init(out);
  const mri_stats *counters =
      mri_stats_resource_counters(ctx->table[tag * (size_t)ctx->device_count + (size_t)device]);
  return mri_stats_read(counters, out);
}

mr_status mr_context_get_stats(const mr_context *ctx, int tag, int device, mr_stats *stats) {
  if (stats == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_get_stats: stats is NULL");
  mr_status st = check_slot(ctx, "mr_context_get_stats", tag, device == -1 ? 0 : device);
  if (st != MR_OK) return st;
  mr_stats sum;
  mr_stats_init(&sum);
  int first = device == -1 ? 0 : device;
  int last = device == -1 ? ctx->device_count - 1 : device;
  for (int d = first; d <= last; d++) {
    mr_stats one;
    st = read_slot_stats(ctx, (size_t)tag, d, &one);
    if (st != MR_OK) return st;
    mr_stats_add(&sum, &one);
  }
  /* The caller's size is checked and honoured where every filled struct's
   * is (docs/abi.md): an older struct filled as far as it goes, a newer
   * one zeroed past ours, a size no header has refused before a byte is
   * written. */
  return MRI_STRUCT_WRITE(stats, &sum, mr_stats, failed_count, "mr_context_get_stats");
}

mr_status mr_context_reset_peak(const mr_context *ctx, int tag, int device) {
  static const char what[] = "mr_context_reset_peak";
  if (ctx == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: the context is NULL", what);
  if (tag < -1 || (tag >= 0 && (size_t)tag >= ctx->tag_count))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %s has no tag %d (it has %zu; -1 resets every tag)", what, ctx->library,
                     tag, ctx->tag_count);
  if (device < -1)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: device %d is not a device (-1 resets every device)", what, device);
  /* As mr_context_get_stats says it of a device past the context's. */
  if (device >= ctx->device_count)
    return mri_error(MR_ERR_NO_DEVICE, "%s: device %d is not one of %s's %d device slot%s", what,
                     device, ctx->library, ctx->device_count, ctx->device_count == 1 ? "" : "s");
  size_t first_tag = tag == -1 ? 0 : (size_t)tag;
  size_t end_tag = tag == -1 ? ctx->tag_count : (size_t)tag + 1;
  int first_device = device == -1 ? 0 : device;
  int end_device = device == -1 ? ctx->device_count : device + 1;
  for (size_t t = first_tag; t < end_tag; t++) {
    for (int d = first_device; d < end_device; d++) {
      /* Every slot is a stats wrapper (build_table), each reset alone:
       * a tag's slots are not reset at one instant, nor need to be. */
      mr_status st =
          mr_stats_resource_reset_peak(ctx->table[t * (size_t)ctx->device_count + (size_t)d]);
      if (st != MR_OK) return st;
    }
  }
  return MR_OK;
}

static void print_row(FILE *out, int tag_width, const char *tag, const char *device,
                      const mr_stats *s) {
  char current[32], peak[32], total[32];
  mri_format_bytes_human(s->current_bytes, current, sizeof current);
  mri_format_bytes_human(s->peak_bytes, peak, sizeof peak);
  mri_format_bytes_human(s->total_bytes, total, sizeof total);
  fprintf(out, "%-*s %6s %10s %10s %10s %8llu %10llu %8llu\n", tag_width, tag, device, current,
          peak, total, (unsigned long long)s->current_count, (unsigned long long)s->total_count,
          (unsigned long long)s->failed_count);
}

/* The tags' resources that keep idle memory (core/reclaim.h): what each
 * keeps idle now and what the process-wide reclaims took back from it.
 * Nothing when no chain keeps any. A tag that shares an earlier one's
 * resource (tag=@other) is not listed again. */
static void print_idle(const mr_context *ctx, FILE *out, int tag_width) {
  bool first = true;
  uint64_t total = 0;
  for (size_t t = 0; t < ctx->tag_count; t++) {
    for (int d = 0; d < ctx->device_count; d++) {
      const mr_resource *inner =
          mr_resource_upstream(ctx->table[t * (size_t)ctx->device_count + (size_t)d]);
      bool shared = false;
      for (size_t o = 0; o < t && !shared; o++)
        shared =
            mr_resource_upstream(ctx->table[o * (size_t)ctx->device_count + (size_t)d]) == inner;
      for (const mr_resource *r = inner; r != NULL && !shared; r = mr_resource_upstream(r)) {
        mri_reclaim_figures f;
        if (!mri_reclaim_figures_of(r, &f)) continue;
        if (first)
          fprintf(out,
                  "idle memory (the process-wide reclaim gives it back when memory runs "
                  "out, except keep=yes)\n%-*s %6s %10s %8s %10s %9s  %s\n",
                  tag_width, "tag", "device", "idle", "reclaims", "taken back", "ms", "resource");
        first = false;
        char idle[32], back[32], spec[512];
        mri_format_bytes_human(f.idle_bytes, idle, sizeof idle);
        mri_format_bytes_human(f.reclaimed_bytes, back, sizeof back);
        fprintf(out, "%-*s %6d %10s %8" PRIu64 " %10s %9.3f  %s\n", tag_width, ctx->tag_names[t], d,
                idle, f.reclaims, back, (double)f.reclaim_ns / 1e6,
                mri_printable(f.what, spec, sizeof spec));
        total += f.idle_bytes;
      }
    }
  }
  if (first) return;
  char sum[32];
  mri_format_bytes_human(total, sum, sizeof sum);
  fprintf(out, "%-*s %6s %10s\n", tag_width, "total", "", sum);
}

/* With `idle`, the idle memory table too: not at exit (MRCTX_STATS_AT_EXIT),
 * where an owned pool's figures would call a driver that may have shut
 * down. */
static mr_status print_stats(const mr_context *ctx, FILE *out, bool idle) {
  if (ctx == NULL || out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_print_stats: NULL argument");
  int tag_width = 3;
  for (size_t t = 0; t < ctx->tag_count; t++) {
    int n = (int)strlen(ctx->tag_names[t]);
    if (n > tag_width) tag_width = n;
  }
  /* The library's name is the caller's, any bytes: escaped for the terminal. */
  mri_write_printable(out, ctx->library);
  fputs(" memory by tag\n", out);
  fprintf(out, "%-*s %6s %10s %10s %10s %8s %10s %8s\n", tag_width, "tag", "device", "current",
          "peak", "total", "live", "allocs", "failures");
  for (size_t t = 0; t < ctx->tag_count; t++) {
    mr_stats sum;
    mr_stats_init(&sum);
    for (int d = 0; d < ctx->device_count; d++) {
      mr_stats one;
      mr_status st = read_slot_stats(ctx, t, d, &one);
      if (st != MR_OK) return st;
      mr_stats_add(&sum, &one);
      if (one.total_count == 0 && one.failed_count == 0) continue;
      char device[16];
      snprintf(device, sizeof device, "%d", d);
      print_row(out, tag_width, ctx->tag_names[t], device, &one);
    }
    print_row(out, tag_width, ctx->tag_names[t], "all", &sum);
  }
  if (idle && !ctx->describe_only) print_idle(ctx, out, tag_width);
  if (ferror(out))
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_context_print_stats: writing failed: %s",
                     strerror(errno));
  return MR_OK;
}

mr_status mr_context_print_stats(const mr_context *ctx, FILE *out) {
  return print_stats(ctx, out, true);
}

/* ---- operators: MRCTX_VERBOSE and MRCTX_STATS_AT_EXIT ------------------------------ */

/* Both variables are read once, at the first context's creation. */
static pthread_once_t operators_once = PTHREAD_ONCE_INIT;
static bool verbose;
static char *at_exit_target; /* "stderr" or a path template; NULL: none */

static void stats_at_exit(void);

static atomic_bool operators_read; /* read_operator_env has run */

static void read_operator_env(void) {
  atomic_store(&operators_read, true);
  verbose = mri_variable_flag(MRI_VAR_VERBOSE);
  const char *target = mri_variable_get(MRI_VAR_STATS_AT_EXIT);
  if (target == NULL || target[0] == '\0') return;
  at_exit_target = mri_host_strdup(target);
  if (at_exit_target == NULL || atexit(stats_at_exit) != 0) {
    fprintf(stderr, "mrctx: MRCTX_STATS_AT_EXIT: out of host memory: nothing will be written "
                    "at exit\n");
    free(at_exit_target);
    at_exit_target = NULL;
    return;
  }
  /* Contexts destroyed from now on are in the report too (destroyed.c). */
  mri_destroyed_start();
}

/* "env MYLIB_MEMORY", "file /etc/mylib.conf line 3", "default". */
static void source_text(const mr_spec_source *src, char *buf, size_t cap) {
  const char *origin = mr_spec_origin_name(src->origin);
  if (src->origin == MR_SPEC_DEFAULT)
    snprintf(buf, cap, "%s", origin);
  else if (src->origin == MR_SPEC_ENV)
    snprintf(buf, cap, "%s %s", origin, src->where);
  else if (src->origin == MR_SPEC_FILE)
    snprintf(buf, cap, "%s %s line %d", origin, src->where, src->line);
  else
    snprintf(buf, cap, "%s line %d", origin, src->line);
}

/* The table MRCTX_VERBOSE prints at creation: every tag on every device,
 * its resolved spec and where it came from; then a warning for each entry
 * ignored for a device the process does not have. Written to stderr in
 * one piece, so the lines of contexts made on several threads do not mix. */
static void print_resolved(const mr_context *ctx) {
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  if (out == NULL) return;
  int tag_width = 3, spec_width = 4;
  for (size_t t = 0; t < ctx->tag_count; t++) {
    int n = (int)strlen(ctx->tag_names[t]);
    if (n > tag_width) tag_width = n;
    for (int d = 0; d < ctx->device_count; d++) {
      char spec[512];
      const mr_resource *r = ctx->table[t * (size_t)ctx->device_count + (size_t)d];
      int w = (int)strlen(mri_printable(mr_resource_describe(r), spec, sizeof spec));
      if (w > spec_width) spec_width = w < 60 ? w : 60;
    }
  }
  fputs("mrctx: context ", out);
  mri_write_printable(out, ctx->library);
  fprintf(out, ": %zu tag%s on %d device slot%s\n", ctx->tag_count, ctx->tag_count == 1 ? "" : "s",
          ctx->device_count, ctx->device_count == 1 ? "" : "s");
  fprintf(out, "  %-*s %6s  %-*s  %s\n", tag_width, "tag", "device", spec_width, "spec", "source");
  for (size_t t = 0; t < ctx->tag_count; t++) {
    for (int d = 0; d < ctx->device_count; d++) {
      const slot *sl = &ctx->slots[t * (size_t)ctx->device_count + (size_t)d];
      const mr_resource *r = ctx->table[t * (size_t)ctx->device_count + (size_t)d];
      char tag[256], spec[512], source[600], where[520];
      mri_printable(sl->source.where, where, sizeof where);
      mr_spec_source shown = sl->source;
      shown.where = where;
      source_text(&shown, source, sizeof source);
      fprintf(out, "  %-*s %6d  %-*s  %s", tag_width,
              mri_printable(ctx->tag_names[t], tag, sizeof tag), d, spec_width,
              mri_printable(mr_resource_describe(r), spec, sizeof spec), source);
      if (sl->source.status != MR_OK) {
        fprintf(out, " (cannot allocate here: %s: ", mr_status_name(sl->source.status));
        mri_write_printable(out, sl->source.reason);
        fputc(')', out);
      }
      fputc('\n', out);
    }
  }
  for (size_t i = 0; i < ctx->sources.ignored_count; i++) {
    const mri_ignored_item *item = &ctx->sources.ignored[i];
    char source[600], where[520], tag[256], spec[512];
    mri_printable(item->source.where, where, sizeof where);
    mr_spec_source shown = item->source;
    shown.where = where;
    source_text(&shown, source, sizeof source);
    fputs("mrctx: warning: ", out);
    mri_write_printable(out, ctx->library);
    fprintf(out, ": %s@%d=%s from %s ignored: device %d does not exist (%d device slot%s)\n",
            mri_printable(item->tag, tag, sizeof tag), item->device,
            mri_printable(item->source.spec, spec, sizeof spec), source, item->device,
            ctx->device_count, ctx->device_count == 1 ? "" : "s");
  }
  if (fclose(out) == 0 && text != NULL) {
    fputs(text, stderr);
    fflush(stderr);
  }
  free(text);
}

static void operators_on_create(const mr_context *ctx, bool describe_only) {
  pthread_once(&operators_once, read_operator_env);
  /* mrctx resolve and the like show the table themselves. */
  if (verbose && !describe_only) print_resolved(ctx);
}

static mr_status print_one(void *user, const mr_context *ctx, uint64_t id) {
  (void)id;
  FILE *out = user;
  mr_status st = print_stats(ctx, out, false);
  fputc('\n', out);
  return st;
}

static mr_status count_one(void *user, const mr_context *ctx, uint64_t id) {
  (void)ctx;
  (void)id;
  ++*(size_t *)user;
  return MR_OK;
}

/* A destroyed context's table, as mr_context_print_stats prints a live
 * one's, from its record (destroyed.c), under a heading that says so. */
static mr_status print_destroyed(void *user, const mri_snap_context *c) {
  FILE *out = user;
  int tag_width = 3;
  for (size_t t = 0; t < c->tag_count; t++) {
    int n = (int)strlen(c->tags[t].name);
    if (n > tag_width) tag_width = n;
  }
  mri_write_printable(out, c->library);
  if (c->destroyed == 1)
    fputs(" memory by tag (destroyed)\n", out);
  else
    fprintf(out,
            " memory by tag (%" PRIu64 " contexts destroyed, merged: peaks are the largest of "
            "any one)\n",
            c->destroyed);
  fprintf(out, "%-*s %6s %10s %10s %10s %8s %10s %8s\n", tag_width, "tag", "device", "current",
          "peak", "total", "live", "allocs", "failures");
  for (size_t t = 0; t < c->tag_count; t++) {
    const mri_snap_tag *tag = &c->tags[t];
    mr_stats sum;
    mr_stats_init(&sum);
    for (size_t d = 0; d < tag->slot_count; d++) {
      const mr_stats *one = &tag->slots[d].stats;
      mr_stats_add(&sum, one);
      if (one->total_count == 0 && one->failed_count == 0) continue;
      char device[16];
      snprintf(device, sizeof device, "%d", tag->slots[d].device);
      print_row(out, tag_width, tag->name, device, one);
    }
    print_row(out, tag_width, tag->name, "all", &sum);
  }
  fputc('\n', out);
  return MR_OK;
}

static mr_status count_destroyed(void *user, const mri_snap_context *c) {
  *(uint64_t *)user += c->destroyed;
  return MR_OK;
}

/* Every live context's per-tag table, then every destroyed one's, in
 * memory (malloc'd); NULL when host memory ran out. Counters only: no
 * driver call (at exit the driver may have shut down before this runs). */
static char *render_tables(size_t *length) {
  char *text = NULL;
  FILE *out = open_memstream(&text, length);
  if (out == NULL) return NULL;
  size_t live = 0;
  uint64_t destroyed = 0, not_kept = 0;
  mri_context_foreach_live(count_one, &live);
  mri_destroyed_foreach(count_destroyed, &destroyed, &not_kept);
  fprintf(out, "mrctx: memory in use at exit of pid %ld: %zu live context%s", (long)getpid(), live,
          live == 1 ? "" : "s");
  if (destroyed + not_kept > 0) fprintf(out, ", %" PRIu64 " destroyed", destroyed + not_kept);
  fputc('\n', out);
  mr_status st = mri_context_foreach_live(print_one, out);
  if (st == MR_OK) st = mri_destroyed_foreach(print_destroyed, out, &not_kept);
  if (st == MR_OK && not_kept > 0)
    fprintf(out,
            "(%" PRIu64 " destroyed context%s not shown: out of host memory, or past the "
            "libraries and tags kept merged)\n",
            not_kept, not_kept == 1 ? "" : "s");
  if (fclose(out) != 0 || st != MR_OK) {
    free(text);
    return NULL;
  }
  return text;
}

/* A snapshot as JSON, without the driver's pools (see above). */
static char *render_snapshot(size_t *length) {
  mr_snapshot *snap = NULL;
  if (mri_snapshot_take(NULL, NULL, false, &snap) != MR_OK) return NULL;
  if (mri_destroyed_append(snap) != MR_OK) {
    mr_snapshot_destroy(snap);
    return NULL;
  }
  char *text = NULL;
  FILE *out = open_memstream(&text, length);
  mr_status st = out != NULL ? mr_snapshot_write_json(snap, out) : MR_ERR_OUT_OF_MEMORY;
  bool closed = out != NULL && fclose(out) == 0;
  mr_snapshot_destroy(snap);
  if (st != MR_OK || !closed) {
    free(text);
    return NULL;
  }
  return text;
}

static bool ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), m = strlen(suffix);
  return n >= m && strcmp(text + n - m, suffix) == 0;
}

/* Set by the first writer (mr_write_stats_at_exit or the exit handler):
 * the report is written once. */
static atomic_bool at_exit_written;

/* MRCTX_STATS_AT_EXIT's report, once. Failures are reported on stderr,
 * as at exit there is no caller to return them to; the status says the
 * same to mr_write_stats_at_exit's. */
static mr_status write_at_exit_report(void) {
  static const char what[] = "at-exit statistics (MRCTX_STATS_AT_EXIT)";
  const char *target = at_exit_target;
  if (target == NULL || atomic_exchange(&at_exit_written, true)) return MR_OK;
  bool to_stderr = strcmp(target, "stderr") == 0;
  char path[PATH_MAX];
  if (!to_stderr && !mri_expand_path(target, path, sizeof path)) {
    fprintf(stderr,
            "mrctx: MRCTX_STATS_AT_EXIT names a path longer than %d bytes: nothing "
            "written\n",
            PATH_MAX - 1);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_write_stats_at_exit: MRCTX_STATS_AT_EXIT names a path longer than %d "
                     "bytes",
                     PATH_MAX - 1);
  }
  bool json = !to_stderr && ends_with(path, ".json");
  size_t length = 0;
  char *text = json ? render_snapshot(&length) : render_tables(&length);
  mr_status st = MR_OK;
  if (text == NULL) {
    fprintf(stderr, "mrctx: %s not written: out of host memory\n", what);
    st = mri_error(MR_ERR_OUT_OF_MEMORY, "mr_write_stats_at_exit: out of host memory");
  } else if (to_stderr) {
    fwrite(text, 1, length, stderr);
    fflush(stderr);
  } else if (!mri_write_file_replacing(path, text, length, what)) {
    st = mri_error(MR_ERR_INVALID_ARGUMENT, "mr_write_stats_at_exit: %s not written to %s", what,
                   path);
  }
  free(text);
  /* Written once: the records are not needed any more. */
  mri_destroyed_stop();
  return st;
}

/* MRCTX_STATS_AT_EXIT, when the process exits normally (exit(), a return
 * from main), unless mr_write_stats_at_exit wrote it already. */
static void stats_at_exit(void) { (void)write_at_exit_report(); }

mr_status mr_write_stats_at_exit(void) {
  /* Nothing before the first context: the variable is read then. The
   * once call orders this thread after that read. */
  if (!atomic_load(&operators_read)) return MR_OK;
  pthread_once(&operators_once, read_operator_env);
  return write_at_exit_report();
}
