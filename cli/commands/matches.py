"""`ladder matches`: the recorded matches, newest first, filtered by bot, game or tournament."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from cli.commands.dbview import (
    DbOption,
    VersionName,
    compact_table,
    database,
    failure_blocks,
    tournament_names,
    version_names,
    versions_of,
)
from cli.commands.rankings import tournament_id
from ladder.ratings.summary import ordinal
from ladder.store.tables import SeatResultRow
from ladder.text import clean_text
from ladder.views import match_lists


def matches(
    bot: Annotated[str | None, typer.Option("--bot", help="Only matches of this bot (name, or name@hash).")] = None,
    game: Annotated[str | None, typer.Option("--game", help="Only matches of this game.")] = None,
    tournament: Annotated[
        str | None,
        typer.Option(
            "--tournament",
            metavar="T",
            help="Only matches of this tournament (id, or name: its latest run; see `ladder tournaments`).",
        ),
    ] = None,
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            help="played, skipped, error, voided (a host fault: played again by the next run) or unplayable (voided twice: not played again).",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many (newest first).")] = 30,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the matches as JSON.")] = False,
) -> None:
    """List recorded matches, newest first: seats with bot, rank and score, status and time."""
    with database(db) as session:
        wanted = None if tournament is None else tournament_id(session, tournament)
        versions = None if bot is None else versions_of(session, bot)
        rows = match_lists.newest_matches(session, versions, game, wanted, status, limit)
        seats = match_lists.seats_by_match(session, [row.id for row in rows])
        names = version_names(session)
        tournaments = tournament_names(session)
    listed: list[dict[str, Any]] = []
    for row in rows:
        listed.append(
            {
                "id": row.id,
                "tournament": tournaments.get(row.tournament_id, str(row.tournament_id)),
                "game": row.game,
                "players": row.players,
                "seed": row.seed,
                "status": row.status,
                "error": row.error,
                "seconds": row.seconds,
                "finished": row.finished_at.isoformat(timespec="seconds"),
                "key": row.key,
                "seats": [_seat_json(s, names) for s in seats.get(row.id, [])],
            }
        )
    if as_json:
        print(json.dumps(listed, indent=2))
        return
    if not listed:
        Console().print("no match matches those filters", highlight=False)
        return
    console = Console()
    console.print(_matches_table(listed))
    failed = [(item["id"], seat) for item in listed for seat in item["seats"] if seat["failure"]]
    if failed:
        console.print(Text(f"\nFailed seats ({len(failed)}; a benching is told once per bot):", style="bold"))
        for block in failure_blocks(failed):
            console.print(block)


def _seat_json(s: SeatResultRow, names: dict[int, VersionName]) -> dict[str, Any]:
    """A seat as --json lists it (bot and version None for a version no longer in the database)."""
    return {
        "seat": s.seat,
        "bot": names[s.bot_version_id].bot if s.bot_version_id in names else None,
        "version": names[s.bot_version_id].content_hash[:8] if s.bot_version_id in names else None,
        "score": s.score,
        "rank": s.rank,
        "failure": s.failure_reason,
        "detail": s.failure_detail or None,
        "traceback": s.stderr_tail or None,
        "at_action": s.at_action,
    }


def _matches_table(listed: list[dict[str, Any]]) -> Table:
    """A row per match: its seats (bot, rank, score, failure), status, time taken and when it finished."""
    table = compact_table(f"Matches (newest {len(listed)})", "see one move by move: ladder replay ID")
    table.add_column("id", justify="right")
    table.add_column("tournament")
    table.add_column("game")
    table.add_column("seats: bot, rank (score)", ratio=1)
    table.add_column("status")
    table.add_column("seconds", justify="right")
    table.add_column("finished", no_wrap=True)
    for item in listed:
        seat_text = ", ".join(
            f"{s['bot']} {ordinal(s['rank'])}"
            + (f" ({s['score']:g})" if s["score"] is not None else "")
            + (f" [{s['failure']}]" if s["failure"] else "")
            for s in item["seats"]
        )
        # Text cells: bot names, failures in brackets and error messages are shown as written, never read as markup
        table.add_row(
            str(item["id"]),
            Text(clean_text(item["tournament"], one_line=True)),
            f"{item['game']} {item['players']}p",
            Text(seat_text),
            Text(item["status"] + (f": {clean_text(item['error'], one_line=True)}" if item["error"] else "")),
            f"{item['seconds']:.2f}",
            item["finished"][11:19],
        )
    return table
