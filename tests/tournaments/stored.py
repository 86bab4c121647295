"""What a tournament stored, as plain data that two runs can be compared by (local pool against Dask)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from ladder.store.action_log import unpack_actions
from ladder.store.database import open_database
from ladder.store.tables import BotVersionRow, MatchRow, SeatResultRow, TournamentRow


def stored_results(db_url: str, tournament: str | None = None) -> dict[str, dict[str, Any]]:
    """Every recorded match of the tournament named ``tournament`` (or of all), by key.

    Each holds what a run decides: the game, options and seed, the status,
    the action log, and per seat the bot version (content hash), score, rank
    and failure. Timings, worker names, attempts and database ids are left
    out: they differ from run to run by nature.
    """
    engine = open_database(db_url)
    try:
        with Session(engine) as session:
            hashes = {row.id: row.content_hash for row in session.exec(select(BotVersionRow)).all()}
            query = select(MatchRow)
            if tournament is not None:
                ids = [
                    row.id for row in session.exec(select(TournamentRow).where(TournamentRow.name == tournament)).all()
                ]
                query = query.where(MatchRow.tournament_id.in_(ids))  # type: ignore[union-attr]
            matches = session.exec(query).all()
            seats: dict[int, list[SeatResultRow]] = {}
            for seat in session.exec(select(SeatResultRow)).all():
                seats.setdefault(seat.match_id, []).append(seat)
            found = {}
            for match in matches:
                assert match.id is not None
                found[match.key] = {
                    "game": match.game,
                    "options": match.options_json,
                    "seed": match.seed,
                    "status": match.status,
                    "error": match.error,
                    "actions": unpack_actions(match.actions_z) if match.actions_z else [],
                    "action_count": match.action_count,
                    "details": match.details_json,
                    "seats": [
                        (
                            s.seat,
                            hashes[s.bot_version_id],
                            s.score,
                            s.rank,
                            s.failure_reason,
                            s.failure_detail,
                            s.at_action,
                        )
                        for s in sorted(seats.get(match.id, []), key=lambda s: s.seat)
                    ],
                }
            return found
    finally:
        engine.dispose()


def differences(first: dict[str, dict[str, Any]], second: dict[str, dict[str, Any]], limit: int = 5) -> list[str]:
    """Up to ``limit`` sentences naming where two stored tournaments differ (empty: the same)."""
    found = []
    for key in sorted(set(first) | set(second)):
        if key not in first or key not in second:
            found.append(f"{key}: only in the {'second' if key not in first else 'first'} run")
        else:
            for field, value in first[key].items():
                if second[key][field] != value:
                    found.append(f"{key}: {field} differs: {str(value)[:120]} / {str(second[key][field])[:120]}")
        if len(found) >= limit:
            break
    return found


def count_rows(db_path: Path) -> int:
    """How many matches a (possibly still running, possibly not yet created) SQLite ladder holds."""
    if not db_path.exists():
        return 0
    try:
        with sqlite3.connect(db_path, timeout=5) as connection:
            return connection.execute("select count(*) from match").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
