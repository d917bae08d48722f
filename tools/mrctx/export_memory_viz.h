/*
 * export_memory_viz.h: allocation logs as PyTorch's memory_viz reads them,
 * for `mrctx export --format memory_viz` (export_memory_viz.c says how).
 */
#ifndef MRCTX_TOOLS_EXPORT_MEMORY_VIZ_H
#define MRCTX_TOOLS_EXPORT_MEMORY_VIZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The logs `inputs` ([NAME[@DEVICE]=]LOG each, `count` of them) written to
 * `out` as memory_viz's pickle. Problems are said on stderr. Returns the
 * exit status: 0 written, 1 a bad log, no memory or a write error. */
int export_memory_viz_logs(char *const *inputs, size_t count, bool skip_bad, FILE *out);

#endif
