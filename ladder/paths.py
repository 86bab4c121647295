"""Where the ladder keeps its files: ``results/`` under the current folder unless told otherwise."""

from __future__ import annotations

import os
from pathlib import Path


def results_dir() -> Path:
    """``$LADDER_RESULTS``, or ``./results``: the database, logs, the bot store and exports live here."""
    return Path(os.environ.get("LADDER_RESULTS", "results"))


def as_db_url(value: str) -> str:
    """A database as ``--db`` or ``$LADDER_DB`` gives it: an SQLAlchemy URL, or a plain path of an SQLite file."""
    if "://" in value or value.startswith("sqlite:"):
        return value
    return f"sqlite:///{Path(value).expanduser()}"


def default_db_url() -> str:
    """``$LADDER_DB`` (any SQLAlchemy URL, or a path), or SQLite at ``results/ladder.db``."""
    url = os.environ.get("LADDER_DB")
    if url:
        return as_db_url(url)
    return f"sqlite:///{results_dir() / 'ladder.db'}"
