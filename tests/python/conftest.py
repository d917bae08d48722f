"""Shared fixtures of the Python tests (tests/python/meson.build sets
PYTHONPATH, MRCTX_LIBRARY, MRCTX_TORCH_ALLOC and MRCTX_CUDA_DRIVER)."""

import itertools

import pytest

_names = itertools.count()


@pytest.fixture
def library_name() -> str:
    """A fresh library name per test, so statistics never mix."""
    return f"pylib{next(_names)}"
