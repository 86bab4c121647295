"""`ladder rankings [GAME]`: the TrueSkill leaderboard of each game with how sure it is, and the overall one.

Under each pool's table: the verdict (settled / not yet) and its reason. In
the table: each bot's rank interval (``ranks``) and the confidence that it is
better than the next bot down (``P>next``), both from the paired sequential
tests on the deals the bots played (:mod:`ladder.ratings.verdict`, docs/verdict.md),
at the chosen confidence for the whole table; the rating itself is TrueSkill's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from sqlmodel import Session

from cli.commands.dbview import (
    DbOption,
    VersionName,
    compact_table,
    database,
    distinct_labels,
    version_names,
)
from cli.commands.tables import fit, label_column, number_column
from ladder.errors import UserError
from ladder.ratings import across_pools as ratings_across_pools
from ladder.ratings import certainty
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.certainty import OverallInterval, PairState, PoolCertainty, Verdict
from ladder.ratings.pools import PoolKey
from ladder.ratings.trueskill_model import MatchFact, RatingSet
from ladder.views import catalog, leaderboard, records


def _column(table: Table, name: str) -> None:
    """Bot names and versions wrap to what the numbers leave; numbers are never cut (:func:`fit`)."""
    if name in ("bot", "version"):
        label_column(table, name)
    else:
        number_column(table, name)


def pool_table(pool: str, rated: RatingSet, names: dict[int, VersionName], sure: PoolCertainty) -> Table:
    from ladder.ratings.trueskill_model import facts_of

    solitaire = facts_of(PoolKey.parse(pool).game).solitaire
    draw = rated.draw_probability.get(pool, 0.0)
    table = compact_table(
        records.pool_title(pool),
        f"TrueSkill, all matches at once (draw probability {draw:.3f}); by mu - 3σ; "
        f"ranks and P>next: paired sequential tests on shared deals, {sure.confidence:.0%} "
        f"for the whole table (P>next: confidence of being better than the next bot; = equal within "
        f"the margin, ≈ not worse than the next by the margin)",
    )
    for column in (
        "rank",
        "bot",
        "version",
        "mu",
        "σ",
        "mu-3σ",
        "ranks",
        "P>next",
        "deals" if solitaire else "matches",
    ):
        _column(table, column)
    _column(table, "mean" if solitaire else "win%")
    _column(table, "fail")
    following = {pair.upper: pair for pair in sure.pairs}
    for position, standing in enumerate(rated.table(pool), start=1):
        name = names.get(standing.bot_version_id)
        low, high = sure.rank_intervals[standing.bot_version_id]
        pair = following.get(standing.bot_version_id)
        cells: list[str | Text] = [
            str(position),
            Text(name.bot if name else f"#{standing.bot_version_id}"),  # bot-provided text: never read as markup
            Text(name.version_label if name else "?"),
            f"{standing.mu:.2f}",
            f"{standing.sigma:.2f}",
            f"{standing.conservative:.2f}",
            str(low) if low == high else f"{low}-{high}",
            _pair_cell(pair) if pair else "",
            str(standing.matches),
            f"{standing.mean_score:.2f}" if solitaire else f"{standing.win_rate:.0%}",
        ]
        cells.append(str(standing.failures) if standing.failures else "-")
        table.add_row(*cells)
    return table


def verdict_line(sure: PoolCertainty) -> str:
    """The pool's one-word verdict (settled / not yet) and its reason, for under its table."""
    style = "green" if sure.verdict is Verdict.SETTLED else "yellow"
    return f"[bold {style}]{sure.verdict.value}[/]: {escape(sure.reason)}\n"


def _pair_cell(pair: Any) -> str:
    shown = f"{pair.p_order:.0%}" if 0.005 <= pair.p_order < 0.995 else f"{pair.p_order:.1%}"
    return shown + ("=" if pair.state is PairState.EQUAL else "≈" if pair.state is PairState.WITHIN else "")


