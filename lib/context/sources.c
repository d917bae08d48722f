/*
 * sources.c: where a context's specs come from, and which one each (tag,
 * device) gets.
 *
 * Below everything is the tag's default spec, from the library. Above it,
 * lowest first, the application's override text, the config file it names
 * and the environment variable it names; an operator's variable thus beats
 * the application's file, which beats its text. Each source is parsed and
 * checked whole at creation -- every entry's tag is one of the context's,
 * every name it uses is registered -- and an entry for a device the process
 * does not have is kept aside as ignored (mr_context_get_ignored), not an
 * error: one config serves machines with different GPU counts.
 *
 * Within a source, tag@device beats tag, and a later entry beats an earlier
 * one. Entries are indexed by tag, so choosing among them costs each (tag,
 * device) only its own entries. What is chosen keeps its provenance
 * (mr_spec_source: which source, where, which line), which
 * mr_context_get_source and the messages report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context/sources.h"

static const mr_spec_origin source_origin[MRI_SOURCE_COUNT] = {MR_SPEC_OVERRIDE, MR_SPEC_FILE,
                                                               MR_SPEC_ENV};

/* An override source's entry and the tag it sets, kept sorted by tag (then
 * by position), so each (tag, device) looks only at its own entries. */
typedef struct mri_entry_key {
  size_t tag;
  size_t entry;
} entry_key;

/* The tags and devices the sources are read for: a description of the
 * context being made, not the context itself. */
typedef struct target {
  const mri_tags *tags;
  int device_count;
} target;

static bool tag_known(void *user, const char *name) { return mri_tags_find(user, name) >= 0; }

/* The whole of a named config file. A missing or unreadable file is an
 * error: the application asked for it. Only regular files are read: the
 * file is opened without blocking (a FIFO with no writer would otherwise
 * hold context creation forever) and checked with fstat before any read. */
