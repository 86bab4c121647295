"""`ladder h2h BOT BOT`: how two bots did when they met (or played the same solitaire deals)."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ladder.commands.dbview import DbOption, database, versions_of
from ladder.commands.tables import fitted_table, number_column, print_table
from ladder.errors import UserError
from ladder.statuses import MatchStatus


def h2h(
    first: Annotated[str, typer.Argument(metavar="BOT", help="A bot name (every version), or name@hash.")],
    second: Annotated[str, typer.Argument(metavar="BOT", help="The other bot.")],
    game: Annotated[str | None, typer.Option("--game", help="Only this game.")] = None,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Head to head: at the same table, who finished ahead; in solitaires, who scored more on the same deals."""
    from sqlmodel import select

    from ladder.storage import MatchRow, SeatResultRow

    with database(db) as session:
        a_versions, b_versions = set(versions_of(session, first)), set(versions_of(session, second))
        if a_versions & b_versions:
            raise UserError(f"{first!r} and {second!r} name the same bot version")
        query = (
            select(MatchRow.id, MatchRow.tournament_id, MatchRow.game, MatchRow.num_players, MatchRow.deal,
                   SeatResultRow.bot_version_id, SeatResultRow.score, SeatResultRow.rank)
            .join(SeatResultRow, SeatResultRow.match_id == MatchRow.id)
            .where(MatchRow.status == MatchStatus.PLAYED, SeatResultRow.bot_version_id.in_(a_versions | b_versions))  # type: ignore[attr-defined]
        )
        if game:
            query = query.where(MatchRow.game == game)
        rows = session.exec(query).all()
    tables: dict[tuple[str, int], dict[str, dict]] = defaultdict(dict)  # (game, players) -> group -> side -> (score, rank)
    for mid, tid, game_id, players, deal, version, score, rank in rows:
        group = f"{tid}/{deal}" if players == 1 else str(mid)
        side = "a" if version in a_versions else "b"
        tables[(game_id, players)].setdefault(group, {})[side] = (score, rank)
    summary = []
    for (game_id, players), groups in sorted(tables.items()):
        a_ahead = b_ahead = tied = 0
        diffs = []
        for sides in groups.values():
            if "a" not in sides or "b" not in sides:
                continue
            (a_score, a_rank), (b_score, b_rank) = sides["a"], sides["b"]
            diffs.append((a_score or 0) - (b_score or 0))
            if players == 1:
                a_key, b_key = -(a_score or 0), -(b_score or 0)
            else:
                a_key, b_key = a_rank, b_rank
            a_ahead += a_key < b_key
            b_ahead += b_key < a_key
            tied += a_key == b_key
        met = a_ahead + b_ahead + tied
        if met:
            summary.append({"game": game_id, "players": players, "met": met, "first_ahead": a_ahead, "second_ahead": b_ahead,
                            "tied": tied, "mean_score_difference": sum(diffs) / len(diffs) if diffs else None})
    if as_json:
        print(json.dumps({"first": first, "second": second, "games": summary}, indent=2))
        return
    if not summary:
        raise UserError(f"{first} and {second} never met" + (f" in {game}" if game else "") + " (nor played the same solitaire deal)")
    table = fitted_table(f"{escape(first)} (A) vs {escape(second)} (B)")
    number_column(table, "game", left=True)
    for column in ("met", "A ahead", "B ahead", "tied", "A share", "mean score A-B"):
        number_column(table, column)
    for item in summary:
        share = (item["first_ahead"] + item["tied"] / 2) / item["met"]
        diff = item["mean_score_difference"]
        table.add_row(f"{item['game']} {'deals' if item['players'] == 1 else str(item['players']) + 'p'}",
                      str(item["met"]), str(item["first_ahead"]), str(item["second_ahead"]), str(item["tied"]),
                      f"{share:.1%}", "" if diff is None else f"{diff:+.2f}")
    print_table(Console(), table, "tables: who finished ahead in the same match; solitaires: who scored more on the same "
                                  "deal; A share: A's share of the meetings, ties counting half")