def overall_table(rated: RatingSet, names: dict[int, VersionName], spread: dict[int, OverallInterval]) -> Table:
    table = compact_table(
        "Overall, across games",
        ratings_trueskill_model.OVERALL_METHOD
        + "; 95% interval: the score when each rating's mean is drawn from its posterior (each bot still judged by"
        + " mu - 3 sigma)",
    )
    for column in ("rank", "bot", "version", "overall score", "95% interval", "pools played", "mean mu-3σ"):
        _column(table, column)
    for position, row in enumerate(ratings_across_pools.overall(rated), start=1):
        name = names.get(row.bot_version_id)
        interval = spread[row.bot_version_id]
        table.add_row(
            str(position),
            Text(name.bot if name else f"#{row.bot_version_id}"),
            Text(name.version_label if name else "?"),
            f"{row.score:.3f}",
            f"{interval.low:.2f}-{interval.high:.2f}",
            f"{row.pools} of {len(rated.pools())}",
            f"{row.mean_conservative:.2f}",
        )
    return table


def rankings_json(
    rated: RatingSet,
    names: dict[int, VersionName],
    pools: Iterable[str],
    sure: dict[str, PoolCertainty] | None = None,
    spread: dict[int, OverallInterval] | None = None,
    facts: Sequence[MatchFact] | None = None,
    owned: leaderboard.Owners | None = None,
) -> dict[str, Any]:
    """The tables as the one leaderboard JSON (:mod:`ladder.views.leaderboard`); ``sure`` and ``spread`` (the
    certainty, at the defaults when not given: by the paired tests on ``facts`` when given, else by the ratings'
    posteriors)."""
    pools = list(pools)
    if sure is None:
        labels = distinct_labels(names)
        sure = (
            leaderboard.certainties(rated, pools, facts, names)
            if facts is not None
            else {pool: certainty.assess(rated.table(pool), pool, names=labels) for pool in pools}
        )
    return leaderboard.rankings_of(rated, names, pools, sure, spread, owned).model_dump(mode="json")


def tournament_id(session: Session, ref: str) -> int:
    """A tournament by id (``3``) or by name (the latest of that name)."""
    return catalog.tournament_id(session, ref)


def filtered_ratings(session: Session, tournament: str | None, latest_versions: bool) -> RatingSet:
    """Ratings computed now from the matches of one tournament and/or among the latest version of every bot
    (a match with an older version of any of its bots is left out)."""
    return ratings_trueskill_model.compute(filtered_facts(session, tournament, latest_versions))


def filtered_facts(session: Session, tournament: str | None, latest_versions: bool) -> list[MatchFact]:
    """The played matches of one tournament (if given) and/or among the latest version of every bot."""
    facts = ratings_persistence.load_match_facts(session)
    if tournament is not None:
        wanted = tournament_id(session, tournament)
        facts = [fact for fact in facts if fact.tournament_id == wanted]
    if latest_versions:
        facts = leaderboard.among_current(session, facts)
    return facts


def print_rankings(
    session: Session,
    games: list[str] | None = None,
    console: Console | None = None,
    as_json: bool = False,
    overall: bool | None = None,
    confidence: float = 0.95,
    indifference: float | None = None,
    rated: RatingSet | None = None,
    scope: str = "",
    facts: Sequence[MatchFact] | None = None,
) -> None:
    """Print the leaderboard of each pool of ``games`` (all when None), then the overall table
    (by default only when every game is shown). ``rated``: ratings computed from a chosen set of matches
    (``scope`` says which, ``facts`` are those matches), instead of every match's; ``facts`` without ``rated``:
    every played match's, already loaded."""
    console = console or Console()
    fresh = True
    facts = ratings_persistence.load_match_facts(session) if facts is None else list(facts)
    if rated is None:
        rated, fresh = ratings_persistence.current(session, facts=facts)
    pools = _shown_pools(rated, games, scope)
    names = version_names(session)
    sure = leaderboard.certainties(
        rated, pools, facts, names, confidence, certainty.INDIFFERENCE if indifference is None else indifference
    )
    show_overall = (games is None) if overall is None else (overall and len(rated.pools()) > 1)
    spread = certainty.overall_intervals(rated) if as_json or show_overall else {}
    if as_json:
        owned = leaderboard.owners(session)
        print(json.dumps(rankings_json(rated, names, pools, sure, spread, owned=owned), indent=2))
        return
    for pool in pools:
        console.print(fit(pool_table(pool, rated, names, sure[pool]), console.width))
        console.print(verdict_line(sure[pool]), highlight=False)
    if show_overall:
        console.print(fit(overall_table(rated, names, spread), console.width))
    console.print(_rated_note(rated, fresh, scope, pools), style="dim", highlight=False)


