"""`ladder tournaments`: every tournament run with its state and progress."""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated

import typer
from rich.console import Console

from ladder.commands.dbview import DbOption, compact_table, database


def tournaments(
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List tournament runs: state (running, stopped, interrupted, complete, budget spent) and progress."""
    from sqlalchemy import func
    from sqlmodel import select

    from ladder.storage import BenchRow, MatchRow, TournamentRow, live_state

    with database(db) as session:
        rows = session.exec(select(TournamentRow).order_by(TournamentRow.id)).all()
        counts: dict[int, Counter[str]] = {}
        for tid, status, n in session.exec(
            select(MatchRow.tournament_id, MatchRow.status, func.count(MatchRow.id)).group_by(MatchRow.tournament_id, MatchRow.status)
        ).all():
            counts.setdefault(tid, Counter())[status] = n
        benched = Counter(b.tournament_id for b in session.exec(select(BenchRow)).all())
    listed = [
        {
            "id": row.id, "name": row.name, "file": row.file, "seed": row.seed, "state": live_state(row),
            "scheduled": row.scheduled, "cycles": row.cycles, "played": counts.get(row.id, Counter())["played"],
            "skipped": counts.get(row.id, Counter())["skipped"], "errors": counts.get(row.id, Counter())["error"],
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
    for column in ("id", "name", "state", "done", "cycles", "skipped", "errors", "benched", "last activity"):
        table.add_column(column, justify="left" if column in ("name", "state", "last activity") else "right")
    for item in listed:
        table.add_row(
            str(item["id"]), item["name"], item["state"], f"{item['played'] + item['skipped']} of {item['scheduled']}",
            str(item["cycles"]), str(item["skipped"] or "-"), str(item["errors"] or "-"), str(item["benched"] or "-"),
            item["updated"][:19].replace("T", " "),
        )
    Console().print(table)
