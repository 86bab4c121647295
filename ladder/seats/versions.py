"""A built-in bot's version: the hash of its source files.

Kept apart from the roster (which needs the database) because a worker checks
every built-in seat it is handed against this hash, and a worker does not
import SQLModel and SQLAlchemy.
"""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

from bots.registry import bot_classes


def builtin_hash(name: str) -> str:
    """The content hash of a built-in bot: the source files of every class of that name."""
    digest = hashlib.sha256()
    classes = bot_classes()[name]
    wrapped = [cls.wrapped for cls in classes if hasattr(cls, "wrapped")]  # a handicapped bot's thumb
    files = sorted({inspect.getsourcefile(cls) or "" for cls in [*classes, *wrapped]})
    for file in files:
        digest.update(Path(file).name.encode() + b"\0")
        digest.update(Path(file).read_bytes() + b"\0")
    if wrapped:  # the handicapped bots share their source: their names (their random shares) tell them apart
        digest.update(name.encode() + b"\0")
    return digest.hexdigest()