def _shown_pools(rated: RatingSet, games: list[str] | None, scope: str) -> list[str]:
    """The pools of ``games`` (every pool when None); a user error saying what there is when none is rated."""
    if not rated.pools():
        if scope:
            raise UserError(f"no rated match {scope}")
        raise UserError("no rated match yet in this database; run a tournament first: `ladder run quick`")
    pools = [pool for pool in rated.pools() if games is None or PoolKey.parse(pool).game in games]
    if not pools:
        rated_games = sorted({PoolKey.parse(pool).game for pool in rated.pools()})
        raise UserError(f"no ratings for {', '.join(games or [])}; rated games: {', '.join(rated_games)}")
    return pools


def pool_matches(rated: RatingSet, pool: str) -> int:
    """The matches rated in ``pool``: its seats over its table size (every match of a pool fills all its seats)."""
    table = rated.standings.get(pool, {})
    seats = sum(standing.matches for standing in table.values())
    return seats // next(iter(table.values())).num_players if table else 0


def _rated_note(rated: RatingSet, fresh: bool, scope: str, shown: list[str] | None = None) -> str:
    """What the tables were computed from: how many matches (of which ``scope``; and of those, how many in the
    pools ``shown`` when they are not all of them), whether the stored ratings were stale, and how many events
    TrueSkill could not rate."""
    note = f"{rated.match_count} matches rated" + (f" ({scope})" if scope else "")
    if shown is not None and len(shown) < len(rated.pools()):
        note += f", {sum(pool_matches(rated, pool) for pool in shown)} of them in the pools shown"
    if not fresh and not scope:
        note += (
            " (computed now: the stored ratings are older; a run stores them when it ends, `ladder rerate` any time)"
        )
    if rated.unrated_events:
        note += f"; {rated.unrated_events} events could not be rated (numerical limits of TrueSkill)"
    return note


def rankings(
    game: Annotated[
        str | None, typer.Argument(metavar="[GAME]", help="Only this game's tables (default: every game).")
    ] = None,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the tables as JSON.")] = False,
    confidence: Annotated[
        float, typer.Option(min=0.5, max=0.9999, help="How sure the whole order of a pool must be to call it settled.")
    ] = 0.95,
    indifference: Annotated[
        float,
        typer.Option(
            min=0.0,
            help="Bots closer than this count as equal: in mu points, read "
            "on the paired deals as the duel result of bots that far apart.",
        ),
    ] = 1.0,
    tournament: Annotated[
        str | None,
        typer.Option(
            "--tournament",
            metavar="T",
            help="Only the matches of this tournament (id, or name: its latest run; see `ladder tournaments`).",
        ),
    ] = None,
    latest_versions: Annotated[
        bool,
        typer.Option(
            "--latest-versions",
            help="Only the latest version of each bot (matches with an older version are left out; on a served "
            "ladder, its versions neither superseded nor retired), as the served leaderboards show by default.",
        ),
    ] = False,
) -> None:
    """The leaderboard of each game (rank, bot, version, mu, sigma, mu - 3 sigma, 95% rank interval, the
    confidence of being better than the next bot, matches, win rate), its verdict (settled / not yet, and why),
    and the overall table with intervals."""
    with database(db) as session:
        rated = None
        facts = None
        scopes = []
        if tournament is not None or latest_versions:
            facts = filtered_facts(session, tournament, latest_versions)
            rated = ratings_trueskill_model.compute(facts)
            if tournament is not None:
                scopes.append(f"in tournament {tournament}")
            if latest_versions:
                scopes.append("among the latest version of each bot")
        print_rankings(
            session,
            [game] if game else None,
            as_json=as_json,
            confidence=confidence,
            indifference=indifference,
            rated=rated,
            scope=" and ".join(scopes),
            facts=facts,
        )
