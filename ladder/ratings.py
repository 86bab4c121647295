"""TrueSkill ratings, derived from the matches (which are the source of truth).

Pools. A bot version is rated separately in each *pool*: a game at one player
count (``elevenses/3p``), since skill at a two-player table and at a
four-player one are different things. A solitaire has one pool (``.../1p``).

Events. In a multiplayer game every played match is one free-for-all
event: the seats' ranks from the game, ties included (failed seats are
already ranked last by the failure rule). In a solitaire, every deal is one
free-for-all among the bots that played it (duplicate deals): ranked by
score, higher is better, failed seats last. Skipped and errored matches are
not rated.

Order-free estimate. The ratings are a function of the *set* of events, not
of the order they arrived in: TrueSkill's model (the same factor per event,
computed by the ``trueskill`` package) with every event of a pool seen at
once, i.e. TrueSkill Through Time with no skill drift. It is solved by
expectation propagation: each event keeps its message (what it says about
each bot, a Gaussian), a bot's rating is the prior times every message, and
the events are revisited (each with its own message taken out, rated by
``trueskill`` from the rest, its message updated) until no rating moves.
Identical events (the same bots with the same outcome) share one message
counted as often as they occurred, and are visited in a canonical order (by
their content), so the numbers are the same whatever the workers, backend,
interruptions or resumes that produced the matches.

History. The rating history (``rating_history``, for plots) is the classic
one-pass TrueSkill in recording order: how the ratings moved as matches
arrived. Only it depends on that order; the ratings do not.

Parameters. TrueSkill's defaults (mu 25, sigma 25/3, beta 25/6), tau 0 (a bot
version does not change, so its skill does not drift), and a draw probability
per pool set from that pool's observed tie rate: the share of tied neighbours
among rank-adjacent pairs of seats over all its events (pairs of two failed
seats left out), kept within [0.001, 0.95] so the draw margin stays finite.
The leaderboard is ordered by the conservative rating mu - 3 sigma.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import trueskill
from sqlalchemy import delete, func, insert
from sqlmodel import Session, select

from ladder.pools import PoolKey
from ladder.statuses import MatchStatus
from ladder.storage import MatchRow, RatingHistoryRow, RatingRow, RatingStateRow, SeatResultRow, utcnow

MU = 25.0
SIGMA = MU / 3
BETA = MU / 6
TAU = 0.0
MIN_DRAW, MAX_DRAW = 0.001, 0.95

METHOD = (
    "TrueSkill per game and player count (mu 25, sigma 25/3, beta 25/6, tau 0), one free-for-all per match "
    "(per deal in solitaires), every match of a pool at once (TrueSkill Through Time without drift: "
    "the same matches give the same ratings in any order), draw probability = the pool's observed tie rate; "
    "ordered by mu - 3 sigma"
)
MAX_SWEEPS = 500  # passes over a pool's events; they converge long before (a few dozen)
CONVERGED = 1e-7  # no mu or sigma moved more than this in a pass
OVERALL_METHOD = (
    "overall score = mean over every pool (game and player count) of the share of that pool's other bot "
    "versions a bot version is above by mu - 3 sigma (ties count half), over the pools it played: a pool it does "
    "not play neither helps nor hurts it; the pools played are shown beside the score"
)


def pool_key(game: str, num_players: int) -> str:
    """The rating pool of a game at a table size, as text (see :class:`ladder.pools.PoolKey`)."""
    return str(PoolKey(game, num_players))


@dataclass(frozen=True)
class SeatFact:
    bot_version_id: int
    score: float | None
    rank: int | None
    failed: bool
    won: bool | None  # the game's own "won" detail, when it has one


@dataclass(frozen=True)
class MatchFact:
    """What rating needs from one recorded match (no action log)."""

    match_id: int
    tournament_id: int
    game: str
    num_players: int
    deal: str
    seats: tuple[SeatFact, ...]


@dataclass(frozen=True)
class Event:
    """One free-for-all to rate: bot versions with their ranks (lower is better, equal is a tie)."""

    pool: str
    match_id: int
    versions: tuple[int, ...]
    ranks: tuple[int, ...]
    failed: tuple[bool, ...]


@dataclass
class Standing:
    """A bot version in one pool: its rating and what it did."""

    pool: str
    game: str
    num_players: int
    bot_version_id: int
    mu: float = MU
    sigma: float = SIGMA
    matches: int = 0
    wins: int = 0
    score_sum: float = 0.0
    failures: int = 0
    draw_probability: float = 0.0

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.matches if self.matches else 0.0


@dataclass(frozen=True)
class HistoryPoint:
    pool: str
    event: int
    match_id: int
    bot_version_id: int
    mu: float
    sigma: float


@dataclass
class RatingSet:
    """Every pool's standings and history, computed from ``match_count`` matches up to ``last_match_id``."""

    standings: dict[str, dict[int, Standing]] = field(default_factory=dict)
    history: list[HistoryPoint] = field(default_factory=list)
    draw_probability: dict[str, float] = field(default_factory=dict)
    match_count: int = 0
    last_match_id: int = 0
    unrated_events: int = 0  # events TrueSkill could not compute (numerically); left out

    def table(self, pool: str) -> list[Standing]:
        """A pool's leaderboard: by conservative rating, then mu, then version id (stable)."""
        return sorted(self.standings.get(pool, {}).values(), key=lambda s: (-s.conservative, -s.mu, s.bot_version_id))

    def pools(self) -> list[str]:
        return sorted(self.standings)


