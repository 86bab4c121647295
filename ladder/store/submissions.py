"""An author's submissions as the web app writes them: counted for the rate limit, added once unpacked, and the
upload folders the waiting ones still need (the rest are swept at start)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, func, select

from ladder.store.served_tables import SubmissionRow, SubmissionState


def submissions_since(session: Session, author_id: int, since: datetime) -> int:
    """How many submissions the author sent since ``since``."""
    return int(
        session.exec(
            select(func.count(col(SubmissionRow.id))).where(
                SubmissionRow.author_id == author_id, col(SubmissionRow.created_at) >= since
            )
        ).one()
    )


def add_submission(session: Session, author_id: int, filename: str, upload_dir: str, name: str) -> SubmissionRow:
    """A new queued submission of the upload in ``upload_dir``, committed."""
    row = SubmissionRow(author_id=author_id, filename=filename, upload_dir=upload_dir, name_override=name)
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


def waiting_upload_dirs(session: Session) -> list[str]:
    """The upload folders of the submissions still waiting for the checker (queued or being checked)."""
    waiting = [SubmissionState.QUEUED.value, SubmissionState.CHECKING.value]
    return list(session.exec(select(SubmissionRow.upload_dir).where(col(SubmissionRow.state).in_(waiting))).all())
