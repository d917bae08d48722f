/*
 * tags.c: a context's tags (tags.h) and what the library requires of each
 * tag's memory.
 *
 * The description is checked before anything is built: every tag has a
 * valid name and a default spec, no two share a name, and every
 * requirement flag is one this library knows (a newer header's flag is
 * refused, not ignored: the library asked for a guarantee). The tags are
 * then copied and indexed by name -- a library may declare many tags, and
 * checking or looking up each name against all the others would be
 * quadratic.
 *
 * Requirements are checked once the tags are resolved, against the
 * properties of each (tag, device)'s resource, and refused at the spec that
 * asked for the wrong memory, in the words of resource.h.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context/tags.h"

/* The MR_REQUIRE_* flags this library checks. */
#define MRI_REQUIRE_KNOWN \
  (MR_REQUIRE_DEVICE_ACCESSIBLE | MR_REQUIRE_HOST_ACCESSIBLE | MR_REQUIRE_STREAM_ORDERED)

/* ---- checking and indexing the tags ---------------------------------------------- */

static int compare_tag_keys(const void *a, const void *b) {
  const mri_tag_key *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (c != 0) return c;
  return x->index < y->index ? -1 : x->index > y->index;
}

int mri_tags_find(const mri_tags *tags, const char *name) {
  size_t lo = 0, hi = tags->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(tags->by_name[mid].name, name);
    if (c == 0) return (int)tags->by_name[mid].index;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* The first tag (lowest index) whose name an earlier tag already has, among
 * `keys` sorted by name then index. OUT: *second, that tag, and *first, the
 * earliest tag of that name. false if the names are all different. */
static bool find_duplicate(const mri_tag_key *keys, size_t count, size_t *first, size_t *second) {
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

/* The first tag that is wrong in itself: no valid name, or no default
 * spec; desc->tag_count if none is. */
static size_t first_invalid_tag(const mr_context_desc *desc) {
  for (size_t t = 0; t < desc->tag_count; t++) {
    const char *name = desc->tags[t].name;
    if (name == NULL || !mri_is_identifier(name, strlen(name)) ||
        desc->tags[t].default_spec == NULL)
      return t;
  }
  return desc->tag_count;
}

static mr_status invalid_tag_error(const mr_context_desc *desc, size_t t) {
  const char *name = desc->tags[t].name;
  char brief[MRI_BRIEF_CAP];
  if (name == NULL || !mri_is_identifier(name, strlen(name)))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: tag %zu's name '%s' is not valid (letters, digits and '_', not "
                     "starting with a digit)",
                     desc->library, t, name != NULL ? mri_brief(name, brief) : "(null)");
  return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: tag '%s' has no default spec", desc->library,
                   mri_brief(name, brief));
}

static mr_status check_requirement_flags(const mr_context_desc *desc) {
  for (size_t t = 0; desc->tag_requires != NULL && t < desc->tag_count; t++) {
    uint32_t unknown = desc->tag_requires[t] & ~MRI_REQUIRE_KNOWN;
    if (unknown == 0) continue;
    char brief[MRI_BRIEF_CAP];
    return mri_error(MR_ERR_UNSUPPORTED,
                     "%s: tag '%s' requires 0x%x, which this mrctx (%s) does not know "
                     "(it knows MR_REQUIRE_* 0x%x): the program was built against a newer "
                     "header",
                     desc->library, mri_brief(desc->tags[t].name, brief), (unsigned)unknown,
                     mr_version(), (unsigned)MRI_REQUIRE_KNOWN);
  }
  return MR_OK;
}

/* Check the description. OUT: *sorted, every tag of `desc` by name (the
 * caller owns it). Reports what the tags' order would find first: a tag's
 * own name and spec, then whether an earlier tag has the same name. */
static mr_status validate_desc(const mr_context_desc *desc, mri_tag_key **sorted) {
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
  /* Duplicates before the first invalid tag win. */
  size_t valid = first_invalid_tag(desc);
  mri_tag_key *keys = mri_calloc(desc->tag_count, sizeof *keys);
  if (keys == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t t = 0; t < valid; t++) keys[t] = (mri_tag_key){desc->tags[t].name, t};
  qsort(keys, valid, sizeof *keys, compare_tag_keys);
  size_t first = 0, second = 0;
  mr_status st = MR_OK;
  if (find_duplicate(keys, valid, &first, &second)) {
    char brief[MRI_BRIEF_CAP];
    st = mri_error(MR_ERR_INVALID_ARGUMENT, "%s: tags %zu and %zu are both named '%s'", lib, first,
                   second, mri_brief(desc->tags[second].name, brief));
  } else if (valid < desc->tag_count) {
    st = invalid_tag_error(desc, valid);
  } else {
    st = check_requirement_flags(desc);
  }
  if (st != MR_OK) {
    free(keys);
    return st;
  }
  *sorted = keys;
  return MR_OK;
}

