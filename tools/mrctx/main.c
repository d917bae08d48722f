/*
 * mrctx: inspect and exercise mrctx from the command line.
 *
 *   mrctx VERB [ARGS]     run a verb (mrctx --help lists them)
 *   mrctx help VERB       a verb's help (same as mrctx VERB --help)
 *   mrctx --version
 */
#include <stdio.h>
#include <string.h>

#include <mrctx/mrctx.h>

#include "commands.h"
#include "core/variables.h"

typedef struct mrctx_verb {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
} mrctx_verb;

static const mrctx_verb verbs[] = {
    {"info", "show the CUDA driver, the devices and their memory pools", mrctx_cmd_info},
    {"resolve", "show what a context's tags and overrides resolve to", mrctx_cmd_resolve},
    {"replay", "replay an allocation log against resource specs and compare them",
     mrctx_cmd_replay},
    {"plot", "draw memory in use over time from allocation logs as SVG", mrctx_cmd_plot},
    {"export", "write logs or snapshots for Perfetto, chrome://tracing or PyTorch's memory_viz",
     mrctx_cmd_export},
    {"snapshot", "show a snapshot file: who held the memory, by library and tag",
     mrctx_cmd_snapshot},
#if MRCTX_HAVE_BENCH
    {"bench", "time mrctx against the raw driver pools and cub on a GPU", mrctx_cmd_bench},
#endif
};

#define VERB_COUNT (sizeof verbs / sizeof verbs[0])

/* The entries of core/variables.c's table that `readers` read, or with
 * `readers` 0 those the library reads and the command does not: the name
 * and its value's syntax in 25 columns, then the help's lines. */
static void print_variables(FILE *out, unsigned readers) {
  for (int id = 0; id < MRI_VAR_COUNT; id++) {
    const mri_variable *v = mri_variable_info((mri_variable_id)id);
    if (readers != 0 ? (v->read_by & readers) == 0 : v->read_by != MRI_VAR_READ_BY_LIBRARY)
      continue;
    int width = fprintf(out, "  %s%s%s", v->name, v->syntax[0] != '\0' ? "=" : "", v->syntax);
    fprintf(out, "%*s", width + 2 > 27 ? 2 : 27 - width, "");
    for (const char *line = v->help; *line != '\0';) {
      size_t n = strcspn(line, "\n");
      fprintf(out, "%s%.*s\n", line == v->help ? "" : "                           ", (int)n, line);
      line += n + (line[n] == '\n');
    }
  }
}

static void usage(FILE *out) {
  fprintf(out, "usage: mrctx VERB [ARGS]\n"
               "       mrctx help VERB | mrctx VERB --help\n"
               "       mrctx --version\n"
               "\n"
               "Memory resource contexts for GPU libraries (CUDA 13 driver pools).\n"
               "\n"
               "verbs:\n");
  for (size_t i = 0; i < VERB_COUNT; i++)
    fprintf(out, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
  fprintf(out, "\n"
               "environment (man mrctx says more):\n");
  print_variables(out, MRI_VAR_READ_BY_COMMAND);
  fprintf(out, "read by the library in any program that uses it:\n");
  print_variables(out, 0);
  fprintf(out, "  and each library's own variable (MYLIB_MEMORY) overriding its tags\n"
               "\n"
               "Exit status: 0 success, 1 failure, 2 bad usage, 3 mrctx info found no\n"
               "driver or no device.\n");
}

static const mrctx_verb *find_verb(const char *name) {
  for (size_t i = 0; i < VERB_COUNT; i++)
    if (strcmp(verbs[i].name, name) == 0) return &verbs[i];
  return NULL;
}

static int unknown_verb(const char *name) {
  fprintf(stderr, "mrctx: unknown verb '%s' (mrctx --help lists them)\n", name);
  return MRCTX_EXIT_USAGE;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return MRCTX_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "-h") == 0 || strcmp(first, "--help") == 0) {
    usage(stdout);
    return MRCTX_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0) {
    printf("mrctx %s\n", mr_version());
    return MRCTX_EXIT_OK;
  }
  if (strcmp(first, "help") == 0) {
    if (argc == 2) {
      usage(stdout);
      return MRCTX_EXIT_OK;
    }
    const mrctx_verb *verb = find_verb(argv[2]);
    if (verb == NULL) return unknown_verb(argv[2]);
    char help[] = "--help";
    char *help_argv[] = {argv[2], help, NULL};
    return verb->run(2, help_argv);
  }
  if (first[0] == '-') {
    fprintf(stderr, "mrctx: unknown option '%s' (mrctx --help lists the verbs)\n", first);
    return MRCTX_EXIT_USAGE;
  }
  const mrctx_verb *verb = find_verb(first);
  if (verb == NULL) return unknown_verb(first);
  return verb->run(argc - 1, argv + 1);
}
