"""`ladder matches`: the recorded matches, newest first, filtered by bot, game or tournament."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from ladder.commands.dbview import (
    DbOption,
    compact_table,
    database,
    failure_blocks,
    ordinal,
    tournament_names,
    version_names,
    versions_of,
)
from ladder.text import clean_text


def matches(
    bot: Annotated[str | None, typer.Option("--bot", help="Only matches of this bot (name, or name@hash).")] = None,
    game: Annotated[str | None, typer.Option("--game", help="Only matches of this game.")] = None,
    tournament: Annotated[int | None, typer.Option("--tournament", help="Only matches of this tournament id.")] = None,
    status: Annotated[str | None, typer.Option("--status", help="played, skipped, error or voided (a host fault: played again by the next run).")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many (newest first).")] = 30,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the matches as JSON.")] = False,
) -> None:
    """List recorded matches, newest first: seats with bot, rank and score, status and time."""
    from sqlmodel import select

    from ladder.storage import MatchRow, SeatResultRow

    with database(db) as session:
        query = select(MatchRow.id, MatchRow.tournament_id, MatchRow.game, MatchRow.num_players, MatchRow.seed,
                       MatchRow.status, MatchRow.error, MatchRow.seconds, MatchRow.finished_at, MatchRow.key)
        if game:
            query = query.where(MatchRow.game == game)
        if tournament is not None:
            query = query.where(MatchRow.tournament_id == tournament)
        if status:
            query = query.where(MatchRow.status == status)
        if bot:
            versions = versions_of(session, bot)
            query = query.where(MatchRow.id.in_(  # type: ignore[union-attr]
                select(SeatResultRow.match_id).where(SeatResultRow.bot_version_id.in_(versions))))  # type: ignore[attr-defined]
        rows = session.exec(query.order_by(MatchRow.id.desc()).limit(limit)).all()  # type: ignore[union-attr]
        ids = [row[0] for row in rows]
        seats: dict[int, list[SeatResultRow]] = {}
        for seat in session.exec(select(SeatResultRow).where(SeatResultRow.match_id.in_(ids)).order_by(SeatResultRow.seat)).all():  # type: ignore[attr-defined]
            seats.setdefault(seat.match_id, []).append(seat)
        names = version_names(session)
        tournaments = tournament_names(session)
    listed = []
    for mid, tid, game_id, players, seed, state, error, seconds, finished, key in rows:
        listed.append({
            "id": mid, "tournament": tournaments.get(tid, str(tid)), "game": game_id, "players": players, "seed": seed,
            "status": state, "error": error, "seconds": seconds, "finished": finished.isoformat(timespec="seconds"), "key": key,
            "seats": [
                {"seat": s.seat, "bot": names[s.bot_version_id].bot if s.bot_version_id in names else None,
                 "version": names[s.bot_version_id].content_hash[:8] if s.bot_version_id in names else None,
                 "score": s.score, "rank": s.rank, "failure": s.failure_reason, "detail": s.failure_detail or None,
                 "traceback": s.stderr_tail or None, "at_action": s.at_action}
                for s in seats.get(mid, [])
            ],
        })
    if as_json:
        print(json.dumps(listed, indent=2))
        return
    if not listed:
        Console().print("no match matches those filters", highlight=False)
        return
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
            f"{s['bot']} {ordinal(s['rank'])}" + (f" ({s['score']:g})" if s["score"] is not None else "")
            + (f" [{s['failure']}]" if s["failure"] else "")
            for s in item["seats"]
        )
        # Text cells: bot names, failures in brackets and error messages are shown as written, never read as markup
        table.add_row(str(item["id"]), Text(clean_text(item["tournament"], one_line=True)), f"{item['game']} {item['players']}p", Text(seat_text),
                      Text(item["status"] + (f": {clean_text(item['error'], one_line=True)}" if item["error"] else "")), f"{item['seconds']:.2f}",
                      item["finished"][11:19])
    console = Console()
    console.print(table)
    failed = [(item["id"], seat) for item in listed for seat in item["seats"] if seat["failure"]]
    if failed:
        console.print(Text(f"\nFailed seats ({len(failed)}; a benching is told once per bot):", style="bold"))
        for block in failure_blocks(failed):
            console.print(block)
