"""`ladder export`: the matches (one row per seat) and the ratings, as CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from ladder.commands.dbview import DbOption, database, tournament_names, version_names
from ladder.commands.rankings import rankings_json
from ladder.errors import UserError
from ladder.paths import results_dir


class Format(StrEnum):
    csv = "csv"
    json = "json"


@dataclass(frozen=True)
class _Exported:
    """The columns of a match that the export shows (the action log only when asked for: it is the bulk)."""

    id: int
    tournament_id: int
    key: str
    game: str
    num_players: int
    options_json: str
    seed: int
    status: str
    finished_at: datetime
    seconds: float
    details_json: str
    actions_z: bytes | None = None


SEAT_COLUMNS = ("match_id", "tournament", "key", "game", "players", "options", "seed", "status", "finished_at", "seconds",
                "seat", "bot", "version", "hash", "score", "rank", "failure_reason", "failure_detail", "at_action", "traceback")


def export(
    format_: Annotated[Format, typer.Option("--format", "-f", help="csv (one row per seat of each match) or json (matches, seats and ratings).")] = Format.csv,
    out: Annotated[str | None, typer.Option("--out", "-o", help="File to write; - for stdout (default: results/exports/ladder-<time>.<format>).")] = None,
    actions: Annotated[bool, typer.Option("--actions", help="JSON only: include every match's action log.")] = False,
    db: DbOption = None,
) -> None:
    """Export every recorded match (and, in JSON, the ratings) for analysis elsewhere."""
    from sqlmodel import col, select

    from ladder import ratings
    from ladder.storage import MatchRow, SeatResultRow, unpack_actions

    if actions and format_ is Format.csv:
        raise UserError("--actions needs --format json (an action log does not fit a CSV cell)")
    with database(db) as session:
        names = version_names(session)
        tournaments = tournament_names(session)
        columns: list[Any] = [MatchRow.id, MatchRow.tournament_id, MatchRow.key, MatchRow.game, MatchRow.num_players,
                              MatchRow.options_json, MatchRow.seed, MatchRow.status, MatchRow.finished_at, MatchRow.seconds,
                              MatchRow.details_json]
        if actions:
            columns.append(MatchRow.actions_z)
        matches = [_Exported(*row) for row in session.execute(select(*columns).order_by(col(MatchRow.id))).all()]
        seats: dict[int, list[SeatResultRow]] = {}
        for seat in session.exec(select(SeatResultRow).order_by(col(SeatResultRow.match_id), col(SeatResultRow.seat))).all():
            seats.setdefault(seat.match_id, []).append(seat)
        rated, _ = ratings.current(session)
    if format_ is Format.csv:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(SEAT_COLUMNS)
        for m in matches:
            for s in seats.get(m.id, []):
                name = names.get(s.bot_version_id)
                writer.writerow([m.id, tournaments.get(m.tournament_id, m.tournament_id), m.key, m.game, m.num_players,
                                 m.options_json, m.seed, m.status, m.finished_at.isoformat(), f"{m.seconds:.4f}",
                                 s.seat, name.bot if name else "", name.version if name else "", name.content_hash if name else "",
                                 "" if s.score is None else s.score, "" if s.rank is None else s.rank, s.failure_reason or "",
                                 s.failure_detail, "" if s.at_action is None else s.at_action, s.stderr_tail])
        text = buffer.getvalue()
    else:
        listed: list[dict[str, Any]] = []
        for m in matches:
            item = {
                "id": m.id, "tournament": tournaments.get(m.tournament_id, m.tournament_id), "key": m.key, "game": m.game,
                "players": m.num_players, "options": json.loads(m.options_json), "seed": m.seed, "status": m.status,
                "finished_at": m.finished_at.isoformat(), "seconds": m.seconds, "details": json.loads(m.details_json),
                "seats": [
                    {"seat": s.seat, "bot": names[s.bot_version_id].bot if s.bot_version_id in names else None,
                     "hash": names[s.bot_version_id].content_hash if s.bot_version_id in names else None,
                     "score": s.score, "rank": s.rank, "failure_reason": s.failure_reason, "failure_detail": s.failure_detail,
                     "at_action": s.at_action, "traceback": s.stderr_tail}
                    for s in seats.get(m.id, [])
                ],
            }
            if m.actions_z is not None:
                item["actions"] = unpack_actions(m.actions_z)
            listed.append(item)
        text = json.dumps({"matches": listed, "ratings": rankings_json(rated, names, rated.pools())}, indent=1) + "\n"
    if out == "-":
        sys.stdout.write(text)
        return
    path = Path(out) if out else results_dir() / "exports" / f"ladder-{datetime.now():%Y%m%d-%H%M%S}.{format_.value}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {path}: {error.strerror or error}") from None
    Console(stderr=True).print(f"wrote {len(matches)} matches to {path}", highlight=False)
