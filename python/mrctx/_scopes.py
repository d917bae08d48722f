"""Scopes: what a block of code allocated through a context's tags, and
its peak, as rmm's memory profiler reports it (docs/observability.md,
"Peaks and scopes").

The C library keeps one peak per tag and device, which
mr_context_reset_peak sets to what is live. A scope resets the peaks of
its tags at entry and reads them at exit; what a reset took away is kept
here, so that nested scopes, scopes open on other threads and
Context.stats() lose nothing:

* every open scope covering a tag keeps the most of the peaks that resets
  took from it while it was open (``saved``): its peak at exit is the
  larger of that and the tag's peak then;
* the context keeps, per tag and device, the most that resets by scopes
  took away (``floors``): Context.stats() reports the larger of that and
  the tag's peak, until Context.reset_peak() clears it.

Internal: Context's scope(), profile(), scope_records(), scope_report(),
print_scopes() and clear_scopes() are the API.
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Union

from . import _check, _forksafe
from ._errors import ClosedError
from ._results import Stats

Slot = tuple[int, int]  # (tag index, device)

# The orders scope_report() takes, by field of ScopeRecord.
REPORT_ORDERS = ("peak_bytes", "allocated_bytes", "allocations", "calls", "net_bytes", "name")


@dataclass(frozen=True)
class ScopeStats:
    """What one run of a scope saw, summed over its tags and devices.

    ``peak_bytes`` is the most its tags held at once during the block above
    what they held at its entry (the block's own high-water mark; with
    several tags or devices, the sum of each one's, an upper bound as
    mr_stats_add's sum of peaks is). ``net_bytes`` is what the block left
    allocated (negative when it freed more than it allocated);
    ``allocated_bytes`` and ``allocations`` what it allocated in all;
    ``failed`` the allocations that failed. Allocations from every thread
    count, as the tags' statistics count them."""

    name: str
    tags: tuple[str, ...]
    allocated_bytes: int
    allocations: int
    net_bytes: int
    peak_bytes: int
    peak_count: int
    failed: int


@dataclass(frozen=True)
class ScopeRecord:
    """The runs of one scope name so far: ``calls`` runs, their
    ``allocated_bytes``, ``allocations``, ``net_bytes`` and ``failed`` added
    up, and the largest ``peak_bytes`` and ``peak_count`` of any run."""

    name: str
    calls: int
    allocated_bytes: int
    allocations: int
    net_bytes: int
    peak_bytes: int
    peak_count: int
    failed: int


class _Frame:
    """One open run of a scope."""

    def __init__(self, name: str, slots: list[Slot]):
        self.name = name
        self.slots = slots
        self.entry: dict[Slot, Stats] = {}
        self.saved: dict[Slot, list[int]] = {slot: [0, 0] for slot in slots}


def _raise_to(target: list[int], peak_bytes: int, peak_count: int) -> None:
    target[0] = max(target[0], peak_bytes)
    target[1] = max(target[1], peak_count)


class Scopes:
    """A context's open scopes, the peaks resets took away, and the records
    of finished runs. One lock: scopes may open and close on any thread."""

    def __init__(self, ctx: Any):
        # Weak: a Context is closed when its last reference goes, which a
        # cycle through here would leave to the garbage collector.
        self._ctx = weakref.ref(ctx)
        self._tags = ctx.tags
        self._lock = _forksafe.lock()
        self._open: list[_Frame] = []
        self._floors: dict[Slot, list[int]] = {}
        self._records: dict[str, ScopeRecord] = {}

    # ---- the C calls --------------------------------------------------------

    def _context(self) -> Any:
        ctx = self._ctx()
        if ctx is None:
            raise ClosedError("mrctx: the scope's context is gone")
        return ctx

    def _read(self, slot: Slot) -> Stats:
        return self._context()._raw_stats(slot[0], slot[1])

    def _reset(self, slot: Slot) -> None:
        self._context()._raw_reset_peak(slot[0], slot[1])

    # ---- peaks that resets take away ---------------------------------------

    def _take(self, slot: Slot, keep_floor: bool) -> Stats:
        """Read `slot` before its peak is reset: every open scope covering
        it keeps the peak (and the context's floor, unless the reset is the
        caller's own). The caller holds the lock."""
        stats = self._read(slot)
        peak = (stats.peak_bytes, stats.peak_count)
        for frame in self._open:
            if slot in frame.saved:
                _raise_to(frame.saved[slot], *peak)
        if keep_floor:
            _raise_to(self._floors.setdefault(slot, [0, 0]), *peak)
        return stats

    def adjusted(self, slot: Slot, stats: Stats) -> Stats:
        """`stats` of `slot` with the peaks scopes' resets took away."""
        with self._lock:
            floor = self._floors.get(slot)
            if floor is None:
                return stats
            return dataclasses.replace(stats, peak_bytes=max(stats.peak_bytes, floor[0]),
                                       peak_count=max(stats.peak_count, floor[1]))

    def has_floors(self) -> bool:
        with self._lock:
            return bool(self._floors)

    def reset_peak(self, slots: Iterable[Slot]) -> None:
        """Context.reset_peak: the caller's own reset, which forgets the
        floors; open scopes keep what it took from them."""
        with self._lock:
            for slot in slots:
                if self._open:
                    self._take(slot, keep_floor=False)
                self._floors.pop(slot, None)
                self._reset(slot)

    # ---- scopes -------------------------------------------------------------

    def enter(self, name: str, slots: list[Slot]) -> _Frame:
        frame = _Frame(name, slots)
        with self._lock:
            for slot in slots:
                frame.entry[slot] = self._take(slot, keep_floor=True)
                self._reset(slot)
            self._open.append(frame)
        return frame

    def exit(self, frame: _Frame) -> ScopeStats:
        totals = dict.fromkeys(("allocated_bytes", "allocations", "net_bytes", "peak_bytes",
                                "peak_count", "failed"), 0)
        with self._lock:
            try:
                for slot in frame.slots:
                    now = self._read(slot)
                    entry = frame.entry[slot]
                    peak_bytes = max(now.peak_bytes, frame.saved[slot][0])
                    peak_count = max(now.peak_count, frame.saved[slot][1])
                    totals["allocated_bytes"] += now.total_bytes - entry.total_bytes
                    totals["allocations"] += now.total_count - entry.total_count
                    totals["net_bytes"] += now.current_bytes - entry.current_bytes
                    totals["peak_bytes"] += max(0, peak_bytes - entry.current_bytes)
                    totals["peak_count"] += max(0, peak_count - entry.current_count)
                    totals["failed"] += now.failed_count - entry.failed_count
            finally:
                self._open.remove(frame)
            tags = tuple(dict.fromkeys(self._tags[tag] for tag, _ in frame.slots))
            result = ScopeStats(name=frame.name, tags=tags, **totals)
            old = self._records.get(frame.name)
            if old is None:
                self._records[frame.name] = ScopeRecord(
                    name=frame.name, calls=1, allocated_bytes=result.allocated_bytes,
                    allocations=result.allocations, net_bytes=result.net_bytes,
                    peak_bytes=result.peak_bytes, peak_count=result.peak_count,
                    failed=result.failed)
            else:
                self._records[frame.name] = ScopeRecord(
                    name=frame.name, calls=old.calls + 1,
                    allocated_bytes=old.allocated_bytes + result.allocated_bytes,
                    allocations=old.allocations + result.allocations,
                    net_bytes=old.net_bytes + result.net_bytes,
                    peak_bytes=max(old.peak_bytes, result.peak_bytes),
                    peak_count=max(old.peak_count, result.peak_count),
                    failed=old.failed + result.failed)
        return result

    # ---- records ------------------------------------------------------------

    def records(self) -> dict[str, ScopeRecord]:
        with self._lock:
            return dict(self._records)

    def clear(self) -> None:
        with self._lock:
            self._records.clear()


class Scope:
    """``with ctx.scope("name"):`` -- see Context.scope. After the block,
    ``result`` is its ScopeStats (None before the block ends)."""

    def __init__(self, scopes: Scopes, name: str, slots: list[Slot]):
        self._scopes = scopes
        self.name = name
        self._slots = slots
        self._frame: Optional[_Frame] = None
        self.result: Optional[ScopeStats] = None

    def __enter__(self) -> "Scope":
        if self._frame is not None:
            raise _check.ArgumentError(f"mrctx: scope {self.name!r} is already open; a Scope "
                                       "runs one block at a time (ask ctx.scope() again)")
        self.result = None
        self._frame = self._scopes.enter(self.name, self._slots)
        return self

    def __exit__(self, *exc: object) -> None:
        frame, self._frame = self._frame, None
        if frame is not None:
            self.result = self._scopes.exit(frame)

    def __repr__(self) -> str:
        state = "open" if self._frame is not None else repr(self.result)
        return f"<mrctx.Scope {self.name!r}: {state}>"


def scope_name(who: str, name: Any) -> str:
    if not isinstance(name, str):
        raise _check._type_error(who, "name", "a str", name)
    if not name:
        raise _check.ArgumentError(f"mrctx: {who}: a scope's name is not empty")
    return name


def decorator(make_scope: Callable[[str], Scope], name: Union[str, Callable[..., Any], None],
              who: str) -> Any:
    """``@ctx.profile``, ``@ctx.profile("name")`` or ``@ctx.profile()``: a
    function decorator that runs each call in a scope named ``name`` (by
    default the function's qualified name)."""

    def wrap(function: Callable[..., Any], scope: Optional[str]) -> Callable[..., Any]:
        if not callable(function):
            raise _check._type_error(who, "the decorated object", "a function", function)
        label = scope if scope is not None else getattr(function, "__qualname__", repr(function))

        @functools.wraps(function)
        def profiled(*args: Any, **kwargs: Any) -> Any:
            with make_scope(label):
                return function(*args, **kwargs)

        return profiled

    if callable(name):  # @ctx.profile, without parentheses
        return wrap(name, None)
    if name is not None:
        scope_name(who, name)
    return lambda function: wrap(function, name)


def human_bytes(value: int) -> str:
    """1536 -> "1.5 KiB", as the C tables write sizes."""
    sign = "-" if value < 0 else ""
    amount = float(abs(value))
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if amount < 1024 or unit == "TiB":
            return f"{sign}{int(amount)} B" if unit == "B" else f"{sign}{amount:.1f} {unit}"
        amount /= 1024
    raise AssertionError("unreachable")


def report(library: str, records: dict[str, ScopeRecord], ordered_by: str) -> str:
    """The table of scopes, most first by ``ordered_by`` (names A-Z)."""
    if ordered_by not in REPORT_ORDERS:
        raise _check.ArgumentError(f"mrctx: scope_report: ordered_by={ordered_by!r} is not one "
                                   f"of {', '.join(REPORT_ORDERS)}")
    rows = sorted(records.values(), key=lambda r: r.name)
    if ordered_by != "name":
        rows.sort(key=lambda r: getattr(r, ordered_by), reverse=True)
    width = max([5] + [len(r.name) for r in rows])
    lines = [f"{library} scopes, by {ordered_by.replace('_', ' ')}",
             f"{'scope':<{width}} {'calls':>7} {'peak':>10} {'allocated':>10} {'allocs':>10} "
             f"{'net':>10} {'failures':>8}"]
    for r in rows:
        lines.append(f"{r.name:<{width}} {r.calls:>7} {human_bytes(r.peak_bytes):>10} "
                     f"{human_bytes(r.allocated_bytes):>10} {r.allocations:>10} "
                     f"{human_bytes(r.net_bytes):>10} {r.failed:>8}")
    if not rows:
        lines.append("(no scope has run)")
    return "\n".join(lines) + "\n"


def profiler(ctx: Any, name: Union[str, Callable[..., Any], None] = None,
             tags: Any = None) -> Any:
    """``@mrctx.profiler(ctx)`` or ``@mrctx.profiler(ctx, "name", tags=...)``:
    Context.profile as a free function, as rmm.statistics.profiler is."""
    _check.context("profiler", "ctx", ctx)
    return ctx.profile(name, tags)
