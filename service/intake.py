"""Accepting a submission: the rate limit, the upload's unpacking, its files put safely on disk, its row queued.

The files are written under ``results/serve/uploads/<random>/`` (aside first, then moved into place in one
step) before the row that names them is committed, and the row is committed before the author hears its id:
an accepted submission survives a ``kill -9`` of the server at any point. Files that no row names (a crash
between the two steps) are removed at the next start (:func:`sweep_orphans`), and so are those of checked
submissions (the checker removes them as it gives its verdict).
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import uuid
from datetime import timedelta
from pathlib import Path

from sqlmodel import Session, col, func, select

from ladder.paths import results_dir
from ladder.sandbox.submission import write_tree
from ladder.store.served_tables import AuthorRow, SubmissionRow, SubmissionState
from ladder.store.tables import utcnow
from ladder.text import clean_text
from service.settings import ServeSettings
from service.uploads import UploadRefused, unpack_upload

UPLOADS = Path("serve") / "uploads"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


INTAKE = threading.Lock()  # one upload unpacked at a time: the rate limit's count and the new row stay one step


class RateLimited(ValueError):
    """The author sent too many submissions this hour; the message says when to try again."""


def uploads_root() -> Path:
    return results_dir() / UPLOADS


def check_rate(session: Session, author: AuthorRow, per_hour: int) -> None:
    since = utcnow() - timedelta(hours=1)
    recent = session.exec(
        select(func.count(col(SubmissionRow.id))).where(
            SubmissionRow.author_id == author.id, col(SubmissionRow.created_at) >= since
        )
    ).one()
    if int(recent) >= per_hour:
        raise RateLimited(
            f"you have sent {per_hour} submissions in the last hour, the most this server takes; try again later"
        )


def accept(
    session: Session, author: AuthorRow, data: bytes, filename: str, name: str, settings: ServeSettings
) -> SubmissionRow:
    """Take an upload (see the module docstring); :class:`UploadRefused` or :class:`RateLimited` with one sentence.

    Unpacking an upload is CPU work (up to 20 MB inflated, then written): the routes call this in a worker
    thread, never on the web server's event loop, so an author sending archive bombs back to back (refused,
    so no rate limit counts them) slows nobody else's pages; :data:`INTAKE` keeps uploads one at a time."""
    with INTAKE:
        return _accept(session, author, data, filename, name, settings)


def _accept(
    session: Session, author: AuthorRow, data: bytes, filename: str, name: str, settings: ServeSettings
) -> SubmissionRow:
    assert author.id is not None
    check_rate(session, author, settings.submissions_per_hour)
    shown = clean_text(Path(filename or "upload").name, one_line=True)[:120]
    if name and not NAME_PATTERN.match(name):
        raise UploadRefused(f"the name {name[:60]!r} is not usable: use 1 to 40 letters, digits, '_', '.' or '-'")
    files = unpack_upload(data, shown, settings.uploads)
    folder = uuid.uuid4().hex
    root = uploads_root()
    root.mkdir(parents=True, exist_ok=True)
    partial = root / f".{folder}.partial"
    write_tree(files, partial)
    os.replace(partial, root / folder)
    row = SubmissionRow(
        author_id=author.id, filename=shown, upload_dir=(UPLOADS / folder).as_posix(), name_override=name
    )
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


def sweep_orphans(session: Session) -> int:
    """Remove the upload folders no waiting submission needs: those no row names (left by a crash before their
    row was committed) and those of checked submissions (an accepted bot is in the bot store by then)."""
    root = uploads_root()
    if not root.is_dir():
        return 0
    waiting = [SubmissionState.QUEUED.value, SubmissionState.CHECKING.value]
    named = {
        Path(p).name
        for p in session.exec(select(SubmissionRow.upload_dir).where(col(SubmissionRow.state).in_(waiting))).all()
    }
    removed = 0
    for entry in root.iterdir():
        if entry.name not in named:
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed


def remove_upload(row: SubmissionRow) -> None:
    """Remove a checked submission's uploaded files (an accepted bot is in the bot store by then)."""
    if row.upload_dir and SubmissionState(row.state).final:
        shutil.rmtree(results_dir() / row.upload_dir, ignore_errors=True)
