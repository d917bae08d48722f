"""Shared fixtures of the Python tests (tests/python/meson.build sets
PYTHONPATH, MRCTX_LIBRARY, MRCTX_TORCH_ALLOC, MRCTX_CUPY_ALLOC and
MRCTX_CUDA_DRIVER)."""

import itertools
import typing

import pytest

_names = itertools.count()


@pytest.fixture
def library_name() -> str:
    """A fresh library name per test, so statistics never mix."""
    return f"pylib{next(_names)}"


def assert_shape(value: object, kind: object, where: str = "snapshot") -> None:
    """``value`` (parsed JSON) has the shape of ``kind``, one of the
    package's snapshot TypedDicts (mrctx.Snapshot, mrctx.MergedSnapshot and
    their members) or a type inside them: every required member there,
    no member the TypedDict does not list (what the writer writes is
    typed), each member of its type, all the way down. So the types a
    type checker trusts are the JSON the library writes."""
    origin = typing.get_origin(kind)
    if kind is typing.Any:
        return
    if origin is typing.Union:
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return
        (kind,) = [k for k in options if k is not type(None)]
        return assert_shape(value, kind, where)
    if origin is list:
        assert isinstance(value, list), f"{where}: {value!r} is not a list"
        (item,) = typing.get_args(kind)
        for i, entry in enumerate(value):
            assert_shape(entry, item, f"{where}[{i}]")
        return
    if isinstance(kind, type) and issubclass(kind, dict) and hasattr(kind, "__required_keys__"):
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        hints = typing.get_type_hints(kind)
        missing = set(kind.__required_keys__) - set(value)
        assert not missing, f"{where}: {kind.__name__} lacks {sorted(missing)}"
        unknown = set(value) - set(hints)
        assert not unknown, f"{where}: {kind.__name__} does not list {sorted(unknown)}"
        for key, member in value.items():
            assert_shape(member, hints[key], f"{where}.{key}")
        return
    if kind is int:
        assert isinstance(value, int) and not isinstance(value, bool), f"{where}: {value!r}"
        return
    assert isinstance(value, kind), f"{where}: {value!r} is not {kind}"  # str, bool
