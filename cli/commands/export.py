"""`ladder export`: the matches (one row per seat) and the ratings, as CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import sys
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from sqlmodel import select

from cli.commands.dbview import DbOption, database, tournament_names, version_names
from cli.commands.rankings import rankings_json
from ladder import ratings
from ladder.errors import UserError
from ladder.paths import results_dir
from ladder.storage import MatchRow, SeatResultRow, unpack_actions


class Format(StrEnum):
    csv = "csv"
    json = "json"


SEAT_COLUMNS = ("match_id", "tournament", "key", "game", "players", "options", "seed", "status", "finished_at", "seconds",
                "seat", "bot", "version", "hash", "score", "rank", "failure_reason", "failure_detail", "at_action", "traceback")


def export(
    format_: Annotated[Format, typer.Option("--format", "-f", help="csv (one row per seat of each match) or json (matches, seats and ratings).")] = Format.csv,
    out: Annotated[str | None, typer.Option("--out", "-o", help="File to write; - for stdout (default: results/exports/ladder-<time>.<format>).")] = None,
    actions: Annotated[bool, typer.Option("--actions", help="JSON only: include every match's action log.")] = False,
    db: DbOption = None,
) -> None:
    """Export every recorded match (and, in JSON, the ratings) for analysis elsewhere."""
    if actions and format_ is Format.csv:
        raise UserError("--actions needs --format json (an action log does not fit a CSV cell)")
    with database(db) as session:
        names = version_names(session)
        tournaments = tournament_names(session)
        columns = [MatchRow.id, MatchRow.tournament_id, MatchRow.key, MatchRow.game, MatchRow.num_players, MatchRow.options_json,
                   MatchRow.seed, MatchRow.status, MatchRow.finished_at, MatchRow.seconds, MatchRow.details_json]
        if actions:
            columns.append(MatchRow.actions_z)
        matches = session.exec(select(*columns).order_by(MatchRow.id)).all()
        seats: dict[int, list[SeatResultRow]] = {}
        for seat in session.exec(select(SeatResultRow).order_by(SeatResultRow.match_id, SeatResultRow.seat)).all():
            seats.setdefault(seat.match_id, []).append(seat)
        rated, _ = ratings.current(session)
    if format_ is Format.csv:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(SEAT_COLUMNS)
        for m in matches:
            for s in seats.get(m[0], []):
                name = names.get(s.bot_version_id)
                writer.writerow([m[0], tournaments.get(m[1], m[1]), m[2], m[3], m[4], m[5], m[6], m[7], m[8].isoformat(), f"{m[9]:.4f}",
                                 s.seat, name.bot if name else "", name.version if name else "", name.content_hash if name else "",
                                 "" if s.score is None else s.score, "" if s.rank is None else s.rank, s.failure_reason or "",
                                 s.failure_detail, "" if s.at_action is None else s.at_action, s.stderr_tail])
        text = buffer.getvalue()
    else:
        listed: list[dict[str, Any]] = []
        for m in matches:
            item = {
                "id": m[0], "tournament": tournaments.get(m[1], m[1]), "key": m[2], "game": m[3], "players": m[4],
                "options": json.loads(m[5]), "seed": m[6], "status": m[7], "finished_at": m[8].isoformat(), "seconds": m[9],
                "details": json.loads(m[10]),
                "seats": [
                    {"seat": s.seat, "bot": names[s.bot_version_id].bot if s.bot_version_id in names else None,
                     "hash": names[s.bot_version_id].content_hash if s.bot_version_id in names else None,
                     "score": s.score, "rank": s.rank, "failure_reason": s.failure_reason, "failure_detail": s.failure_detail,
                     "at_action": s.at_action, "traceback": s.stderr_tail}
                    for s in seats.get(m[0], [])
                ],
            }
            if actions:
                item["actions"] = unpack_actions(m[11])
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
