"""The served ladder's schedule as the scheduler and the checker read it: its tournament row, the versions that
may play, what it planned, and the next submission to check (the queries of :mod:`service.background`)."""

from __future__ import annotations

import json

from sqlmodel import Session, col, select

from ladder.store.served_tables import (
    BotState,
    PlannedMatchRow,
    ServedBotRow,
    ServedVersionRow,
    SubmissionRow,
    SubmissionState,
    VersionState,
)
from ladder.store.tables import TournamentRow


def served_tournament(session: Session, name: str, fingerprint: str) -> TournamentRow | None:
    """The served ladder's tournament row, if it was made."""
    return session.exec(
        select(TournamentRow).where(TournamentRow.name == name, TournamentRow.fingerprint == fingerprint)
    ).first()


def playing_versions(session: Session) -> dict[int, int]:
    """The authors' versions on the schedule (active, of an active bot): version id -> author id."""
    rows = session.exec(
        select(ServedVersionRow.bot_version_id, ServedVersionRow.author_id)
        .join(ServedBotRow, col(ServedBotRow.bot_id) == col(ServedVersionRow.bot_id))
        .where(ServedVersionRow.state == VersionState.ACTIVE.value, ServedBotRow.state == BotState.ACTIVE.value)
    ).all()
    return {version: author for version, author in rows}


def version_authors(session: Session) -> dict[int, int]:
    """Every served version's author: version id -> author id."""
    return dict(session.exec(select(ServedVersionRow.bot_version_id, ServedVersionRow.author_id)).all())


def planned_deals(session: Session, tournament_id: int) -> list[tuple[str, int, bool, list[int]]]:
    """Every planned match's pool, deal number, whether it was placement, and its seats' version ids."""
    rows = session.exec(
        select(
            PlannedMatchRow.pool, PlannedMatchRow.number, PlannedMatchRow.placement, PlannedMatchRow.version_ids_json
        ).where(PlannedMatchRow.tournament_id == tournament_id)
    ).all()
    return [(pool, number, placement, json.loads(ids)) for pool, number, placement, ids in rows]


def planned_matches(session: Session, tournament_id: int) -> list[PlannedMatchRow]:
    """The planned matches in the order they were planned."""
    return list(
        session.exec(
            select(PlannedMatchRow)
            .where(PlannedMatchRow.tournament_id == tournament_id)
            .order_by(col(PlannedMatchRow.id))
        ).all()
    )


def next_to_check(session: Session) -> SubmissionRow | None:
    """The oldest submission waiting for its check (queued, or checking when a server stopped mid-check)."""
    return session.exec(
        select(SubmissionRow)
        .where(col(SubmissionRow.state).in_([SubmissionState.QUEUED.value, SubmissionState.CHECKING.value]))
        .order_by(col(SubmissionRow.id))
    ).first()
