"""A built-in bot's version: the hash of its source files.

Kept apart from the roster (which needs the database) because a worker checks
every built-in seat it is handed against this hash, and a worker does not
import SQLModel and SQLAlchemy.
"""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

import bots
from bots.registry import bot_classes

BOTS_ROOT = Path(bots.__file__).resolve().parent


def _source_files(cls: type) -> list[Path]:
    """The file that defines ``cls``, or every file of its game's package when it lives in one below ``bots/``."""
    source = Path(inspect.getsourcefile(cls) or "").resolve()
    if source.parent == BOTS_ROOT or not source.is_relative_to(BOTS_ROOT):  # a module of its own (or a test's bot)
        return [source]
    return sorted(source.parent.glob("*.py"))


def builtin_hash(name: str) -> str:
    """The content hash of a built-in bot: the source files of every class of that name, with their game's package.

    A game's bots live in a package of their own (``bots/elevenses/``: thumb, search and the memory both use),
    so every file of that package counts: a change to a module the bot imports from it is a new version.
    """
    digest = hashlib.sha256()
    classes = bot_classes()[name]
    wrapped = [cls.wrapped for cls in classes if hasattr(cls, "wrapped")]  # a handicapped bot's thumb
    files = sorted({path for cls in [*classes, *wrapped] for path in _source_files(cls)})
    for file in files:
        packaged = file.is_relative_to(BOTS_ROOT) and file.parent != BOTS_ROOT
        digest.update((file.relative_to(BOTS_ROOT).as_posix() if packaged else file.name).encode() + b"\0")
        digest.update(file.read_bytes() + b"\0")
    # bots that share their source (a game's package: thumb and search; the handicapped bots their thumb) are told
    # apart by their names; a bot in a module of its own hashes as it always did
    if wrapped or any(file.parent != BOTS_ROOT and file.is_relative_to(BOTS_ROOT) for file in files):
        digest.update(name.encode() + b"\0")
    return digest.hexdigest()
