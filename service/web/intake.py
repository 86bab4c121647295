"""Accepting a submission: the rate limit, the upload's unpacking, its files put safely on disk, its row queued.

The files are written under ``results/serve/uploads/<random>/`` (aside first, then moved into place in one
step) before the row that names them is committed, and the row is committed before the author hears its id:
an accepted submission survives a ``kill -9`` of the server at any point. Files that no row names (a crash
between the two steps) are removed at the next start (:func:`sweep_orphans`), and so are those of checked
submissions (the checker removes them as it gives its verdict).
"""

from __future__ import annotations

import math
import os
import shutil
import threading
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel
from sqlmodel import Session

from ladder.errors import OverQuota
from ladder.paths import results_dir
from ladder.sandbox.submission import content_hash, write_tree
from ladder.seats.names import NAME_PATTERN
from ladder.store import submissions
from ladder.store.served_tables import AuthorRow, SubmissionRow
from ladder.store.tables import BotVersionRow, utcnow
from ladder.text import clean_text
from service.background.check_job import ownership_problem
from service.settings import ServeSettings
from service.upload_area import UPLOADS
from service.web.uploads import UploadRefused, unpack_upload

HOUR = timedelta(hours=1)


INTAKE = threading.Lock()  # one upload unpacked at a time: the rate limit's count and the new row stay one step


class RateLimited(OverQuota, ValueError):
    """The author sent too many submissions this hour; the message says when to try again."""


class Quota(BaseModel):
    """An author's hourly submissions: how many the server takes, how many are left, and when the oldest of
    this hour's stops counting (None when none counts). Only submissions that go to the checker count: an upload
    refused before its check and an unchanged one cost nothing."""

    per_hour: int
    used: int
    left: int
    next_free_at: datetime | None

    def sentence(self, now: datetime | None = None) -> str:
        said = f"{self.left} of {self.per_hour} submissions left this hour"
        if self.next_free_at is None:
            return said
        minutes = max(1, math.ceil((self.next_free_at - (now or utcnow())).total_seconds() / 60))
        return f"{said}; the next frees up at {self.next_free_at:%H:%M} UTC (in {minutes} min)"


@dataclass(frozen=True)
class Taken:
    """What the intake did with an upload: queued a new submission, or found it repeats one (``unchanged``)."""

    submission: SubmissionRow
    unchanged: bool
    version: BotVersionRow | None  # an unchanged one's version (None while the one it repeats waits for its check)
    quota: Quota

    def message(self) -> str:
        row = self.submission
        if not self.unchanged:
            return f"submission #{row.id} is queued for its check; {self.quota.sentence()}"
        if self.version is None:
            return (
                f"unchanged: the same files as submission #{row.id}, which waits for its check; nothing was queued "
                f"and no quota was spent ({self.quota.sentence()})"
            )
        return (
            f"unchanged: version {self.version.version} of {row.bot_name} ({self.version.content_hash[:12]}, "
            f"submission #{row.id}) is on the schedule with these files; nothing was checked again and no quota "
            f"was spent ({self.quota.sentence()})"
        )


def uploads_root() -> Path:
    return results_dir() / UPLOADS


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # SQLite keeps no time zone


def quota_of(session: Session, author: AuthorRow, per_hour: int) -> Quota:
    """The author's quota now (:class:`Quota`)."""
    assert author.id is not None
    now = utcnow()
    times = [_aware(t) for t in submissions.submission_times_since(session, author.id, now - HOUR)]
    return Quota(
        per_hour=per_hour,
        used=len(times),
        left=max(0, per_hour - len(times)),
        next_free_at=times[0] + HOUR if times else None,
    )


def check_rate(session: Session, author: AuthorRow, per_hour: int) -> Quota:
    quota = quota_of(session, author, per_hour)
    if quota.left <= 0:
        assert quota.next_free_at is not None
        raise RateLimited(
            f"you have sent {per_hour} submissions in the last hour, the most this server takes; the next place "
            f"frees up at {quota.next_free_at:%H:%M} UTC (an unchanged resubmission costs nothing)"
        )
    return quota


def accept(
    session: Session, author: AuthorRow, data: bytes, filename: str, name: str, settings: ServeSettings
) -> Taken:
    """Take an upload (see the module docstring); :class:`UploadRefused` or :class:`RateLimited` with one sentence.

    Unpacking an upload is CPU work (up to 20 MB inflated, then written): the routes call this in a worker
    thread, never on the web server's event loop, so an author sending archive bombs back to back (refused,
    so no rate limit counts them) slows nobody else's pages; :data:`INTAKE` keeps uploads one at a time."""
    with INTAKE:
        return _accept(session, author, data, filename, name, settings)


def _accept(
    session: Session, author: AuthorRow, data: bytes, filename: str, name: str, settings: ServeSettings
) -> Taken:
    """Refusals that need no check first (the name, the upload: they cost nothing), then an unchanged upload is
    answered with the submission it repeats (it costs nothing either), then the quota, then the new row."""
    assert author.id is not None
    shown = clean_text(Path(filename or "upload").name, one_line=True)[:120]
    if name and not NAME_PATTERN.match(name):
        raise UploadRefused(f"the name {name[:60]!r} is not usable: use 1 to 40 letters, digits, '_', '.' or '-'")
    if name and (problem := ownership_problem(session, author, name)) is not None:
        raise UploadRefused(problem)
    files = unpack_upload(data, shown, settings.uploads)
    source_hash = content_hash(files)
    repeat = submissions.repeated_submission(session, author.id, source_hash, name)
    if repeat is not None:
        quota = quota_of(session, author, settings.submissions_per_hour)
        return Taken(repeat.submission, True, repeat.version, quota)
    quota = check_rate(session, author, settings.submissions_per_hour)
    folder = uuid.uuid4().hex
    root = uploads_root()
    root.mkdir(parents=True, exist_ok=True)
    partial = root / f".{folder}.partial"
    write_tree(files, partial)
    os.replace(partial, root / folder)
    row = submissions.add_submission(session, author.id, shown, (UPLOADS / folder).as_posix(), name, source_hash)
    spent = quota.model_copy(update={"used": quota.used + 1, "left": quota.left - 1})
    if spent.next_free_at is None:
        spent.next_free_at = _aware(row.created_at) + HOUR
    return Taken(row, False, None, spent)


def sweep_orphans(session: Session) -> int:
    """Remove the upload folders no waiting submission needs: those no row names (left by a crash before their
    row was committed) and those of checked submissions (an accepted bot is in the bot store by then)."""
    root = uploads_root()
    if not root.is_dir():
        return 0
    named = {Path(p).name for p in submissions.waiting_upload_dirs(session)}
    removed = 0
    for entry in root.iterdir():
        if entry.name not in named:
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed
