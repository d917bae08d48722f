/*
 * cmd_resolve.c: `mrctx resolve`: show what a context would resolve to.
 *
 *   mrctx resolve --tag NAME=SPEC ... [--env VAR] [--config FILE]
 *                 [--set TEXT] [--library NAME]
 *
 * Resolves a context exactly as a library would -- the tags with their
 * default specs, then the override text, the config file and the
 * environment variable, in that order of precedence -- and prints, for each
 * tag and device, the resolved resource and where its spec came from, the
 * entries ignored for devices that are not there, and the tags that stand
 * in for a missing driver or device (mr_context_print_resolved: the
 * library's table, which MRCTX_VERBOSE prints too). The context is created
 * with MR_CONTEXT_DESCRIBE_ONLY: nothing is built, so checking a running
 * job's variable truncates none of its log files, creates no pool and takes
 * no memory. Written against the public API only.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mrctx/mrctx.h>

#include "commands.h"

static void usage(FILE *out) {
  fputs("usage: mrctx resolve --tag NAME=SPEC [--tag NAME=SPEC ...] [--env VAR]\n"
        "                     [--config FILE] [--set TEXT] [--library NAME]\n"
        "\n"
        "Resolve a context with these tags, as a library would, and show for each\n"
        "tag and device the resource it resolves to and where its spec came from.\n"
        "Nothing is built: no file is written (a log's file is left as it is), no\n"
        "pool is created, no memory is taken. A log's file that creation would\n"
        "refuse (its directory missing or not writable) is an error here too.\n"
        "\n"
        "  --tag NAME=SPEC  a tag and its default spec (the library's choice)\n"
        "  --env VAR        read overrides from the environment variable VAR\n"
        "  --config FILE    read overrides from FILE (an error if it is missing)\n"
        "  --set TEXT       override text, as the application would pass it\n"
        "  --library NAME   the library's name in messages (default: resolve)\n"
        "  -h, --help       show this help\n"
        "\n"
        "Precedence, lowest first: --tag < --set < --config < --env.\n"
        "Exit status: 0 resolved, 2 bad usage or a bad spec, 1 anything else.\n",
        out);
}

typedef struct options {
  mr_tag *tags;
  size_t tag_count;
  mr_context_desc desc;
} options;

static void free_options(options *o) {
  for (size_t i = 0; i < o->tag_count; i++) free((char *)o->tags[i].name);
  free(o->tags);
}

static int add_tag(options *o, const char *text) {
  const char *eq = strchr(text, '=');
  if (eq == NULL || eq == text) {
    fprintf(stderr, "mrctx resolve: --tag wants NAME=SPEC, got '%s'\n", text);
    return MRCTX_EXIT_USAGE;
  }
  mr_tag *grown = realloc(o->tags, (o->tag_count + 1) * sizeof *grown);
  char *name = strdup(text); /* name and spec share the copy */
  if (grown == NULL || name == NULL) {
    free(name);
    if (grown != NULL) o->tags = grown;
    fprintf(stderr, "mrctx resolve: out of memory\n");
    return MRCTX_EXIT_FAILURE;
  }
  o->tags = grown;
  name[eq - text] = '\0';
  o->tags[o->tag_count++] = (mr_tag){.name = name, .default_spec = name + (eq - text) + 1};
  return MRCTX_EXIT_OK;
}

static int parse_options(int argc, char **argv, options *o) {
  static const struct option longopts[] = {
      {"tag", required_argument, NULL, 't'},     {"env", required_argument, NULL, 'e'},
      {"config", required_argument, NULL, 'c'},  {"set", required_argument, NULL, 's'},
      {"library", required_argument, NULL, 'l'}, {NULL, 0, NULL, 0},
  };
  o->desc.size = sizeof o->desc;
  o->desc.library = "resolve";
  o->desc.flags = MR_CONTEXT_DESCRIBE_ONLY;
  optind = 1;
  int c;
  while ((c = mrctx_getopt("resolve", argc, argv, "", longopts)) != -1) {
    switch (c) {
    case 't': {
      int rc = add_tag(o, optarg);
      if (rc != MRCTX_EXIT_OK) return rc;
      break;
    }
    case 'e':
      o->desc.env_var = optarg;
      break;
    case 'c':
      o->desc.config_file = optarg;
      break;
    case 's':
      o->desc.overrides = optarg;
      break;
    case 'l':
      o->desc.library = optarg;
      break;
    case ':':
      return MRCTX_EXIT_USAGE;
    default:
      fputc('\n', stderr);
      usage(stderr);
      return MRCTX_EXIT_USAGE;
    }
  }
  if (o->tag_count == 0) {
    fprintf(stderr, "mrctx resolve: give at least one --tag NAME=SPEC (see --help)\n");
    return MRCTX_EXIT_USAGE;
  }
  o->desc.tags = o->tags;
  o->desc.tag_count = o->tag_count;
  return MRCTX_EXIT_OK;
}

int mrctx_cmd_resolve(int argc, char **argv) {
  if (mrctx_wants_help(argc, argv)) {
    usage(stdout);
    return MRCTX_EXIT_OK;
  }
  options o;
  memset(&o, 0, sizeof o);
  int rc = parse_options(argc, argv, &o);
  if (rc != MRCTX_EXIT_OK) {
    free_options(&o);
    return rc;
  }
  mr_context *ctx = NULL;
  mr_status st = mr_context_create(&o.desc, &ctx);
  if (st != MR_OK) {
    fprintf(stderr, "mrctx resolve: %s\n", mr_last_error());
    free_options(&o);
    return st == MR_ERR_CONFIG || st == MR_ERR_INVALID_ARGUMENT ? MRCTX_EXIT_USAGE
                                                                : MRCTX_EXIT_FAILURE;
  }
  fflush(stderr);
  /* The library's printer: MRCTX_VERBOSE and python -m mrctx resolve
   * print the same table through it. */
  if (mr_context_print_resolved(ctx, stdout) != MR_OK) {
    fprintf(stderr, "mrctx resolve: %s\n", mr_last_error());
    rc = MRCTX_EXIT_FAILURE;
  }
  fflush(stdout);
  mr_context_destroy(ctx);
  free_options(&o);
  return rc;
}
