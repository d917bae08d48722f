"""What the framework hooks share: checking a tag before a framework gets it."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Iterable

from . import _check
from ._context import Context, TagKey
from ._errors import FrameworkError


def import_framework(module: str, hook: str, package: str) -> ModuleType:
    """Import a framework for a hook, or raise FrameworkError saying which
    package is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise FrameworkError(f"{hook}: {module} cannot be imported ({error}); "
                             f"install {package}") from error


def checked_tag(ctx: Context, tag: TagKey, hook: str, kinds: Iterable[str]) -> int:
    """The tag's index, after checking that on every device it hands out one
    of ``kinds`` of memory ("device", "managed", "pinned", "host").
    FrameworkError names the library, the tag and what it gives instead."""
    _check.context(hook, "ctx", ctx)
    index = ctx.tag_index(tag)
    allowed = tuple(kinds)
    for device in range(ctx.device_count):
        with ctx.get_resource(index, device) as resource:
            kind = resource.props.kind
            if kind not in allowed:
                raise FrameworkError(
                    f"{hook}: library {ctx.library!r} tag {ctx.tags[index]!r} gives {kind} "
                    f"memory on device {device} ({resource.describe()}); this hook needs "
                    f"{' or '.join(allowed)} memory")
    return index
