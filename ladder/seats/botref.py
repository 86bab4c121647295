"""A bot reference, parsed in one place.

Bots are named by text in tournament files, on the command line, in the
database (``MatchRow.seats_json``) and in the match tasks sent to workers.
The forms are:

``store:<sha256>``
    one version in the bot store, by its content hash (what the runner sends
    workers for a submitted bot);
``ep:<name>``
    a bot offered by an installed package (entry point group ``ladder.bots``);
a path (``bots/mine.py``, ``./folder``, ``.``)
    a bot's files, not yet submitted (``ladder submit``, ``ladder play``);
``<name>`` or ``<name>@<hash prefix>``
    a built-in or registered bot by name; the ``@`` form picks its versions
    whose content hash starts with the prefix (the database views).

Which names are built-in is the bot registry's business: :meth:`BotRef.parse`
only tells the forms apart, so every caller agrees on what a text means.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

_HEX_64 = re.compile(r"[0-9a-f]{64}")


class RefKind(enum.StrEnum):
    """The form of a bot reference."""

    NAME = "name"  # a built-in or registered bot (optionally name@hash-prefix)
    STORE = "store"  # store:<sha256>
    ENTRY_POINT = "ep"  # ep:<name>
    PATH = "path"  # a file or folder


@dataclass(frozen=True)
class BotRef:
    """A parsed bot reference: its form, what it names, and (names only) a version's hash prefix."""

    kind: RefKind
    target: str  # the bot's name, the content hash, the entry point's name, or the path
    version_prefix: str = ""  # NAME only: name@<prefix> picks the versions whose hash starts with it

    @classmethod
    def parse(cls, text: str) -> BotRef:
        """What ``text`` names (never fails: a malformed ``store:`` hash is caught by :attr:`well_formed`)."""
        if text.startswith("store:"):
            return cls(RefKind.STORE, text.removeprefix("store:"))
        if text.startswith("ep:"):
            return cls(RefKind.ENTRY_POINT, text.removeprefix("ep:"))
        if "/" in text or text.endswith(".py") or text in (".", ".."):
            return cls(RefKind.PATH, text)
        name, _, prefix = text.partition("@")
        return cls(RefKind.NAME, name, prefix)

    @classmethod
    def store(cls, content_hash: str) -> BotRef:
        return cls(RefKind.STORE, content_hash)

    @classmethod
    def entry_point(cls, name: str) -> BotRef:
        return cls(RefKind.ENTRY_POINT, name)

    @property
    def well_formed(self) -> bool:
        """False only for a ``store:`` reference whose hash is not 64 lower-case hex digits."""
        return self.kind is not RefKind.STORE or bool(_HEX_64.fullmatch(self.target))

    @property
    def sandboxed(self) -> bool:
        """Whether the bot's code is run in the sandbox: a stored version, an installed package or files
        (a built-in bot, named, runs in the worker's process)."""
        return self.kind is not RefKind.NAME

    def matches_version(self, name: str, content_hash: str) -> bool:
        """Whether a stored version (its bot's name and content hash) is one this NAME reference picks."""
        return self.kind is RefKind.NAME and name == self.target and content_hash.startswith(self.version_prefix)

    def __str__(self) -> str:
        if self.kind is RefKind.STORE:
            return f"store:{self.target}"
        if self.kind is RefKind.ENTRY_POINT:
            return f"ep:{self.target}"
        if self.kind is RefKind.NAME and self.version_prefix:
            return f"{self.target}@{self.version_prefix}"
        return self.target