def tie_pairs(ranks: Sequence[int], failed: Sequence[bool]) -> tuple[int, int]:
    """(tied pairs, pairs) among rank-adjacent seats, leaving out pairs of two failed seats."""
    order = sorted(range(len(ranks)), key=lambda i: ranks[i])
    ties = pairs = 0
    for a, b in zip(order, order[1:]):
        if failed[a] and failed[b]:
            continue
        pairs += 1
        ties += ranks[a] == ranks[b]
    return ties, pairs


def draw_probability(events: Iterable[Event]) -> float:
    """The observed tie rate of ``events``, kept within [MIN_DRAW, MAX_DRAW]."""
    ties = pairs = 0
    for event in events:
        t, p = tie_pairs(event.ranks, event.failed)
        ties += t
        pairs += p
    rate = ties / pairs if pairs else 0.0
    return min(MAX_DRAW, max(MIN_DRAW, rate))


def environment(draw: float) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=draw, backend=None)


def deal_ranks(scores: Sequence[float], failed: Sequence[bool]) -> tuple[int, ...]:
    """Competition ranks of one solitaire deal: higher score first, failed seats last (tied)."""
    key = [(-math.inf if f else s) for s, f in zip(scores, failed)]
    return tuple(1 + sum(1 for other in key if other > mine) for mine in key)


