"""os.fork() while another Python thread is inside the library (suite unit,
no driver). ctypes lets go of the GIL for every C call, so a thread may
hold one of the library's locks (a snapshot's list of contexts, a
tracker's table, the registry of names) at the moment another thread
forks. Each child takes a snapshot, reads statistics, trims, allocates and
resolves a spec (docs/semantics.md, "fork()"). A snapshot's time once came
from glibc's gmtime_r, whose lock fork() leaves held: a fork that caught a
worker's snapshot inside it hung the child (rarely: from C, 4 children of
1500 forked beside two threads taking snapshots, on a busy machine).

A child stuck on a lock that the fork left held dies of its alarm and
fails the test instead of hanging it. The alarm is a last resort whose
limit only a hang reaches (60 s times TIMEOUT_MULTIPLIER, as .ci/run gives
it for a slow or busy machine): a slow child is not a failure."""

import math
import os
import re
import signal
import threading
import warnings

import mrctx

FORKS = 30


def _child_seconds() -> int:
    """60 s times TIMEOUT_MULTIPLIER (1 if unset, not a number or below 1),
    as tests/support's test_watchdog_seconds scales the C tests' alarms."""
    try:
        factor = float(os.environ.get("TIMEOUT_MULTIPLIER", "1"))
    except ValueError:
        factor = 1.0
    if not 1.0 <= factor <= 1000.0:
        factor = 1.0
    return math.ceil(60 * factor)


CHILD_SECONDS = _child_seconds()


def _child(ctx: mrctx.Context) -> int:
    signal.alarm(CHILD_SECONDS)
    try:
        mrctx.snapshot()
        for tag in ctx.tags:
            resource = ctx.get_resource(tag)
            ptr = resource.allocate(8192)
            resource.deallocate(ptr, 8192)
            resource.trim()
            ctx.stats(tag)
        with mrctx.resolve("track(stats(host))") as extra:
            extra.deallocate(extra.allocate(512), 512)
        return 0
    except BaseException:  # noqa: BLE001 - the child reports by exit status
        return 1


def test_fork_while_threads_work(library_name):
    tags = {
        "tracked": "track(host)",
        "temp": "arena(host, chunk=1MiB)",
        "staging": "fixed(host, block=64KiB, count=4)",
        "counted": "limit(stats(host), bytes=1GiB)",
    }
    with mrctx.Context(library_name, tags) as ctx:
        # Many live blocks: a snapshot walks them under the tracker's lock
        # and the list of contexts' lock, so a fork often lands inside.
        held = ctx.get_resource("tracked")
        live = [held.allocate(64) for _ in range(20000)]
        stop = threading.Event()
        errors = []

        def work():
            try:
                while not stop.is_set():
                    mrctx.snapshot_json(largest_blocks=50)
                    tracked = ctx.get_resource("tracked")
                    ptrs = [tracked.allocate(256 + i) for i in range(64)]
                    for i, ptr in enumerate(ptrs):
                        tracked.deallocate(ptr, 256 + i)
                    with mrctx.resolve("arena(track(host), chunk=64KiB)") as mr:
                        mr.deallocate(mr.allocate(1024), 1024)
                        mr.trim()
                    ctx.stats()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        workers = [threading.Thread(target=work) for _ in range(2)]
        for w in workers:
            w.start()
        failures = []
        try:
            with warnings.catch_warnings():
                # Python 3.12 warns that forking a threaded process may
                # deadlock the child: what this test checks mrctx avoids.
                warnings.simplefilter("ignore", DeprecationWarning)
                for i in range(FORKS):
                    pid = os.fork()
                    if pid == 0:
                        os._exit(_child(ctx))
                    _, status = os.waitpid(pid, 0)
                    if os.WIFSIGNALED(status):
                        failures.append(f"fork {i}: the child died of signal {os.WTERMSIG(status)}"
                                        + (" (it hung)" if os.WTERMSIG(status) == signal.SIGALRM
                                           else ""))
                    elif os.WEXITSTATUS(status) != 0:
                        failures.append(f"fork {i}: the child failed")
                    if failures:
                        break
        finally:
            stop.set()
            for w in workers:
                w.join()
        for ptr in live:
            held.deallocate(ptr, 64)
        assert not errors, errors
        assert not failures, failures


def test_package_locks_are_free_in_a_child(library_name):
    """A lock of the package held by another thread at fork() is free in
    the child: here a scope's bookkeeping, which ctx.stats() takes, held
    for certain rather than by chance as above."""
    with mrctx.Context(library_name, {"counted": "stats(host)"}) as ctx:
        held = threading.Event()
        release = threading.Event()

        def hold():
            with ctx._scopes._lock:
                held.set()
                release.wait()

        holder = threading.Thread(target=hold)
        holder.start()
        held.wait()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
            if pid == 0:
                signal.alarm(CHILD_SECONDS)
                try:
                    ctx.stats("counted")
                    os._exit(0)
                except BaseException:  # noqa: BLE001 - the child reports by exit status
                    os._exit(1)
            _, status = os.waitpid(pid, 0)
        finally:
            release.set()
            holder.join()
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, \
            f"the child {'hung' if os.WIFSIGNALED(status) else 'failed'} (status {status:#x})"


def test_every_lock_of_the_package_is_fork_safe():
    """Every lock the package makes comes from mrctx._forksafe.lock(): a
    plain threading.Lock held at fork() would hang the child."""
    package = os.path.dirname(mrctx.__file__)
    plain = []
    for name in sorted(os.listdir(package)):
        if name.endswith(".py") and name != "_forksafe.py":
            with open(os.path.join(package, name), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if re.search(r"threading\.(R?Lock|Condition|Semaphore)\(", line):
                        plain.append(f"{name}:{number}: {line.strip()}")
    assert not plain, "locks not made by _forksafe.lock():\n" + "\n".join(plain)
