"""`ladder rankings [GAME]`: the TrueSkill leaderboard of each game, and the overall one."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ladder.commands.dbview import DbOption, VersionName, compact_table, database, latest_version_ids, version_names
from ladder.errors import UserError

if TYPE_CHECKING:
    from sqlmodel import Session

    from ladder.ratings import RatingSet


def _pool_title(pool: str, rated: RatingSet) -> str:
    game, _, players = pool.partition("/")
    count = int(players.rstrip("p"))
    if count == 1:
        return f"{game}: solitaire, duplicate deals"
    return f"{game}: {count} players"


def _column(table: Table, name: str) -> None:
    if name in ("bot", "version"):
        table.add_column(name, no_wrap=True)
    else:
        table.add_column(name, justify="right", min_width=min(len(name), 6))


def pool_table(pool: str, rated: RatingSet, names: dict[int, VersionName]) -> Table:
    solitaire = pool.endswith("/1p")
    draw = rated.draw_probability.get(pool, 0.0)
    table = compact_table(_pool_title(pool, rated),
                   f"TrueSkill (tau 0; draw probability {draw:.3f}, the observed tie rate), ordered by mu - 3 sigma")
    for column in ("rank", "bot", "version", "mu", "sigma", "mu-3σ", "deals" if solitaire else "matches", "win rate"):
        _column(table, column)
    if solitaire:
        _column(table, "mean score")
    _column(table, "failed")
    for position, standing in enumerate(rated.table(pool), start=1):
        name = names.get(standing.bot_version_id)
        cells = [
            str(position),
            Text(name.bot if name else f"#{standing.bot_version_id}"),  # bot-provided text: never read as markup
            Text(name.version_label if name else "?"),
            f"{standing.mu:.2f}",
            f"{standing.sigma:.2f}",
            f"{standing.conservative:.2f}",
            str(standing.matches),
            f"{standing.win_rate:.1%}",
        ]
        if solitaire:
            cells.append(f"{standing.mean_score:.2f}")
        cells.append(str(standing.failures) if standing.failures else "-")
        table.add_row(*cells)
    return table


def overall_table(rated: RatingSet, names: dict[int, VersionName]) -> Table:
    from ladder import ratings

    table = compact_table("Overall, across games", ratings.OVERALL_METHOD)
    for column in ("rank", "bot", "version", "overall score", "pools played", "mean mu-3σ"):
        _column(table, column)
    for position, row in enumerate(ratings.overall(rated), start=1):
        name = names.get(row.bot_version_id)
        table.add_row(
            str(position),
            Text(name.bot if name else f"#{row.bot_version_id}"),
            Text(name.version_label if name else "?"),
            f"{row.score:.3f}",
            f"{row.pools} of {len(rated.pools())}",
            f"{row.mean_conservative:.2f}",
        )
    return table


def rankings_json(rated: RatingSet, names: dict[int, VersionName], pools: Iterable[str]) -> dict[str, Any]:
    from ladder import ratings

    def who(version: int) -> dict[str, Any]:
        name = names.get(version)
        return {"bot": name.bot if name else None, "version": name.version if name else None,
                "hash": name.content_hash if name else None}

    return {
        "method": ratings.METHOD,
        "overall_method": ratings.OVERALL_METHOD,
        "matches": rated.match_count,
        "pools": {
            pool: {
                "draw_probability": rated.draw_probability.get(pool, 0.0),
                "table": [
                    who(s.bot_version_id) | {
                        "rank": i, "mu": s.mu, "sigma": s.sigma, "conservative": s.conservative, "matches": s.matches,
                        "wins": s.wins, "win_rate": s.win_rate, "mean_score": s.mean_score, "failures": s.failures,
                    }
                    for i, s in enumerate(rated.table(pool), start=1)
                ],
            }
            for pool in pools
        },
        "overall": [
            who(r.bot_version_id) | {"rank": i, "score": r.score, "pools": r.pools, "mean_conservative": r.mean_conservative}
            for i, r in enumerate(ratings.overall(rated), start=1)
        ],
    }


def tournament_id(session: Session, ref: str) -> int:
    """A tournament by id (``3``) or by name (the latest of that name)."""
    from sqlmodel import select

    from ladder.storage import TournamentRow

    rows = session.exec(select(TournamentRow).order_by(TournamentRow.id)).all()
    found = [row.id for row in rows if str(row.id) == ref or row.name == ref]
    if not found:
        known = ", ".join(f"{row.name} #{row.id}" for row in rows) or "none yet"
        raise UserError(f"no tournament {ref!r} in the database; tournaments: {known}")
    return found[-1] or 0


def filtered_ratings(session: Session, tournament: str | None, latest_versions: bool) -> RatingSet:
    """Ratings computed now from the matches of one tournament and/or among the latest version of every bot
    (a match with an older version of any of its bots is left out)."""
    from ladder import ratings

    facts = ratings.load_match_facts(session)
    if tournament is not None:
        wanted = tournament_id(session, tournament)
        facts = [fact for fact in facts if fact.tournament_id == wanted]
    if latest_versions:
        current = latest_version_ids(session)
        facts = [fact for fact in facts if all(seat.bot_version_id in current for seat in fact.seats)]
    return ratings.compute(facts, ratings.solitaire_ids())


def print_rankings(session: Session, games: list[str] | None = None, console: Console | None = None,
                   as_json: bool = False, overall: bool | None = None, rated: RatingSet | None = None,
                   scope: str = "") -> None:
    """Print the leaderboard of each pool of ``games`` (all when None), then the overall table
    (by default only when every game is shown). ``rated``: ratings computed from a chosen set of matches
    (``scope`` says which), instead of every match's."""
    from ladder import ratings

    console = console or Console()
    fresh = True
    if rated is None:
        rated, fresh = ratings.current(session)
    if not rated.pools():
        if scope:
            raise UserError(f"no rated match {scope}")
        raise UserError("no rated match yet in this database; run a tournament first: `ladder run tournaments/quick.toml`")
    pools = [pool for pool in rated.pools() if games is None or pool.partition("/")[0] in games]
    if not pools:
        rated_games = sorted({pool.partition("/")[0] for pool in rated.pools()})
        raise UserError(f"no ratings for {', '.join(games or [])}; rated games: {', '.join(rated_games)}")
    names = version_names(session)
    if as_json:
        print(json.dumps(rankings_json(rated, names, pools), indent=2))
        return
    for pool in pools:
        console.print(pool_table(pool, rated, names))
    if (games is None) if overall is None else (overall and len(rated.pools()) > 1):
        console.print(overall_table(rated, names))
    note = f"{rated.match_count} matches rated" + (f" ({scope})" if scope else "")
    if not fresh and not scope:
        note += " (computed now: the stored ratings are older; a run stores them when it ends, `ladder rerate` any time)"
    if rated.unrated_events:
        note += f"; {rated.unrated_events} events could not be rated (numerical limits of TrueSkill)"
    console.print(note, style="dim", highlight=False)


def rankings(
    game: Annotated[str | None, typer.Argument(metavar="[GAME]", help="Only this game's tables (default: every game).")] = None,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the tables as JSON.")] = False,
    tournament: Annotated[str | None, typer.Option("--tournament", metavar="T", help="Only the matches of this tournament (id, or name: its latest run; see `ladder tournaments`).")] = None,
    latest_versions: Annotated[bool, typer.Option("--latest-versions", help="Only the latest version of each bot (matches with an older version are left out).")] = False,
) -> None:
    """The leaderboard of each game (rank, bot, version, mu, sigma, mu - 3 sigma, matches, win rate) and overall."""
    with database(db) as session:
        rated = None
        scopes = []
        if tournament is not None or latest_versions:
            rated = filtered_ratings(session, tournament, latest_versions)
            if tournament is not None:
                scopes.append(f"in tournament {tournament}")
            if latest_versions:
                scopes.append("among the latest version of each bot")
        print_rankings(session, [game] if game else None, as_json=as_json, rated=rated, scope=" and ".join(scopes))
