"""Where the served ladder keeps uploads until they are checked: the web side writes them, the checker removes them.

A module of its own below both sides (``service.web`` takes uploads in, ``service.background`` checks them), so
neither imports the other for it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ladder.paths import results_dir
from ladder.store.served_tables import SubmissionRow, SubmissionState

UPLOADS = Path("serve") / "uploads"  # under the results folder


def remove_upload(row: SubmissionRow) -> None:
    """Remove a checked submission's uploaded files (an accepted bot is in the bot store by then)."""
    if row.upload_dir and SubmissionState(row.state).final:
        shutil.rmtree(results_dir() / row.upload_dir, ignore_errors=True)