def build_events(matches: Sequence[MatchFact], solitaires: set[str]) -> tuple[list[Event], dict[str, dict[int, Standing]]]:
    """The events to rate, in order, and every bot version's counts per pool."""
    standings: dict[str, dict[int, Standing]] = defaultdict(dict)
    events: list[Event] = []
    deals: dict[tuple[int, str], list[tuple[MatchFact, SeatFact]]] = defaultdict(list)

    def standing(pool: str, fact: MatchFact, version: int) -> Standing:
        found = standings[pool].get(version)
        if found is None:
            found = standings[pool][version] = Standing(pool, fact.game, fact.num_players, version)
        return found

    for fact in matches:
        pool = pool_key(fact.game, fact.num_players)
        for seat in fact.seats:
            s = standing(pool, fact, seat.bot_version_id)
            s.matches += 1
            s.score_sum += seat.score or 0.0
            s.failures += seat.failed
        if fact.game in solitaires:
            deals[(fact.tournament_id, fact.deal)].append((fact, fact.seats[0]))
            continue
        for seat in fact.seats:
            if seat.won is not None:
                standings[pool][seat.bot_version_id].wins += bool(seat.won) and not seat.failed
            else:
                standings[pool][seat.bot_version_id].wins += seat.rank == 1 and not seat.failed
        versions = tuple(seat.bot_version_id for seat in fact.seats)
        if len(set(versions)) == len(versions) and len(versions) > 1:
            events.append(Event(pool, fact.match_id, versions, tuple(s.rank or 0 for s in fact.seats),
                                tuple(s.failed for s in fact.seats)))

    for played in deals.values():
        fact = played[0][0]
        pool = pool_key(fact.game, 1)
        by_version: dict[int, tuple[MatchFact, SeatFact]] = {}
        for match, seat in played:
            by_version.setdefault(seat.bot_version_id, (match, seat))  # a version plays a deal once
        entries = list(by_version.values())
        failed = tuple(seat.failed for _, seat in entries)
        ranks = deal_ranks([seat.score or 0.0 for _, seat in entries], failed)
        for (_, seat), rank in zip(entries, ranks):
            if seat.won is not None:
                won = bool(seat.won) and not seat.failed
            else:
                won = rank == 1 and len(entries) > 1 and not seat.failed
            standings[pool][seat.bot_version_id].wins += won
        if len(entries) > 1:
            last = max(match.match_id for match, _ in entries)
            events.append(Event(pool, last, tuple(seat.bot_version_id for _, seat in entries), ranks, failed))

    events.sort(key=lambda e: (e.match_id, e.pool))
    return events, standings


def compute(matches: Sequence[MatchFact], solitaires: set[str], history: bool = True) -> RatingSet:
    """Rate ``matches`` and return every pool's standings (order-free) and, if asked, history (in match-id order)."""
    matches = sorted(matches, key=lambda m: m.match_id)
    events, standings = build_events(matches, solitaires)
    by_pool: dict[str, list[Event]] = defaultdict(list)
    for event in events:
        by_pool[event.pool].append(event)
    rated = RatingSet(
        standings=dict(standings),
        match_count=len(matches),
        last_match_id=matches[-1].match_id if matches else 0,
    )
    for pool, pool_events in by_pool.items():
        draw = draw_probability(pool_events)
        rated.draw_probability[pool] = draw
        env = environment(draw)
        estimate, unrated = order_free(env, pool_events, standings[pool])
        rated.unrated_events += unrated
        if history:
            rated.history.extend(online_history(env, pool, pool_events, standings[pool]))
        for version, (mu, sigma) in estimate.items():
            standing = standings[pool][version]
            standing.mu, standing.sigma = mu, sigma
    for pool, table in standings.items():
        for standing in table.values():
            standing.draw_probability = rated.draw_probability.get(pool, 0.0)
    return rated


def outcome_key(event: Event) -> tuple[tuple[int, int], ...]:
    """What an event says, without when or where it happened: each bot with its dense rank (1 = first)."""
    levels = sorted(set(event.ranks))
    return tuple(sorted((version, levels.index(rank) + 1) for version, rank in zip(event.versions, event.ranks)))


