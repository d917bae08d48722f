/*
 * context/sources.h (internal): the sources of a context's specs and the
 * choice among them (sources.c).
 */
#ifndef MRCTX_LIB_CONTEXT_SOURCES_H
#define MRCTX_LIB_CONTEXT_SOURCES_H

#include "config/config_internal.h"
#include "context/tags.h"

/* The override sources, lowest precedence first (the tag's default spec
 * is below them all). */
enum { MRI_SOURCE_OVERRIDE, MRI_SOURCE_FILE, MRI_SOURCE_ENV, MRI_SOURCE_COUNT };

/* An entry for a device the context does not have; mr_context_get_ignored
 * hands out a pointer to its source, which must not move after creation. */
typedef struct mri_ignored_item {
  const char *tag;
  int device;
  mr_spec_source source;
} mri_ignored_item;

/* What a context read: the parsed texts, which its slots' specs point
 * into, so they live as long as the context. */
typedef struct mri_spec_sources {
  mri_config **defaults;                          /* per tag: its default spec */
  mri_config *config[MRI_SOURCE_COUNT];           /* NULL where the source is absent */
  char *where[MRI_SOURCE_COUNT];                  /* the variable's name, the file's path */
  struct mri_entry_key *by_tag[MRI_SOURCE_COUNT]; /* per source: its entries by tag */
  mri_ignored_item *ignored;                      /* entries for devices it lacks */
  size_t ignored_count;
} mri_spec_sources;

/* Parse every tag's default spec (desc->tags) and read the override
 * sources `desc` names -- its text, its config file, its environment
 * variable -- checking each against `tags` (the context's, made from the
 * same `desc`) and `device_count`. On failure the message says which
 * source and where; what was read is freed by mri_sources_free. */
mr_status mri_sources_read(mri_spec_sources *sources, const mri_tags *tags, int device_count,
                           const mr_context_desc *desc);

/* The spec (tag, device) gets: from the highest source that covers it, else
 * the tag's default. OUT: the parsed text it is in, its entry there, and its
 * provenance (status MR_OK, reason ""), all pointing into `sources`. */
void mri_sources_choose(const mri_spec_sources *sources, size_t tag, int device,
                        const mri_config **config, const mri_config_entry **entry,
                        mr_spec_source *source);

void mri_sources_free(mri_spec_sources *sources, size_t tag_count);

#endif /* MRCTX_LIB_CONTEXT_SOURCES_H */
