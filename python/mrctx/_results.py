"""What the package's queries return: frozen dataclasses over the C
structs, typed and printable.

``Context.stats()`` gives a :class:`Stats` (mr_stats), ``Resource.pool_info()``
and ``driver_pool_info()`` a :class:`PoolInfo` (mr_pool_info). Read them by
attribute: ``ctx.stats("temp").peak_bytes``.

Until 0.2 these were plain dicts. For one release they still read like
one -- ``s["peak_bytes"]``, ``s.get(...)``, ``"peak_bytes" in s``,
``s.keys()``, ``items()``, ``values()``, ``dict(s)``, and ``s == {...}``
against the dict 0.2 returned -- through :class:`DictAccess`. That access
is deprecated: it goes in the release after next; use the attributes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Iterator


class DictAccess:
    """Deprecated read-only dict access to a dataclass's fields, kept for
    one release for code written against the dicts 0.2 returned."""

    def _names(self) -> tuple[str, ...]:
        return tuple(field.name for field in dataclasses.fields(self))

    def __getitem__(self, key: str) -> Any:
        if isinstance(key, str) and key in self._names():
            return getattr(self, key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in self else default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._names()

    def keys(self) -> tuple[str, ...]:
        return self._names()

    def values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._names())

    def items(self) -> tuple[tuple[str, Any], ...]:
        return tuple((name, getattr(self, name)) for name in self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.values() == other.values()  # type: ignore[attr-defined]
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.values())


@dataclasses.dataclass(frozen=True, eq=False)
class Stats(DictAccess):
    """A tag's statistics (mr_stats): bytes and allocations live now, the
    most live at once since the context was made or the last reset_peak(),
    and in all; allocations that failed."""

    current_bytes: int
    peak_bytes: int
    total_bytes: int
    current_count: int
    peak_count: int
    total_count: int
    failed_count: int


@dataclasses.dataclass(frozen=True, eq=False)
class PoolInfo(DictAccess):
    """One of the driver's pools as mrctx reports it (mr_pool_info).
    ``reserved_high`` and ``used_high`` are the most backing memory held
    and handed out since the pool was made or its peak was reset."""

    kind: str  # "device", "pinned", "managed" ("unknown" past this package's list)
    device: int
    is_default: bool
    is_current: bool
    release_threshold: int
    reserved_bytes: int
    reserved_high: int
    used_bytes: int
    used_high: int
