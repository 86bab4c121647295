"""Passed submission checks, remembered so that ``ladder submit`` right after ``ladder validate`` does not play again.

An entry is written only by the ladder's own process, after :func:`ladder.seats.botstore.check_submitted_bot` passed, under
``results/checks/`` (the ladder's folder, next to its database and bot store; a bot runs sandboxed and cannot
write there). Its file name is the SHA-256 of everything the verdict depends on (:class:`CheckKey`):

- the content hash of exactly the files that get registered (a bot with a build is never reused: its build
  runs again and what it leaves is what is registered, so it is checked again);
- the ladder's own code (a hash of every module of ``engine``, ``bots`` and ``ladder``) and the games on it;
- the limits, the sandbox layers and the number of matches of the check.

``submit`` reads the files once, hashes them, and registers them only if they still have that hash
(:func:`ladder.seats.botstore.register` refuses files that changed since), so an author cannot pass the check with
one file and register another. What an author could forge by writing into ``results/`` they could as well
write into the database itself: the cache asks for no trust beyond that folder's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine import game_ids
from ladder.paths import results_dir
from ladder.sandbox.bot_info import BotInfo
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.submission import MANIFEST_FILE, content_hash, read_manifest
from ladder.seats.botstore import CheckReport, claimed_games
from ladder.seats.names import check_name

CACHE_FOLDER = "checks"
_PACKAGES = ("engine", "bots", "ladder")


@lru_cache(maxsize=1)
def ladder_fingerprint() -> str:
    """A hash of the ladder's own code (every ``.py`` of engine, bots and ladder): any change makes a new one."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent
    for package in _PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class CheckKey:
    """Everything a passed check's verdict depends on; equal keys, same verdict."""

    content_hash: str
    limits: str  # the SandboxLimits as sorted JSON
    layers: tuple[str, ...]
    matches_per_table: int
    games_on_ladder: tuple[str, ...]
    ladder: str

    def digest(self) -> str:
        text = json.dumps(dataclasses.asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def check_key(
    files: dict[str, bytes], limits: SandboxLimits, layers: tuple[str, ...], matches_per_table: int
) -> CheckKey | None:
    """The key of a check of ``files``, or ``None`` for a bot with a build (its build is never reused)."""
    if MANIFEST_FILE in files and read_manifest(files, "bot").build:
        return None
    limits_json = json.dumps(dataclasses.asdict(limits), sort_keys=True, default=sorted)
    return CheckKey(
        content_hash(files), limits_json, tuple(layers), matches_per_table, tuple(game_ids()), ladder_fingerprint()
    )


def _entry_path(key: CheckKey) -> Path:
    return results_dir() / CACHE_FOLDER / f"{key.digest()}.json"


def remember(key: CheckKey | None, report: CheckReport) -> None:
    """Keep a passed check of the files ``key`` names (nothing for a failed one, or a bot with a build)."""
    if (
        key is None
        or not report.ok
        or report.info is None
        or report.built_dir
        or report.content_hash != key.content_hash
    ):
        return
    path = _entry_path(key)
    entry = {
        "key": dataclasses.asdict(key),
        "info": dataclasses.asdict(report.info),
        "matches": report.matches,
        "checked_at": time.time(),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(prefix=".check-", dir=path.parent)
        with os.fdopen(handle, "w") as out:
            json.dump(entry, out)
        os.replace(partial, path)
    except OSError:
        return  # a cache that cannot be written only costs the next submit a check


@dataclass(frozen=True)
class Reused:
    """A passed check found again: the report to register, and when the check ran (epoch seconds)."""

    report: CheckReport
    checked_at: float


def recall(key: CheckKey | None, path: str, name: str | None) -> Reused | None:
    """The passed check of exactly these files under these limits, as a report for ``path``; ``None`` if none.

    The name is checked again (``--name`` may differ from the check's, and the built-in bots may have changed).
    """
    if key is None:
        return None
    try:
        entry: dict[str, Any] = json.loads(_entry_path(key).read_text())
        if entry.get("key") != json.loads(json.dumps(dataclasses.asdict(key))):
            return None
        raw = entry["info"]
        info = BotInfo(
            str(raw["name"]),
            str(raw["author"]),
            str(raw["version"]),
            tuple(str(g) for g in raw["games"]),
            str(raw.get("class_name", "")),
        )
        matches = [dict(match) for match in entry["matches"]]
        checked_at = float(entry["checked_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    report = CheckReport(
        path, key.content_hash, info=info, name=name or info.name, matches=matches, source_hash=key.content_hash
    )
    games, why = claimed_games(info)
    why = check_name(report.name) or why
    if why:
        return None  # the full check says why, in its own words
    report.games = games
    return Reused(report, checked_at)