def order_free(env: trueskill.TrueSkill, events: Sequence[Event], versions: Iterable[int]) -> tuple[dict[int, tuple[float, float]], int]:
    """Every bot's (mu, sigma) given all ``events`` at once, by expectation propagation (see the module
    docstring), and the number of events TrueSkill could not rate (left out)."""
    counts: dict[tuple[tuple[int, int], ...], int] = defaultdict(int)
    for event in events:
        counts[outcome_key(event)] += 1
    factors = sorted(counts.items())  # canonical: the result cannot depend on the order of arrival
    prior_pi = 1.0 / SIGMA**2
    prior_tau = MU * prior_pi
    # natural parameters (precision pi, precision-mean tau) of each bot's rating and each factor's message
    pi = {v: prior_pi for v in versions}
    tau = {v: prior_tau for v in versions}
    messages: list[dict[int, tuple[float, float]]] = [{v: (0.0, 0.0) for v, _ in key} for key, _ in factors]
    failed: set[int] = set()
    for _ in range(MAX_SWEEPS):
        moved = 0.0
        for index, (key, count) in enumerate(factors):
            if index in failed:
                continue
            message = messages[index]
            cavity = {v: (pi[v] - message[v][0], tau[v] - message[v][1]) for v, _ in key}
            groups = [(trueskill.Rating(mu=t / p, sigma=math.sqrt(1.0 / p)),) for p, t in cavity.values()]
            try:
                if len(key) == 2:
                    new = duel(env, groups[0][0], groups[1][0], key[0][1], key[1][1])
                else:
                    new = env.rate(groups, ranks=[rank for _, rank in key])
            except (FloatingPointError, ZeroDivisionError, ValueError):
                failed.add(index)
                for v, _ in key:
                    pi[v] -= count * message[v][0]
                    tau[v] -= count * message[v][1]
                continue
            for (v, _), (rating,) in zip(key, new):
                # a TrueSkill update never widens a rating, so the message's precision is >= 0 (up to rounding)
                new_pi = max(0.0, rating.pi - cavity[v][0])
                new_tau = rating.tau - cavity[v][1] if new_pi > 0 else 0.0
                old_pi, old_tau = message[v]
                before = (tau[v] / pi[v], pi[v])
                pi[v] += count * (new_pi - old_pi)
                tau[v] += count * (new_tau - old_tau)
                message[v] = (new_pi, new_tau)
                moved = max(moved, abs(tau[v] / pi[v] - before[0]), abs(math.sqrt(1 / pi[v]) - math.sqrt(1 / before[1])))
        moved = max(moved, _recentre(factors, messages, pi, tau, failed))
        if moved < CONVERGED:
            break
    unrated = sum(factors[index][1] for index in failed)
    return {v: (tau[v] / pi[v], math.sqrt(1.0 / pi[v])) for v in pi}, unrated


def duel(env: trueskill.TrueSkill, first: trueskill.Rating, second: trueskill.Rating, first_rank: int,
         second_rank: int) -> list[tuple[trueskill.Rating]]:
    """``env.rate`` of a two-player event, in closed form with the package's own v and w functions.

    For two single players TrueSkill's factor graph has no loop, so its
    message passing is exact after one pass and reduces to this well-known
    update; it gives the same numbers (to rounding) about fifty times faster,
    which matters because the order-free estimate revisits every event many
    times.
    """
    if second_rank < first_rank:
        second_new, first_new = duel(env, second, first, second_rank, first_rank)
        return [first_new, second_new]
    spread = math.sqrt(2 * env.beta**2 + first.sigma**2 + second.sigma**2)
    margin = trueskill.calc_draw_margin(env.draw_probability, 2, env)
    gap, edge = (first.mu - second.mu) / spread, margin / spread
    if first_rank == second_rank:
        v, w = env.v_draw(gap, edge), env.w_draw(gap, edge)
    else:
        v, w = env.v_win(gap, edge), env.w_win(gap, edge)
    if not math.isfinite(v) or not math.isfinite(w):
        raise FloatingPointError(f"TrueSkill's duel update is not finite (v {v}, w {w})")
    return [
        (env.create_rating(first.mu + first.sigma**2 / spread * v,
                           first.sigma * math.sqrt(max(0.0, 1 - first.sigma**2 / spread**2 * w))),),
        (env.create_rating(second.mu - second.sigma**2 / spread * v,
                           second.sigma * math.sqrt(max(0.0, 1 - second.sigma**2 / spread**2 * w))),),
    ]


