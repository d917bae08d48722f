/*
 * cmd_resolve.h: the `mrctx resolve` verb.
 */
#ifndef MRCTX_TOOLS_CMD_RESOLVE_H
#define MRCTX_TOOLS_CMD_RESOLVE_H

/* Run `mrctx resolve`. argv[0] is the verb's name; its options follow.
 * Returns the process's exit status: 0 resolved, 2 a usage or configuration
 * error (the message, with a caret under the column, on stderr), 1 any
 * other failure. */
int mrctx_cmd_resolve(int argc, char **argv);

#endif /* MRCTX_TOOLS_CMD_RESOLVE_H */
