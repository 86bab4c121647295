"""The one leaderboard JSON schema (docs/leaderboard-json.md): what ``ladder rankings --json``,
``/api/leaderboards``, ``ladder export`` and the served pages show of every pool, built by :func:`rankings_of`.

Each pool's table with its verdict (settled / not yet, and why), each row's rank interval and P(above next), the
adjacent pairs, and the overall table across pools: the figures of :mod:`ladder.ratings.certainty` (the paired
sequential tests on the deals played), never computed here a second way. A row also says who the version belongs
to on a served ladder (``author``, ``state``), ``house`` for a bot that is not the served ladder's.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict
from sqlalchemy import inspect
from sqlmodel import Session, select

from ladder.ratings import across_pools as ratings_across_pools
from ladder.ratings import certainty
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.certainty import OverallInterval, PoolCertainty
from ladder.ratings.ordering import leaderboard_key
from ladder.ratings.pools import PoolKey
from ladder.ratings.trueskill_model import MatchFact, RatingSet, Standing
from ladder.ratings.verdict import PoolEvidence
from ladder.store.served_tables import AuthorRow, ServedVersionRow
from ladder.views import states
from ladder.views.catalog import VersionName, distinct_labels
from ladder.views.records import pool_title

HOUSE = states.ShownState.HOUSE.value  # the state of a version that is not the served ladder's


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True)


class Who(_Value):
    """A bot version as the JSON names it (None where the database has no such version any more)."""

    bot: str | None
    version: str | None
    hash: str | None


class BoardRow(Who):
    """One row of a pool's leaderboard, in leaderboard order (by mu - 3 sigma)."""

    version_id: int
    rank: int
    mu: float
    sigma: float
    conservative: float
    matches: int
    wins: int
    win_rate: float | None  # None for a game with no notion of winning
    mean_score: float
    failures: int
    rank_interval: tuple[int, int]  # the ranks the paired tests do not rule out
    p_above_next: float | None  # the confidence of being better than the next row's bot; None on the last row
    author: str
    state: str  # active, superseded, paused, benched, retired, house


class AdjacentPair(_Value):
    upper: Who
    lower: Who
    p_order: float
    p_equal: float
    state: str


class Leaderboard(_Value):
    """A pool's leaderboard with its verdict."""

    pool: str
    title: str
    draw_probability: float
    verdict: str
    settled: bool
    reason: str
    confidence: float
    indifference: float
    pair_level: float
    table: list[BoardRow]
    adjacent_pairs: list[AdjacentPair]


class OverallRow(Who):
    version_id: int
    rank: int
    score: float
    score_interval: tuple[float, float]
    pools: int
    mean_conservative: float


class Rankings(_Value):
    """Every shown pool's leaderboard and the overall table: the document of ``ladder rankings --json`` and
    ``/api/leaderboards``."""

    method: str
    overall_method: str
    matches: int
    pools: dict[str, Leaderboard]
    overall: list[OverallRow]


class Versions(enum.StrEnum):
    """Which versions a leaderboard ranks (``?versions=`` on the served pages and API)."""

    LATEST = "latest"  # :func:`ladder.views.states.current_versions`, among the matches they played together
    ALL = "all"  # every version that played


def among_current(session: Session, facts: Sequence[MatchFact]) -> list[MatchFact]:
    """The matches a "latest versions" leaderboard is rated from: those whose every seat is a current version
    (:func:`ladder.views.states.current_versions`). ``ladder rankings --latest-versions`` and the served
    leaderboards by default both rate these, so the two documents agree."""
    current = states.current_versions(session)
    return [fact for fact in facts if all(seat.bot_version_id in current for seat in fact.seats)]


class Owners(_Value):
    """Who each version belongs to on a served ladder: version id -> state, version id -> author name."""

    states: dict[int, str] = {}
    authors: dict[int, str] = {}


def owners(session: Session) -> Owners:
    """The served state (:func:`ladder.views.states.states`, what every reader says) and author of every served
    version (none in a database the service never opened)."""
    if not inspect(session.get_bind()).has_table(ServedVersionRow.__tablename__):
        return Owners()
    names = {a.id: a.name for a in session.exec(select(AuthorRow)).all()}
    shown = states.states(session)
    authors = {
        served.bot_version_id: names.get(served.author_id, "?")
        for served in session.exec(select(ServedVersionRow)).all()
    }
    return Owners(states={v: state.value for v, state in shown.versions.items()}, authors=authors)


