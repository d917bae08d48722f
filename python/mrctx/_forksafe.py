"""Locks a forked child can take.

ctypes lets go of the GIL for every C call, so at the moment one thread
calls os.fork() another may hold one of this package's locks (a scope's
bookkeeping, a resource's close, the library loader). The child inherits
the lock held by a thread it does not have, and its first use would wait
forever. The C library makes its own locks safe across fork()
(docs/semantics.md, "fork()"); this does the same for the Python ones:
every lock the package makes comes from lock() here and is re-made free in
the child, as the standard library's logging does for its handlers' locks.
What such a lock guarded is kept as the parent's thread left it between
two bytecodes, which the GIL makes a consistent Python object."""

import os
import threading
import weakref

_locks: "weakref.WeakSet" = weakref.WeakSet()


def lock() -> threading.Lock:
    """A threading.Lock that is free again in a forked child."""
    made = threading.Lock()
    _locks.add(made)
    return made


def _after_fork_in_child() -> None:
    for held in list(_locks):
        held._at_fork_reinit()  # CPython >= 3.9, as threading uses it


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
