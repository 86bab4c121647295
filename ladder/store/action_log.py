"""The action log's stored form: compressed compact JSON.

Kept apart from the tables so that a worker, which packs the log of every
match it plays, does not import SQLModel and SQLAlchemy (a quarter of a
second of the fork server's start-up, which every worker start waits for).
"""

from __future__ import annotations

import json
import zlib
from typing import Any


def pack_actions(actions: Any) -> bytes:
    """The action log as compressed compact JSON (a match log shrinks about tenfold)."""
    return zlib.compress(json.dumps(list(actions), separators=(",", ":")).encode(), 6)


def unpack_actions(blob: bytes) -> list[dict[str, Any]]:
    return json.loads(zlib.decompress(blob)) if blob else []
