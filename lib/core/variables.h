/*
 * variables.h (internal): the environment variables of mrctx, in one table.
 *
 * Every MRCTX_* variable the library or the mrctx command reads, and the
 * NVTX variable the library looks at, is an entry of the table in
 * variables.c: its name, the value it takes as `mrctx --help` shows it,
 * its default, the help line, and the page of docs/ that tells more. The
 * library and the command read them only through mri_variable_get (one
 * getenv), and `mrctx --help` prints its list from the table;
 * tests/docs/check_env.py fails on any other getenv of an MRCTX_ variable and
 * on an entry missing from --help, the man page, README.md's Environment
 * table or its page.
 *
 * variables.c is built into the static library mrctx_text with text.c
 * (core/text.h says why), which libmrctx and the command both link: it
 * keeps no state and calls nothing of the rest of the library. Each
 * reader keeps its own when-to-read rule (once at first use, at the first
 * context, ...), as documented for that variable.
 */
#ifndef MRCTX_LIB_CORE_VARIABLES_H
#define MRCTX_LIB_CORE_VARIABLES_H

#include <stdbool.h>

/* In the order `mrctx --help` lists them. */
typedef enum {
  MRI_VAR_CUDA_DRIVER,
  MRI_VAR_BENCH_MEMORY,
  MRI_VAR_BENCH_TRACE,
  MRI_VAR_DEBUG,
  MRI_VAR_IDLE_TIME,
  MRI_VAR_OOM_SNAPSHOT,
  MRI_VAR_STATS_AT_EXIT,
  MRI_VAR_VERBOSE,
  MRI_VAR_NVTX_INJECTION,
  MRI_VAR_COUNT
} mri_variable_id;

/* What a value is, as its reader parses it. */
typedef enum {
  MRI_VAR_FLAG,     /* on unless unset, empty or "0" (mri_variable_flag) */
  MRI_VAR_DURATION, /* digits and a unit, 0 or off (core/decay.h) */
  MRI_VAR_PATH,     /* a file; some take a template (%p: the process id) */
  MRI_VAR_SPEC,     /* text in the spec language (docs/configuration.md) */
} mri_variable_type;

/* Who reads a variable (a set of these bits). */
enum {
  MRI_VAR_READ_BY_LIBRARY = 1u << 0, /* any program that uses libmrctx */
  MRI_VAR_READ_BY_COMMAND = 1u << 1, /* the mrctx command itself */
};

typedef struct {
  const char *name; /* "MRCTX_DEBUG" */
  mri_variable_type type;
  const char *syntax;       /* the value as --help shows it ("1", "PATH"); "" for none */
  const char *default_text; /* what holds when unset, in words */
  const char *help;         /* --help's text: lines of at most 52 bytes, split by \n */
  const char *doc;          /* the page that documents it, from the source root */
  unsigned read_by;         /* MRI_VAR_READ_BY_* bits */
} mri_variable;

/* The entry of `id` (MRI_VAR_COUNT entries, from 0; static storage). */
const mri_variable *mri_variable_info(mri_variable_id id);

/* The value of `id` in the environment now, NULL when unset: the one
 * getenv of mrctx's variables. Not to be called while another thread may
 * setenv (as getenv). The text belongs to the environment: copy it to
 * keep it. */
const char *mri_variable_get(mri_variable_id id);

/* Whether flag `id` is on: set, and to anything but "" and "0" ("1", "yes"
 * and "false" are all on). The one such test for every flag. */
bool mri_variable_flag(mri_variable_id id);

#endif
