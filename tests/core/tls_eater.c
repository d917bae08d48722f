/*
 * tls_eater.c: a shared module whose only content is an initial-exec TLS
 * block of TLS_EATER_BYTES (tests only). Such a module must take its TLS
 * from glibc's static-TLS surplus when it is dlopen'ed, as PyTorch's
 * libraries do; test_tls_dlopen loads modules of falling sizes until the
 * surplus is gone, then loads libmrctx.
 */
#include <stddef.h>

static _Thread_local char eaten[TLS_EATER_BYTES] __attribute__((tls_model("initial-exec")));

/* Exported and touching the block, so neither disappears. */
__attribute__((visibility("default"))) char *tls_eater_block(void);
char *tls_eater_block(void) { return eaten; }
