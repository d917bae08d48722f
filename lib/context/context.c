/*
 * context.c: a library's memory policy, one resource per tag and device:
 * the context's life cycle and lookup.
 *
 * Creation does all the work: it checks the library's tags (tags.c), takes
 * each (tag, device)'s spec from its sources (sources.c: the default,
 * override text, config file, environment variable), resolves every tag
 * for every device -- @tag sharing the other tag's instance, cycles
 * refused -- checks what the library requires of each tag's memory
 * (tags.c), and wraps each in a stats adaptor for the per-tag statistics.
 * After that the context never changes: the table is a flat array read
 * without locks, and ctx_get_mr is a bounds check and a load. What a
 * context prints -- its resolved table, its statistics, the operator's
 * MRCTX_VERBOSE and MRCTX_STATS_AT_EXIT -- is report.c's.
 *
 * Live contexts are also on a process-wide list, for snapshots: a context
 * joins it as the last step of creation and leaves it as the first step of
 * destruction, under one mutex that nothing on the allocation path takes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptors/adaptors_internal.h"
#include "config/config_internal.h"
#include "context/context_internal.h"
#include "context/snapshot_internal.h"
#include "context/sources.h"
#include "context/tags.h"
#include "core/reclaim.h"
#include "driver/driver_internal.h"

enum { SLOT_UNRESOLVED, SLOT_RESOLVING, SLOT_DONE };

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
  /* The lookup table first: all the allocation path reads (and tags.count). */
  mr_resource **table; /* [tag * device_count + device], stats wrappers */
  int device_count;
  mri_tags tags; /* the library's name, the tags' names and requirements (tags.c) */

  slot *slots;
  mri_spec_sources sources; /* the specs' texts (sources.c) */
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
  } else if (tag < 0 || (size_t)tag >= ctx->tags.count) {
    mri_error(MR_ERR_INVALID_ARGUMENT, "%s: tag %d does not exist (the context has %zu tags)",
              ctx->tags.library, tag, ctx->tags.count);
  } else {
    mri_error(MR_ERR_NO_DEVICE, "%s: device %d is not one of the context's %d device slot%s",
              ctx->tags.library, device, ctx->device_count, ctx->device_count == 1 ? "" : "s");
  }
  return NULL;
}

static inline mr_resource *lookup(const mr_context *ctx, int tag, int device) {
  if (MRI_LIKELY(ctx != NULL && (unsigned)tag < ctx->tags.count &&
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
  int tag = mri_tags_find(&b->ctx->tags, name);
  char brief[MRI_BRIEF_CAP];
  if (tag < 0)
    return mri_config_error(source, pos, MR_ERR_CONFIG, "unknown tag '%s' (tags: %s)",
                            mri_brief(name, brief), b->ctx->tags.list);
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
    int w = snprintf(path + n, cap - n, "%s -> ", b->ctx->tags.names[b->chain[i]]);
    if (w < 0) break;
    n += (size_t)w;
  }
  if (n < cap) snprintf(path + n, cap - n, "%s", b->ctx->tags.names[tag]);
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
  s->reason = mri_asprintf("%s:%s on device %d: %s", ctx->tags.library, ctx->tags.names[tag],
                           device, resolved->reason != NULL ? resolved->reason : "unavailable");
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
  mri_oom_report(s->ctx->tags.library, s->ctx->tags.names[s->tag], s->device, bytes, stream);
}

/* Resolve every tag on every device, each once (@tag resolves the other
 * tag on the way, and finds it done after). */
static mr_status resolve_all(mr_context *ctx, bool describe_only) {
  builder b = {.ctx = ctx, .describe_only = describe_only};
  b.chain = mri_calloc(ctx->tags.count, sizeof *b.chain);
  if (b.chain == NULL) return MR_ERR_OUT_OF_MEMORY;
  mr_status st = MR_OK;
  for (int device = 0; device < ctx->device_count && st == MR_OK; device++) {
    for (size_t tag = 0; tag < ctx->tags.count && st == MR_OK; tag++) {
      b.chain_length = 0;
      st = resolve_slot(&b, (int)tag, device, NULL, (mri_pos){0}, 0);
    }
  }
  free(b.chain);
  return st;
}

/* Slot `i`, resolved: check what the library requires of it and wrap it
 * in the per-tag statistics, as table entry `i`. */
static mr_status finish_slot(mr_context *ctx, size_t i, bool describe_only) {
  slot *s = &ctx->slots[i];
  s->ctx = ctx;
  s->tag = (int)(i / (size_t)ctx->device_count);
  s->device = (int)(i % (size_t)ctx->device_count);
  mr_status st = mri_tags_check_requirements(&ctx->tags, s->tag, s->device, &s->inner->props,
                                             &s->source, &s->config->source, s->entry->spec->pos);
  if (st != MR_OK) return st;
  /* Only described: the tree was built without effects (core.h), and
   * none of it is kept: the tag is an inert stand-in that describes
   * itself as the tree did, so nothing can allocate through it. (A tag
   * that could not be built is such a stand-in already.) */
  if (describe_only && s->source.status == MR_OK) {
    mr_resource *inert = NULL;
    st = mri_described_resource_create(&s->inner->props, mr_resource_describe(s->inner), NULL,
                                       &inert);
    if (st != MR_OK) return st;
    mr_resource_release(s->inner);
    s->inner = inert;
  }
  char owner[256];
  snprintf(owner, sizeof owner, "%s:%s", ctx->tags.library, ctx->tags.names[s->tag]);
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
                               exact != NULL ? MR_STATS_PEAK_EXACT : MR_STATS_PEAK_SHARDED, &hooks,
                               &ctx->table[i]);
  if (st != MR_OK) return st;
  mri_resource_set_owner(ctx->table[i], owner);
  /* The chain's resources that keep idle memory are named after the
   * first tag that holds them, in snapshots, MRCTX_VERBOSE and the
   * messages of allocations that still fail after a reclaim. */
  if (!describe_only)
    for (const mr_resource *r = s->inner; r != NULL; r = mr_resource_upstream(r))
      mri_reclaimer_label(r, owner);
  return MR_OK;
}

