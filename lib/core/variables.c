/*
 * variables.c: the table of mrctx's environment variables (core/variables.h).
 *
 * An entry added here is listed by `mrctx --help` at once; tests/docs/
 * check_env.py then asks for its row in README.md's Environment table, its
 * entry in the man page's ENVIRONMENT and its name in `.doc`.
 */
#include <stdlib.h>

#include "core/variables.h"

static const mri_variable table[MRI_VAR_COUNT] = {
    [MRI_VAR_CUDA_DRIVER] = {.name = "MRCTX_CUDA_DRIVER",
                             .type = MRI_VAR_PATH,
                             .syntax = "PATH",
                             .default_text = "libcuda.so.1",
                             .help = "the driver library to load instead of libcuda.so.1",
                             .doc = "docs/driver.md",
                             .read_by = MRI_VAR_READ_BY_LIBRARY | MRI_VAR_READ_BY_COMMAND},
    [MRI_VAR_BENCH_MEMORY] = {.name = "MRCTX_BENCH_MEMORY",
                              .type = MRI_VAR_SPEC,
                              .syntax = "TEXT",
                              .default_text = "none: the benchmark's own chains",
                              .help = "mrctx bench: overrides for its own tags",
                              .doc = "docs/benchmarks.md",
                              .read_by = MRI_VAR_READ_BY_COMMAND},
    [MRI_VAR_BENCH_TRACE] = {.name = "MRCTX_BENCH_TRACE",
                             .type = MRI_VAR_PATH,
                             .syntax = "PATH",
                             .default_text = "the GPT training trace beside the source tree",
                             .help = "mrctx bench: the trace workload's log",
                             .doc = "docs/benchmarks.md",
                             .read_by = MRI_VAR_READ_BY_COMMAND},
    [MRI_VAR_DEBUG] = {.name = "MRCTX_DEBUG",
                       .type = MRI_VAR_FLAG,
                       .syntax = "1",
                       .default_text = "off",
                       .help = "check the size of every free in arena, fixed, bin\n"
                               "and cache; refuse a wrong one",
                       .doc = "docs/semantics.md",
                       .read_by = MRI_VAR_READ_BY_LIBRARY},
    [MRI_VAR_IDLE_TIME] = {.name = "MRCTX_IDLE_TIME",
                           .type = MRI_VAR_DURATION,
                           .syntax = "10s",
                           .default_text = "10s",
                           .help = "how long memory stays idle in caches, arenas, fixed\n"
                                   "blocks and driver pools before it goes back (0 or\n"
                                   "off: never; default 10s)",
                           .doc = "docs/semantics.md",
                           .read_by = MRI_VAR_READ_BY_LIBRARY},
    [MRI_VAR_OOM_SNAPSHOT] = {.name = "MRCTX_OOM_SNAPSHOT",
                              .type = MRI_VAR_PATH,
                              .syntax = "PATH",
                              .default_text = "none: no snapshot written",
                              .help = "write a snapshot there when an allocation through\n"
                                      "a context runs out of memory (%p: the process id)",
                              .doc = "docs/observability.md",
                              .read_by = MRI_VAR_READ_BY_LIBRARY},
    [MRI_VAR_STATS_AT_EXIT] = {.name = "MRCTX_STATS_AT_EXIT",
                               .type = MRI_VAR_PATH,
                               .syntax = "stderr|PATH",
                               .default_text = "none: nothing written at exit",
                               .help = "at normal exit, every context's per-tag\n"
                                       "table there, live or destroyed (a snapshot for\n"
                                       "PATH.json)",
                               .doc = "docs/observability.md",
                               .read_by = MRI_VAR_READ_BY_LIBRARY},
    [MRI_VAR_VERBOSE] = {.name = "MRCTX_VERBOSE",
                         .type = MRI_VAR_FLAG,
                         .syntax = "1",
                         .default_text = "off",
                         .help = "print each context's resolved table at creation, as\n"
                                 "mrctx resolve shows it (ignored entries included)",
                         .doc = "docs/observability.md",
                         .read_by = MRI_VAR_READ_BY_LIBRARY},
    [MRI_VAR_NVTX_INJECTION] = {.name = "NVTX_INJECTION64_PATH",
                                .type = MRI_VAR_PATH,
                                .syntax = "",
                                .default_text = "none: NVTX is not initialised",
                                .help = "the NVTX tool to report allocations to (set by\n"
                                        "compute-sanitizer and Nsight Systems)",
                                .doc = "docs/observability.md",
                                .read_by = MRI_VAR_READ_BY_LIBRARY},
};

const mri_variable *mri_variable_info(mri_variable_id id) {
  return (unsigned)id < MRI_VAR_COUNT ? &table[id] : NULL;
}

const char *mri_variable_get(mri_variable_id id) {
  return (unsigned)id < MRI_VAR_COUNT ? getenv(table[id].name) : NULL;
}

bool mri_variable_flag(mri_variable_id id) {
  const char *value = mri_variable_get(id);
  return value != NULL && value[0] != '\0' && !(value[0] == '0' && value[1] == '\0');
}