def _recentre(factors: Sequence[tuple[tuple[tuple[int, int], ...], int]], messages: list[dict[int, tuple[float, float]]],
              pi: dict[int, float], tau: dict[int, float], failed: set[int]) -> float:
    """Move each connected group of bots, messages and all, so that its mean mu is the prior's; return the
    largest move of a mu.

    An event only says who is better than whom, so with a common prior the
    exact posterior's mean skill of a connected group is the prior mean; the
    passes of expectation propagation find that level only slowly (the prior is
    weak next to thousands of events), and this step takes it there at once.
    It changes where the passes converge to not at all, only how fast.
    """
    parent = {v: v for v in pi}

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for index, (key, _) in enumerate(factors):
        if index not in failed:
            for (v, _), (w, _) in zip(key, key[1:]):
                parent[root(v)] = root(w)
    groups: dict[int, list[int]] = defaultdict(list)
    for v in sorted(pi):
        groups[root(v)].append(v)
    received = {v: 0.0 for v in pi}  # the precision each bot got from the events
    for index, (key, count) in enumerate(factors):
        if index not in failed:
            for v, _ in key:
                received[v] += count * messages[index][v][0]
    shift: dict[int, float] = {}
    for members in groups.values():
        weight = sum(received[v] / pi[v] for v in members)
        if len(members) < 2 or weight <= 0:
            continue
        offset = (len(members) * MU - sum(tau[v] / pi[v] for v in members)) / weight
        for v in members:
            shift[v] = offset
    if not shift:
        return 0.0
    for index, (key, _) in enumerate(factors):
        if index not in failed:
            message = messages[index]
            for v, _ in key:
                if v in shift:
                    message[v] = (message[v][0], message[v][1] + shift[v] * message[v][0])
    moved = 0.0
    for v, offset in shift.items():
        tau[v] += offset * received[v]
        moved = max(moved, abs(offset * received[v] / pi[v]))
    return moved


def online_history(env: trueskill.TrueSkill, pool: str, events: Sequence[Event], versions: Iterable[int]) -> list[HistoryPoint]:
    """One-pass TrueSkill in recording order: the ratings after each event, as the matches arrived."""
    current = {version: env.create_rating() for version in versions}
    history: list[HistoryPoint] = []
    for number, event in enumerate(events, start=1):
        try:
            new = env.rate([(current[v],) for v in event.versions], ranks=list(event.ranks))
        except (FloatingPointError, ZeroDivisionError, ValueError):
            continue
        for version, (rating,) in zip(event.versions, new):
            current[version] = rating
            history.append(HistoryPoint(pool, number, event.match_id, version, rating.mu, rating.sigma))
    return history


# ---- the database side ------------------------------------------------------------------------------


def load_match_facts(session: Session, tournament_id: int | None = None) -> list[MatchFact]:
    """Every played match (of one tournament, if given), without its action log, in id order."""
    query = (
        select(
            MatchRow.id, MatchRow.tournament_id, MatchRow.game, MatchRow.num_players, MatchRow.deal,
            MatchRow.details_json, SeatResultRow.seat, SeatResultRow.bot_version_id, SeatResultRow.score,
            SeatResultRow.rank, SeatResultRow.failure_reason,
        )
        .join(SeatResultRow, SeatResultRow.match_id == MatchRow.id)
        .where(MatchRow.status == MatchStatus.PLAYED)
        .order_by(MatchRow.id, SeatResultRow.seat)  # type: ignore[arg-type]
    )
    if tournament_id is not None:
        query = query.where(MatchRow.tournament_id == tournament_id)
    rows = session.exec(query).all()
    facts: list[MatchFact] = []
    current: list[Any] = []
    for row in rows:
        if current and current[0][0] != row[0]:
            facts.append(_fact(current))
            current = []
        current.append(row)
    if current:
        facts.append(_fact(current))
    return facts


def _fact(rows: list[Any]) -> MatchFact:
    first = rows[0]
    details = json.loads(first[5]) if first[5] else {}
    won = details.get("won")
    seats = tuple(
        SeatFact(row[7], row[8], row[9], row[10] is not None, None if won is None else bool(won[row[6]]))
        for row in rows
    )
    return MatchFact(first[0], first[1], first[2], first[3], first[4], seats)


def solitaire_ids() -> set[str]:
    from engine import all_games

    return {game.id for game in all_games() if game.max_players == 1}


def played_matches_marker(session: Session) -> tuple[int, int]:
    """(number of played matches, highest played match id): what the stored ratings are checked against."""
    count, last = session.exec(
        select(func.count(MatchRow.id), func.max(MatchRow.id)).where(MatchRow.status == MatchStatus.PLAYED)
    ).one()
    return int(count or 0), int(last or 0)