def certainties(
    rated: RatingSet,
    pools: Iterable[str],
    facts: Sequence[MatchFact],
    names: dict[int, VersionName],
    confidence: float = certainty.CONFIDENCE,
    indifference: float = certainty.INDIFFERENCE,
) -> dict[str, PoolCertainty]:
    """Each pool's verdict, P(above next) and rank intervals (:func:`ladder.ratings.certainty.assess_pools`),
    the reasons naming bots by :func:`~ladder.views.catalog.distinct_labels`."""
    return certainty.assess_pools(rated, pools, facts, distinct_labels(names), confidence, indifference)


def field_verdict(
    rated: RatingSet,
    pool: str,
    versions: Iterable[int],
    evidence: PoolEvidence | None,
    confidence: float = certainty.CONFIDENCE,
    indifference: float = certainty.INDIFFERENCE,
    names: dict[int, str] | None = None,
) -> PoolCertainty:
    """The verdict of ``pool``'s leaderboard over ``versions`` alone (a served ladder's schedulable ones, the
    unrated at the prior), in the pages' order and by the pages' rule: the one verdict the served planner plays
    for and ``/api/status`` reports, so a pair of the field is never judged by a version that no longer plays."""
    key = PoolKey.parse(pool)
    known = rated.standings.get(pool, {})
    table = sorted(
        (known.get(v) or Standing(pool, key.game, key.players, v) for v in set(versions)), key=leaderboard_key
    )
    return certainty.assess(table, pool, confidence, indifference, names, evidence)


def rankings_of(
    rated: RatingSet,
    names: dict[int, VersionName],
    pools: Iterable[str],
    sure: dict[str, PoolCertainty],
    spread: dict[int, OverallInterval] | None = None,
    owned: Owners | None = None,
) -> Rankings:
    """The leaderboards of ``pools`` and the overall table, as the one schema."""
    owned = owned or Owners()
    spread = spread or certainty.overall_intervals(rated)

    def who(version: int) -> Who:
        name = names.get(version)
        return Who(
            bot=name.bot if name else None,
            version=name.version if name else None,
            hash=name.content_hash if name else None,
        )

    def board(pool: str) -> Leaderboard:
        sure_ = sure[pool]
        following = {pair.upper: pair for pair in sure_.pairs}
        rows = []
        for rank, s in enumerate(rated.table(pool), start=1):
            v = s.bot_version_id
            rows.append(
                BoardRow(
                    **who(v).model_dump(),
                    version_id=v,
                    rank=rank,
                    mu=s.mu,
                    sigma=s.sigma,
                    conservative=s.conservative,
                    matches=s.matches,
                    wins=s.wins,
                    win_rate=s.win_rate,
                    mean_score=s.mean_score,
                    failures=s.failures,
                    rank_interval=sure_.rank_intervals[v],
                    p_above_next=following[v].p_order if v in following else None,
                    author=owned.authors.get(v, ""),
                    state=owned.states.get(v, HOUSE),
                )
            )
        return Leaderboard(
            pool=pool,
            title=pool_title(pool),
            draw_probability=rated.draw_probability.get(pool, 0.0),
            verdict=sure_.verdict.value,
            settled=sure_.settled,
            reason=sure_.reason,
            confidence=sure_.confidence,
            indifference=sure_.indifference,
            pair_level=sure_.pair_level,
            table=rows,
            adjacent_pairs=[
                AdjacentPair(
                    upper=who(pair.upper),
                    lower=who(pair.lower),
                    p_order=pair.p_order,
                    p_equal=pair.p_equal,
                    state=pair.state.value,
                )
                for pair in sure_.pairs
            ],
        )

    return Rankings(
        method=ratings_trueskill_model.METHOD,
        overall_method=ratings_trueskill_model.OVERALL_METHOD,
        matches=rated.match_count,
        pools={pool: board(pool) for pool in pools},
        overall=[
            OverallRow(
                **who(r.bot_version_id).model_dump(),
                version_id=r.bot_version_id,
                rank=i,
                score=r.score,
                score_interval=(spread[r.bot_version_id].low, spread[r.bot_version_id].high),
                pools=r.pools,
                mean_conservative=r.mean_conservative,
            )
            for i, r in enumerate(ratings_across_pools.overall(rated), start=1)
        ],
    )
