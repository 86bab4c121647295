"""`ladder tournaments`: every tournament run with its state and progress."""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ladder.commands.dbview import DbOption, database
from ladder.commands.tables import fitted_table, label_column, number_column, print_table


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
    table = fitted_table("Tournaments")
    number_column(table, "id")
    label_column(table, "name")
    for column in ("state", "done", "cycles", "updated"):
        number_column(table, column, left=column in ("state", "updated"))
    label_column(table, "problems")
    for item in listed:
        problems = ", ".join(f"{item[key]} {key}" for key in ("skipped", "errors", "benched") if item[key]) or "-"
        table.add_row(
            str(item["id"]), escape(item["name"]), item["state"], f"{item['played'] + item['skipped']} of {item['scheduled']}",
            str(item["cycles"]), item["updated"][5:16].replace("T", " "), problems,
        )
    print_table(Console(), table, "done: matches played or skipped, of those scheduled; updated: the last activity, "
                                  "month-day hour:minute (UTC); problems: matches skipped (a benched bot), matches "
                                  "that could not be played (errors), bots benched; `--json` gives every field in full")
