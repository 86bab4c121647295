"""`ladder tournaments`: every tournament run with its state and progress."""

from __future__ import annotations

import json
import os
import socket
from collections import Counter
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.text import Text

from ladder.commands.dbview import DbOption, compact_table, database, latest_version_ids

if TYPE_CHECKING:
    from ladder.storage import TournamentRow


def _state(row: TournamentRow) -> str:
    if row.state != "running":
        return row.state
    if row.host == socket.gethostname() and row.pid:
        try:
            os.kill(row.pid, 0)
            return "running"
        except ProcessLookupError:
            return "interrupted"
        except PermissionError:
            return "running"
    return "running?"


def tournaments(
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List tournament runs: state (running, stopped, interrupted, complete, budget spent) and progress."""
    from sqlmodel import select

    from ladder.storage import BenchRow, MatchRow, SeatResultRow, TournamentRow

    with database(db) as session:
        rows = session.exec(select(TournamentRow).order_by(TournamentRow.id)).all()
        latest = latest_version_ids(session)
        outdated = {match_id for match_id, version in session.exec(
            select(SeatResultRow.match_id, SeatResultRow.bot_version_id)).all() if version not in latest}
        counts: dict[int, Counter[str]] = {}
        for match_id, tid, status in session.exec(select(MatchRow.id, MatchRow.tournament_id, MatchRow.status)).all():
            # the matches of a bot's older versions stay recorded, but a new version has its own matches to play
            counts.setdefault(tid, Counter())["older versions" if match_id in outdated else status] += 1
        benched = Counter(b.tournament_id for b in session.exec(select(BenchRow)).all())
    listed = [
        {
            "id": row.id, "name": row.name, "file": row.file, "seed": row.seed, "state": _state(row),
            "scheduled": row.scheduled, "cycles": row.cycles, "played": counts.get(row.id, Counter())["played"],
            "skipped": counts.get(row.id, Counter())["skipped"], "errors": counts.get(row.id, Counter())["error"],
            "older_versions": counts.get(row.id, Counter())["older versions"],
            "benched": benched[row.id], "created": row.created_at.isoformat(timespec="seconds"),
            "updated": row.updated_at.isoformat(timespec="seconds"),
        }
        for row in rows
    ]
    if as_json:
        print(json.dumps(listed, indent=2))
        return
    if not listed:
        Console().print("no tournament yet; run one: `ladder run tournaments/quick.toml`", highlight=False)
        return
    table = compact_table("Tournaments")
    for column in ("id", "name", "state", "done", "cycles", "skipped", "errors", "benched", "older versions", "last activity"):
        table.add_column(column, justify="left" if column in ("name", "state", "last activity") else "right")
    for item in listed:
        table.add_row(
            str(item["id"]), Text(item["name"]), item["state"], f"{item['played'] + item['skipped']} of {item['scheduled']}",
            str(item["cycles"]), str(item["skipped"] or "-"), str(item["errors"] or "-"), str(item["benched"] or "-"),
            str(item["older_versions"] or "-"),
            item["updated"][:19].replace("T", " "),
        )
    Console().print(table)
