"""`ladder h2h BOT BOT`: how two bots did when they met (or played the same solitaire deals)."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from cli.commands.dbview import DbOption, database, versions_of
from cli.commands.tables import fitted_table, number_column, print_table
from ladder.errors import UserError
from ladder.views import match_lists


def h2h(
    first: Annotated[str, typer.Argument(metavar="BOT", help="A bot name (every version), or name@hash.")],
    second: Annotated[str, typer.Argument(metavar="BOT", help="The other bot.")],
    game: Annotated[str | None, typer.Option("--game", help="Only this game.")] = None,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Head to head: at the same table, who finished ahead; in solitaires, who scored better on the same deals."""
    from ladder.ratings.trueskill_model import facts_of

    with database(db) as session:
        a_versions, b_versions = set(versions_of(session, first)), set(versions_of(session, second))
        if a_versions & b_versions:
            raise UserError(f"{first!r} and {second!r} name the same bot version")
        rows = match_lists.played_seats(session, a_versions | b_versions, game)
    # (game, players) -> group -> side -> (score, rank, failed)
    tables: dict[tuple[str, int], dict[str, dict]] = defaultdict(dict)
    for seat in rows:
        mid, tid, game_id, players, deal = seat.match_id, seat.tournament_id, seat.game, seat.players, seat.deal
        version, score, rank, failure = seat.version_id, seat.score, seat.rank, seat.failure
        group = f"{tid}/{deal}" if facts_of(game_id).solitaire else str(mid)
        side = "a" if version in a_versions else "b"
        tables[(game_id, players)].setdefault(group, {})[side] = (score, rank, failure is not None)
    summary = []
    for (game_id, players), groups in sorted(tables.items()):
        found = _meetings(game_id, players, groups)
        if found is not None:
            summary.append(found)
    if as_json:
        print(json.dumps({"first": first, "second": second, "games": summary}, indent=2))
        return
    if not summary:
        raise UserError(
            f"{first} and {second} never met"
            + (f" in {game}" if game else "")
            + " (nor played the same solitaire deal)"
        )
    _print_meetings(first, second, summary)


def _meetings(game_id: str, players: int, groups: dict[str, dict]) -> dict[str, Any] | None:
    """The counts of one game and table size: where both bots played (the same match, or the same solitaire
    deal), who was ahead (by rank, in a solitaire as the ratings rank a deal: by the score order, failed seats
    last) and the mean score difference; None if they never met."""
    from ladder.ratings.trueskill_model import deal_ranks, facts_of

    facts = facts_of(game_id)
    a_ahead = b_ahead = tied = 0
    diffs = []
    for sides in groups.values():
        if "a" not in sides or "b" not in sides:
            continue
        (a_score, a_rank, a_failed), (b_score, b_rank, b_failed) = sides["a"], sides["b"]
        diffs.append((a_score or 0) - (b_score or 0))
        if facts.solitaire:
            a_key, b_key = deal_ranks([a_score or 0, b_score or 0], [a_failed, b_failed], facts.higher_is_better)
        else:
            a_key, b_key = a_rank, b_rank
        a_ahead += a_key < b_key
        b_ahead += b_key < a_key
        tied += a_key == b_key
    met = a_ahead + b_ahead + tied
    if not met:
        return None
    return {
        "game": game_id,
        "players": players,
        "met": met,
        "first_ahead": a_ahead,
        "second_ahead": b_ahead,
        "tied": tied,
        "mean_score_difference": sum(diffs) / len(diffs) if diffs else None,
    }


def _print_meetings(first: str, second: str, summary: list[dict[str, Any]]) -> None:
    """The counts as a table, a row per game and table size, with A's share of the meetings."""
    table = fitted_table(f"{escape(first)} (A) vs {escape(second)} (B)")
    number_column(table, "game", left=True)
    for column in ("met", "A ahead", "B ahead", "tied", "A share", "mean score A-B"):
        number_column(table, column)
    for item in summary:
        share = (item["first_ahead"] + item["tied"] / 2) / item["met"]
        diff = item["mean_score_difference"]
        table.add_row(
            f"{item['game']} {'deals' if item['players'] == 1 else str(item['players']) + 'p'}",
            str(item["met"]),
            str(item["first_ahead"]),
            str(item["second_ahead"]),
            str(item["tied"]),
            f"{share:.1%}",
            "" if diff is None else f"{diff:+.2f}",
        )
    print_table(
        Console(),
        table,
        "tables: who finished ahead in the same match; solitaires: who scored more on the same "
        "deal; A share: A's share of the meetings, ties counting half",
    )