static mr_status build_table(mr_context *ctx, bool describe_only) {
  size_t slots = ctx->tags.count * (size_t)ctx->device_count;
  mr_status st = resolve_all(ctx, describe_only);
  for (size_t i = 0; i < slots && st == MR_OK; i++) st = finish_slot(ctx, i, describe_only);
  /* The wrappers hold the references now. */
  for (size_t i = 0; i < slots; i++) {
    mr_resource_release(ctx->slots[i].inner);
    ctx->slots[i].inner = NULL;
  }
  return st;
}

/* The lookup table and the slots, for every device the process has. No
 * driver, or no device: one slot, where device tags stand in as resources
 * that fail with the reason. */
static mr_status allocate_table(mr_context *ctx) {
  int count = 0;
  if (mr_device_count(&count) != MR_OK || count <= 0) count = 1;
  ctx->device_count = count;
  size_t slots = ctx->tags.count * (size_t)count;
  ctx->slots = mri_calloc(slots, sizeof *ctx->slots);
  ctx->table = mri_calloc(slots, sizeof *ctx->table);
  if (ctx->slots == NULL || ctx->table == NULL) return MR_ERR_OUT_OF_MEMORY;
  return MR_OK;
}

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
  mr_context *ctx = mri_calloc(1, sizeof *ctx);
  if (ctx == NULL) return MR_ERR_OUT_OF_MEMORY;
  ctx->describe_only = (desc->flags & MR_CONTEXT_DESCRIBE_ONLY) != 0;
  /* The tags first: the sources and the resolver read them, not the
   * context being built. */
  st = mri_tags_make(&ctx->tags, desc);
  if (st == MR_OK) st = allocate_table(ctx);
  if (st == MR_OK) st = mri_sources_read(&ctx->sources, &ctx->tags, ctx->device_count, desc);
  if (st == MR_OK) {
    for (size_t t = 0; t < ctx->tags.count; t++) {
      for (int d = 0; d < ctx->device_count; d++) {
        slot *s = &ctx->slots[t * (size_t)ctx->device_count + (size_t)d];
        mri_sources_choose(&ctx->sources, t, d, &s->config, &s->entry, &s->source);
      }
    }
    st = build_table(ctx, ctx->describe_only);
  }
  if (st != MR_OK) {
    mr_context_destroy(ctx);
    return st;
  }
  live_add(ctx);
  *out = ctx;
  mri_report_context_created(ctx);
  return MR_OK;
}

void mr_context_destroy(mr_context *ctx) {
  if (ctx == NULL) return;
  /* Its final figures for MRCTX_STATS_AT_EXIT, while it is whole: a
   * context that was created (on the live list) and could allocate. */
  if (ctx->live_id != 0 && !ctx->describe_only) mri_destroyed_keep(ctx, ctx->live_id);
  live_remove(ctx);
  size_t slots = ctx->slots != NULL ? ctx->tags.count * (size_t)ctx->device_count : 0;
  for (size_t i = 0; i < slots; i++) {
    if (ctx->table != NULL) mr_resource_release(ctx->table[i]);
    mr_resource_release(ctx->slots[i].inner);
    free(ctx->slots[i].reason);
  }
  mri_sources_free(&ctx->sources, ctx->tags.count);
  mri_tags_free(&ctx->tags);
  free(ctx->slots);
  free(ctx->table);
  free(ctx);
}

/* ---- reading a context ---------------------------------------------------------- */

const char *mr_context_library(const mr_context *ctx) {
  return ctx != NULL ? ctx->tags.library : "";
}

size_t mr_context_tag_count(const mr_context *ctx) { return ctx != NULL ? ctx->tags.count : 0; }

const char *mr_context_tag_name(const mr_context *ctx, int tag) {
  if (ctx == NULL || tag < 0 || (size_t)tag >= ctx->tags.count) return NULL;
  return ctx->tags.names[tag];
}

int mr_context_device_count(const mr_context *ctx) { return ctx != NULL ? ctx->device_count : 0; }

bool mri_context_describe_only(const mr_context *ctx) { return ctx->describe_only; }

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
  if (tag < 0 || (size_t)tag >= ctx->tags.count)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: %s has no tag %d (it has %zu)", what,
                     ctx->tags.library, tag, ctx->tags.count);
  if (device < 0 || device >= ctx->device_count)
    return mri_error(MR_ERR_NO_DEVICE, "%s: device %d is not one of %s's %d device slot%s", what,
                     device, ctx->tags.library, ctx->device_count,
                     ctx->device_count == 1 ? "" : "s");
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
  if (tag < -1 || (tag >= 0 && (size_t)tag >= ctx->tags.count))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %s has no tag %d (it has %zu; -1 resets every tag)", what,
                     ctx->tags.library, tag, ctx->tags.count);
  if (device < -1)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: device %d is not a device (-1 resets every device)", what, device);
  /* As mr_context_get_stats says it of a device past the context's. */
  if (device >= ctx->device_count)
    return mri_error(MR_ERR_NO_DEVICE, "%s: device %d is not one of %s's %d device slot%s", what,
                     device, ctx->tags.library, ctx->device_count,
                     ctx->device_count == 1 ? "" : "s");
  size_t first_tag = tag == -1 ? 0 : (size_t)tag;
  size_t end_tag = tag == -1 ? ctx->tags.count : (size_t)tag + 1;
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