def rate_database(session: Session, solitaires: set[str] | None = None) -> RatingSet:
    """Compute the ratings of every played match in the database (writes nothing)."""
    return compute(load_match_facts(session), solitaire_ids() if solitaires is None else solitaires)


def store(session: Session, rated: RatingSet) -> None:
    """Replace the stored ratings and history with ``rated`` and commit."""
    session.exec(delete(RatingHistoryRow))  # type: ignore[call-overload]
    session.exec(delete(RatingRow))  # type: ignore[call-overload]
    session.exec(delete(RatingStateRow))  # type: ignore[call-overload]
    rows = [
        {
            "pool": s.pool, "game": s.game, "num_players": s.num_players, "bot_version_id": s.bot_version_id,
            "mu": s.mu, "sigma": s.sigma, "conservative": s.conservative, "matches": s.matches, "wins": s.wins,
            "score_sum": s.score_sum, "failures": s.failures, "draw_probability": s.draw_probability,
        }
        for table in rated.standings.values()
        for s in table.values()
    ]
    if rows:
        session.execute(insert(RatingRow), rows)
    history = [
        {"pool": h.pool, "event": h.event, "match_id": h.match_id, "bot_version_id": h.bot_version_id, "mu": h.mu, "sigma": h.sigma}
        for h in rated.history
    ]
    for start in range(0, len(history), 20_000):
        session.execute(insert(RatingHistoryRow), history[start:start + 20_000])
    session.add(RatingStateRow(computed_at=utcnow(), match_count=rated.match_count, last_match_id=rated.last_match_id, method=METHOD))
    session.commit()


def rerate(session: Session, solitaires: set[str] | None = None) -> RatingSet:
    """Rebuild every rating from the matches and store them."""
    rated = rate_database(session, solitaires)
    store(session, rated)
    return rated


def load_stored(session: Session) -> RatingSet | None:
    """The stored ratings, or None when there are none or they miss recorded matches (stale)."""
    state = session.exec(select(RatingStateRow)).first()
    if state is None:
        return None
    if (state.match_count, state.last_match_id) != played_matches_marker(session):
        return None
    rated = RatingSet(match_count=state.match_count, last_match_id=state.last_match_id)
    for row in session.exec(select(RatingRow)).all():
        rated.standings.setdefault(row.pool, {})[row.bot_version_id] = Standing(
            row.pool, row.game, row.num_players, row.bot_version_id, row.mu, row.sigma, row.matches, row.wins,
            row.score_sum, row.failures, row.draw_probability,
        )
        rated.draw_probability[row.pool] = row.draw_probability
    return rated


def current(session: Session) -> tuple[RatingSet, bool]:
    """The ratings as of every recorded match: (ratings, True) if stored and fresh, else computed now (False)."""
    stored = load_stored(session)
    if stored is not None:
        return stored, True
    return rate_database(session), False


@dataclass(frozen=True)
class OverallRow:
    bot_version_id: int
    score: float
    pools: int  # pools it played
    mean_conservative: float


def overall(rated: RatingSet) -> list[OverallRow]:
    """The overall leaderboard across pools (see :data:`OVERALL_METHOD`)."""
    pools = rated.pools()
    versions = sorted({v for table in rated.standings.values() for v in table})
    shares: dict[int, list[float]] = {v: [] for v in versions}
    for pool in pools:
        table = rated.standings[pool]
        for version in versions:
            mine = table.get(version)
            if mine is None:
                continue
            others = [s for v, s in table.items() if v != version]
            if not others:
                shares[version].append(1.0)
                continue
            above = sum(1.0 if mine.conservative > o.conservative else 0.5 if mine.conservative == o.conservative else 0.0
                        for o in others)
            shares[version].append(above / len(others))
    rows = []
    for version in versions:
        played = [table[version] for table in rated.standings.values() if version in table]
        rows.append(OverallRow(
            version,
            sum(shares[version]) / len(shares[version]) if shares[version] else 0.0,
            len(played),
            sum(s.conservative for s in played) / len(played) if played else 0.0,
        ))
    rows.sort(key=lambda r: (-r.score, -r.mean_conservative, r.bot_version_id))
    return rows