static mr_status read_file(const char *path, char **text, size_t *length) {
  *text = NULL;
  *length = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return mri_error(MR_ERR_CONFIG, "config file '%s' cannot be opened: %s", path, strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0) {
    mr_status st =
        mri_error(MR_ERR_CONFIG, "config file '%s' cannot be examined: %s", path, strerror(errno));
    close(fd);
    return st;
  }
  if (!S_ISREG(info.st_mode)) {
    close(fd);
    return mri_error(MR_ERR_CONFIG, "config file '%s' is not a regular file (it is %s)", path,
                     mri_file_type_words(info.st_mode));
  }
  /* Room for one byte past the limit: a file of exactly the limit is read
   * whole, and only a longer one is refused. */
  size_t capacity = 4096, n = 0;
  char *buf = mri_host_malloc(capacity);
  mr_status st = MR_OK;
  if (buf == NULL) st = mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory reading '%s'", path);
  while (st == MR_OK) {
    if (n > MRI_CONFIG_FILE_MAX) {
      st = mri_error(MR_ERR_CONFIG, "config file '%s' is larger than 1 MiB (%zu bytes)", path,
                     (size_t)MRI_CONFIG_FILE_MAX);
      break;
    }
    if (n == capacity) {
      size_t grown_capacity = 2 * capacity;
      if (grown_capacity > MRI_CONFIG_FILE_MAX + 1) grown_capacity = MRI_CONFIG_FILE_MAX + 1;
      char *grown = mri_host_realloc(buf, grown_capacity);
      if (grown == NULL) {
        st = mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory reading '%s'", path);
        break;
      }
      buf = grown;
      capacity = grown_capacity;
    }
    ssize_t got = read(fd, buf + n, capacity - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      st = mri_error(MR_ERR_CONFIG, "config file '%s' cannot be read: %s", path, strerror(errno));
      break;
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  close(fd);
  if (st != MR_OK) {
    free(buf);
    return st;
  }
  *text = buf;
  *length = n;
  return MR_OK;
}

static int compare_entry_keys(const void *a, const void *b) {
  const entry_key *x = a, *y = b;
  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Check an override source's entries: known tags, known names; index them
 * by tag; note the entries for devices the context does not have. */
static mr_status check_source(mri_spec_sources *s, const target *to, int which) {
  const mri_config *config = s->config[which];
  const mri_tags *tags = to->tags;
  if (config->entry_count > 0) {
    entry_key *keys = mri_calloc(config->entry_count, sizeof *keys);
    if (keys == NULL) return MR_ERR_OUT_OF_MEMORY;
    s->by_tag[which] = keys;
  }
  size_t ignored = 0;
  int device_count = to->device_count;
  for (size_t i = 0; i < config->entry_count; i++) {
    const mri_config_entry *e = &config->entries[i];
    int tag = mri_tags_find(tags, e->tag);
    char brief[MRI_BRIEF_CAP];
    if (tag < 0)
      return mri_config_error(&config->source, e->tag_pos, MR_ERR_CONFIG,
                              "%s has no tag '%s' (tags: %s)", tags->library,
                              mri_brief(e->tag, brief), tags->list);
    s->by_tag[which][i] = (entry_key){(size_t)tag, i};
    mr_status st =
        mri_spec_check_names(&config->source, e->spec, tag_known, (void *)tags, tags->list);
    if (st != MR_OK) return st;
    if (e->device >= device_count) ignored++;
  }
  if (config->entry_count > 0)
    qsort(s->by_tag[which], config->entry_count, sizeof *s->by_tag[which], compare_entry_keys);
  if (ignored == 0) return MR_OK;
  mri_ignored_item *grown =
      mri_host_realloc(s->ignored, (s->ignored_count + ignored) * sizeof *s->ignored);
  if (grown == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory creating the %s context",
                     tags->library);
  s->ignored = grown;
  for (size_t i = 0; i < config->entry_count; i++) {
    const mri_config_entry *e = &config->entries[i];
    if (e->device < device_count) continue;
    s->ignored[s->ignored_count++] = (mri_ignored_item){
        .tag = e->tag,
        .device = e->device,
        .source = {.size = sizeof(mr_spec_source),
                   .origin = source_origin[which],
                   .where = s->where[which] != NULL ? s->where[which] : "",
                   .line = e->tag_pos.line,
                   .spec = e->spec_text,
                   .status = MR_OK,
                   .reason = ""},
    };
  }
  return MR_OK;
}

static mr_status add_source(mri_spec_sources *s, const target *to, int which, const char *name,
                            bool is_file, const char *text, size_t length) {
  if (which != MRI_SOURCE_OVERRIDE) {
    s->where[which] = mri_strdup(name);
    if (s->where[which] == NULL) return MR_ERR_OUT_OF_MEMORY;
  }
  mri_text_source src = {.name = name, .is_file = is_file, .text = text, .length = length};
  mr_status st = mri_config_parse(&src, &s->config[which]);
  if (st != MR_OK) return st;
  return check_source(s, to, which);
}

static mr_status read_overrides(mri_spec_sources *s, const target *to,
                                const mr_context_desc *desc) {
  mr_status st;
  if (desc->overrides != NULL) {
    st = add_source(s, to, MRI_SOURCE_OVERRIDE, "override text", false, desc->overrides,
                    strlen(desc->overrides));
    if (st != MR_OK) return st;
  }
  if (desc->config_file != NULL && desc->config_file[0] != '\0') {
    char *text;
    size_t length;
    st = read_file(desc->config_file, &text, &length);
    if (st != MR_OK) return st;
    /* A UTF-8 byte-order mark (editors on Windows write one) is no part of
     * the text; lines and columns count from after it. */
    size_t bom = length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    st = add_source(s, to, MRI_SOURCE_FILE, desc->config_file, true, text + bom, length - bom);
    free(text);
    if (st != MR_OK) return st;
  }
  if (desc->env_var != NULL && desc->env_var[0] != '\0') {
    const char *value = getenv(desc->env_var);
    if (value != NULL) {
      st = add_source(s, to, MRI_SOURCE_ENV, desc->env_var, false, value, strlen(value));
      if (st != MR_OK) return st;
    }
  }
  return MR_OK;
}

static mr_status parse_defaults(mri_spec_sources *s, const mri_tags *tags,
                                const mr_context_desc *desc) {
  s->defaults = mri_calloc(tags->count, sizeof *s->defaults);
  if (s->defaults == NULL) return MR_ERR_OUT_OF_MEMORY;
  for (size_t t = 0; t < tags->count; t++) {
    char name[256];
    snprintf(name, sizeof name, "default spec of %.100s tag '%.100s'", tags->library,
             tags->names[t]);
    const char *text = desc->tags[t].default_spec;
    mri_text_source src = {.name = name, .text = text, .length = strlen(text)};
    mr_status st = mri_spec_parse(&src, &s->defaults[t]);
    if (st != MR_OK) return st;
    const mri_config *config = s->defaults[t];
    st = mri_spec_check_names(&config->source, config->entries[0].spec, tag_known, (void *)tags,
                              tags->list);
    if (st != MR_OK) return st;
  }
  return MR_OK;
}

mr_status mri_sources_read(mri_spec_sources *s, const mri_tags *tags, int device_count,
                           const mr_context_desc *desc) {
  target to = {.tags = tags, .device_count = device_count};
  mr_status st = parse_defaults(s, tags, desc);
  if (st == MR_OK) st = read_overrides(s, &to, desc);
  return st;
}

/* The highest source covering (tag, device) wins; within it tag@device
 * beats tag, and a later entry beats an earlier one. */
void mri_sources_choose(const mri_spec_sources *s, size_t tag, int device,
                        const mri_config **config_out, const mri_config_entry **entry,
                        mr_spec_source *source) {
  for (int which = MRI_SOURCE_COUNT - 1; which >= 0; which--) {
    const mri_config *config = s->config[which];
    if (config == NULL) continue;
    /* The tag's entries, in the order they were written. */
    const entry_key *keys = s->by_tag[which];
    size_t lo = 0, hi = config->entry_count;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (keys[mid].tag < tag)
        lo = mid + 1;
      else
        hi = mid;
    }
    const mri_config_entry *all = NULL, *exact = NULL;
    for (size_t k = lo; k < config->entry_count && keys[k].tag == tag; k++) {
      const mri_config_entry *e = &config->entries[keys[k].entry];
      if (e->device == device) exact = e;
      if (e->device < 0) all = e;
    }
    const mri_config_entry *chosen = exact != NULL ? exact : all;
    if (chosen == NULL) continue;
    *config_out = config;
    *entry = chosen;
    *source = (mr_spec_source){.size = sizeof(mr_spec_source),
                               .origin = source_origin[which],
                               .where = s->where[which] != NULL ? s->where[which] : "",
                               .line = chosen->tag_pos.line,
                               .spec = chosen->spec_text,
                               .status = MR_OK,
                               .reason = ""};
    return;
  }
  const mri_config *config = s->defaults[tag];
  *config_out = config;
  *entry = &config->entries[0];
  *source = (mr_spec_source){.size = sizeof(mr_spec_source),
                             .origin = MR_SPEC_DEFAULT,
                             .where = "",
                             .line = (*entry)->spec->pos.line,
                             .spec = (*entry)->spec_text,
                             .status = MR_OK,
                             .reason = ""};
}

void mri_sources_free(mri_spec_sources *s, size_t tag_count) {
  for (size_t t = 0; s->defaults != NULL && t < tag_count; t++) mri_config_free(s->defaults[t]);
  free(s->defaults);
  for (int i = 0; i < MRI_SOURCE_COUNT; i++) {
    mri_config_free(s->config[i]);
    free(s->where[i]);
    free(s->by_tag[i]);
  }
  free(s->ignored);
}
