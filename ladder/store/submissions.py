"""An author's submissions as the web app writes them: counted for the rate limit, added once unpacked, found again
when the same files come back, and the upload folders the waiting ones still need (the rest are swept at start)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from ladder.store.served_tables import ServedVersionRow, SubmissionRow, SubmissionState, VersionState
from ladder.store.tables import BotVersionRow

WAITING = (SubmissionState.QUEUED.value, SubmissionState.CHECKING.value)


def submission_times_since(session: Session, author_id: int, since: datetime) -> list[datetime]:
    """When the author sent each submission since ``since``, oldest first (each one is a place of the hourly
    quota; an upload refused before its row was written, or answered as unchanged, has no row)."""
    return list(
        session.exec(
            select(SubmissionRow.created_at)
            .where(SubmissionRow.author_id == author_id, col(SubmissionRow.created_at) >= since)
            .order_by(col(SubmissionRow.created_at))
        ).all()
    )


def add_submission(
    session: Session, author_id: int, filename: str, upload_dir: str, name: str, source_hash: str = ""
) -> SubmissionRow:
    """A new queued submission of the upload in ``upload_dir``, committed."""
    row = SubmissionRow(
        author_id=author_id, filename=filename, upload_dir=upload_dir, name_override=name, source_hash=source_hash
    )
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


@dataclass(frozen=True)
class Repeat:
    """The submission an upload repeats: the same files, under the same name, as the author's latest."""

    submission: SubmissionRow
    version: BotVersionRow | None  # None: that submission still waits for its check


def repeated_submission(session: Session, author_id: int, source_hash: str, name: str) -> Repeat | None:
    """The submission of the author's that an upload of these files (``source_hash``, under ``name``) would only
    repeat, or None when it would change something and must be checked.

    It repeats one still waiting for its check when nothing was sent after that one; it repeats an accepted one
    when that is still its bot's latest: no later accepted submission of the bot, none waiting (its bot is not
    known before its check, so it may be this bot's), and its version still on the schedule (sent again, a
    superseded version would go back on it)."""
    live = [*WAITING, SubmissionState.ACTIVE.value]
    rows = session.exec(
        select(SubmissionRow)
        .where(SubmissionRow.author_id == author_id, col(SubmissionRow.state).in_(live))
        .order_by(col(SubmissionRow.id).desc())
        .limit(500)
    ).all()
    for index, row in enumerate(rows):
        if row.source_hash != source_hash or row.name_override != name or not source_hash:
            continue
        newer = rows[:index]
        if row.state in WAITING:
            return Repeat(row, None) if not newer else None
        if any(r.state in WAITING or r.bot_name == row.bot_name for r in newer) or row.bot_version_id is None:
            return None
        served = session.get(ServedVersionRow, row.bot_version_id)
        version = session.get(BotVersionRow, row.bot_version_id)
        if served is None or served.state != VersionState.ACTIVE.value or version is None:
            return None
        return Repeat(row, version)
    return None


def waiting_upload_dirs(session: Session) -> list[str]:
    """The upload folders of the submissions still waiting for the checker (queued or being checked)."""
    return list(session.exec(select(SubmissionRow.upload_dir).where(col(SubmissionRow.state).in_(WAITING))).all())
