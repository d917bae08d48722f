/*
 * context/tags.h (internal): a context's tags -- their names, an index by
 * name, the list messages quote, and what the library requires of each
 * tag's memory (tags.c).
 *
 * They are made first at creation, from the description alone: the
 * sources (sources.c) and the resolver read them, never the context that
 * is still being built. Immutable once made; read without locks.
 */
#ifndef MRCTX_LIB_CONTEXT_TAGS_H
#define MRCTX_LIB_CONTEXT_TAGS_H

#include "config/config_internal.h"

/* A tag's name and index. */
typedef struct mri_tag_key {
  const char *name;
  size_t index;
} mri_tag_key;

typedef struct mri_tags {
  size_t count;
  char *library;        /* the library's name (desc.library) */
  char **names;         /* [count] */
  mri_tag_key *by_name; /* every tag, sorted by name: found by binary search */
  char *list;           /* "temp, pinned, result", for messages */
  uint32_t *requires;   /* per tag: MR_REQUIRE_* flags; NULL: none */
} mri_tags;

/* Check `desc`'s library name and tags (names, default specs, duplicates,
 * requirement flags this library knows) and copy them into `tags`. On
 * failure the message says which tag and why, reporting what the tags'
 * order finds first; what was made is freed by mri_tags_free. */
mr_status mri_tags_make(mri_tags *tags, const mr_context_desc *desc);

void mri_tags_free(mri_tags *tags);

/* The index of the tag called `name`, -1 if there is none. */
int mri_tags_find(const mri_tags *tags, const char *name);

/* What the library requires of `tag`'s memory, against `props`, the
 * properties of the resource its spec on `device` resolved to (a
 * stand-in's are those of what it stands for). Refused with MR_ERR_CONFIG
 * at the spec: `text` and `pos` are where it was written, `source` its
 * provenance (the message names the variable, the file, the default). */
mr_status mri_tags_check_requirements(const mri_tags *tags, int tag, int device,
                                      const mr_resource_props *props, const mr_spec_source *source,
                                      const mri_text_source *text, mri_pos pos);

#endif /* MRCTX_LIB_CONTEXT_TAGS_H */