static mr_status make_list(mri_tags *tags) {
  size_t length = 1;
  for (size_t t = 0; t < tags->count; t++) length += strlen(tags->names[t]) + 2;
  tags->list = mri_host_malloc(length);
  if (tags->list == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory creating the %s context",
                     tags->library);
  size_t n = 0;
  for (size_t t = 0; t < tags->count; t++)
    n += (size_t)snprintf(tags->list + n, length - n, "%s%s", t > 0 ? ", " : "", tags->names[t]);
  return MR_OK;
}

mr_status mri_tags_make(mri_tags *tags, const mr_context_desc *desc) {
  *tags = (mri_tags){0};
  mr_status st = validate_desc(desc, &tags->by_name);
  if (st != MR_OK) return st;
  tags->count = desc->tag_count;
  tags->library = mri_strdup(desc->library);
  if (tags->library == NULL) return MR_ERR_OUT_OF_MEMORY;
  tags->names = mri_calloc(tags->count, sizeof *tags->names);
  if (tags->names == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t t = 0; t < tags->count; t++) {
    tags->names[t] = mri_strdup(desc->tags[t].name);
    if (tags->names[t] == NULL) return MR_ERR_OUT_OF_MEMORY;
  }
  /* The sorted index now names the tags' own copies. */
  for (size_t i = 0; i < tags->count; i++)
    tags->by_name[i].name = tags->names[tags->by_name[i].index];
  st = make_list(tags);
  if (st != MR_OK) return st;
  if (desc->tag_requires != NULL) {
    tags->requires = mri_calloc(tags->count, sizeof *tags->requires);
    if (tags->requires == NULL) return MR_ERR_OUT_OF_MEMORY;
    memcpy(tags->requires, desc->tag_requires, tags->count * sizeof *tags->requires);
  }
  return MR_OK;
}

void mri_tags_free(mri_tags *tags) {
  for (size_t t = 0; tags->names != NULL && t < tags->count; t++) free(tags->names[t]);
  free(tags->names);
  free(tags->by_name);
  free(tags->list);
  free(tags->requires);
  free(tags->library);
  *tags = (mri_tags){0};
}

/* ---- what the library requires of a tag's memory ---------------------------------- */

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

/* Where a spec came from, for the message: "the environment variable
 * MYLIB_MEMORY", "the config file mylib.conf", ... */
static void source_words(const mr_spec_source *source, char *buf, size_t cap) {
  switch (source->origin) {
  case MR_SPEC_DEFAULT:
    snprintf(buf, cap, "its default spec");
    return;
  case MR_SPEC_OVERRIDE:
    snprintf(buf, cap, "the override text");
    return;
  case MR_SPEC_FILE:
    snprintf(buf, cap, "the config file %s", source->where);
    return;
  case MR_SPEC_ENV:
    snprintf(buf, cap, "the environment variable %s", source->where);
    return;
  }
  snprintf(buf, cap, "its spec");
}

mr_status mri_tags_check_requirements(const mri_tags *tags, int tag, int device,
                                      const mr_resource_props *props, const mr_spec_source *source,
                                      const mri_text_source *text, mri_pos pos) {
  if (tags->requires == NULL || tags->requires[tag] == 0) return MR_OK;
  uint32_t wanted = tags->requires[tag];
  uint32_t have = (props->device_accessible ? MR_REQUIRE_DEVICE_ACCESSIBLE : 0) |
                  (props->host_accessible ? MR_REQUIRE_HOST_ACCESSIBLE : 0) |
                  (props->stream_ordered ? MR_REQUIRE_STREAM_ORDERED : 0);
  uint32_t missing = wanted & ~have;
  if (missing == 0) return MR_OK;
  char needs[96], lacks[96], from[400], brief[MRI_BRIEF_CAP];
  requirement_words(wanted, ", ", needs, sizeof needs);
  requirement_words(missing, " nor ", lacks, sizeof lacks);
  source_words(source, from, sizeof from);
  return mri_config_error(text, pos, MR_ERR_CONFIG,
                          "%s: tag '%s' needs %s memory, but on device %d %s gives it '%s': "
                          "%s, which is not %s",
                          tags->library, tags->names[tag], needs, device, from,
                          mri_brief(source->spec, brief), memory_words(props->kind), lacks);
}
