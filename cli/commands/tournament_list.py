"""`ladder tournaments`: every tournament run with its state, progress and sealed deals.

Each tournament's deals come from a secret (:mod:`ladder.matches.deals`): its
commitment (the secret's SHA-256) is shown from the start, the secret itself
once the tournament ended. ``--reveal ID`` ends a stopped or incomplete
tournament on purpose: its secret is shown and never deals again (a later
run of its file plays the missing matches from a new secret).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from cli.commands.dbview import DbOption, database
from cli.commands.tables import fitted_table, label_column, number_column, print_table
from ladder.store.tables import TournamentRow, live_state
from ladder.store.tournament_secrets import reveal_secret as reveal_secret  # re-exported: `--reveal`
from ladder.text import clean_text
from ladder.views import catalog, match_lists


def _deals(row: TournamentRow) -> str:
    if row.deal_secret is None:
        return "public (made before sealed deals)"
    return "revealed" if row.secret_revealed_at is not None else "sealed"


def tournaments(
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
    reveal: Annotated[
        int | None,
        typer.Option(
            "--reveal",
            metavar="ID",
            help="End this stopped or incomplete tournament and reveal its deal secret (that secret never deals again; running its file again plays the missing matches from a new secret).",
        ),
    ] = None,
) -> None:
    """List tournament runs: state (running, stopped, interrupted, complete, budget spent), progress and sealed deals."""
    with database(db) as session:
        if reveal is not None:
            revealed = reveal_secret(session, reveal)
            Console().print(
                f"tournament {revealed.name} #{revealed.id}: deal secret {revealed.deal_secret} "
                f"(sha256 {revealed.deal_commitment})",
                highlight=False,
                markup=False,
            )
            return
        rows = catalog.tournament_rows(session)
        counts = match_lists.tournament_match_counts(session)
        benched = match_lists.benched_counts(session)
    listed = [_tournament_json(row, counts, benched) for row in rows]
    if as_json:
        print(json.dumps(listed, indent=2))
        return
    if not listed:
        Console().print("no tournament yet; run one: `ladder run quick`", highlight=False)
        return
    _print_tournaments(listed)


def _tournament_json(
    row: TournamentRow, match_counts: dict[int, Counter[str]], benched: Counter[int]
) -> dict[str, Any]:
    """A tournament as --json lists it (and the table shows it)."""

    assert row.id is not None  # a stored row
    counts = match_counts.get(row.id, Counter())
    return {
        "id": row.id,
        "name": row.name,
        "file": row.file,
        "seed": row.seed,
        "state": live_state(row),
        "scheduled": row.scheduled,
        "cycles": row.cycles,
        "played": counts["played"],
        "skipped": counts["skipped"],
        "errors": counts["error"],
        "voided": counts["voided"],
        "unplayable": counts["unplayable"],
        "older_versions": counts["older versions"],
        "benched": benched[row.id],
        "created": row.created_at.isoformat(timespec="seconds"),
        "updated": row.updated_at.isoformat(timespec="seconds"),
        "deals": _deals(row),
        "deal_commitment": row.deal_commitment or None,
        "deal_secret": row.shown_secret(),
        "previous_deals": json.loads(row.previous_deals),
        "secret_revealed": row.secret_revealed_at.isoformat(timespec="seconds") if row.secret_revealed_at else None,
    }


def _print_tournaments(listed: list[dict[str, Any]]) -> None:
    """A row per tournament, then each one's deal commitment and (once it ended) its secret."""
    table = fitted_table("Tournaments")
    number_column(table, "id")
    label_column(table, "name")
    for column in ("state", "done", "cycles", "updated"):
        number_column(table, column, left=column in ("state", "updated"))
    label_column(table, "problems")
    for item in listed:
        table.add_row(
            str(item["id"]),
            escape(clean_text(item["name"], one_line=True)),
            item["state"],
            f"{item['played'] + item['skipped'] + item['unplayable']} of {item['scheduled']}",
            str(item["cycles"]),
            item["updated"][5:16].replace("T", " "),
            _problems(item),
        )
    print_table(
        Console(),
        table,
        "done: matches played, skipped or unplayable, of those scheduled; updated: the last activity, "
        "month-day hour:minute (UTC); problems: matches skipped (a benched bot), matches "
        "that could not be played (errors), voided for a host fault (played again by the next run), unplayable (voided "
        "twice: not played again), bots benched, matches of older bot versions; "
        "`--json` gives every field in full",
    )
    console = Console()
    for item in listed:  # a hash a line: each fits 80 columns
        if item["deal_commitment"]:
            secret = item["deal_secret"] or "sealed until the tournament ends"
            console.print(
                f"#{item['id']} {clean_text(item['name'], one_line=True)}: deals\n"
                f"  commitment {item['deal_commitment']}\n  secret     {secret}",
                highlight=False,
                markup=False,
            )


def _problems(item: dict[str, Any]) -> str:
    """What went wrong in a tournament, in a few words ("-" for nothing)."""
    problems = ", ".join(
        f"{item[key]} {key}" for key in ("skipped", "errors", "voided", "unplayable", "benched") if item[key]
    )
    if item["older_versions"]:
        problems += (", " if problems else "") + f"{item['older_versions']} of older versions"
    return problems or "-"
