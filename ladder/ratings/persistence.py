"""The ratings' database side: the matches read as facts, the ratings stored, rebuilt (``ladder rerate``) and loaded."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, insert
from sqlmodel import Session

from engine import GameFacts
from ladder.ratings.trueskill_model import (
    METHOD,
    HistoryPoint,
    MatchFact,
    RatingSet,
    SeatFact,
    Standing,
    compute,
    facts_of,
)
from ladder.store import rating_queries
from ladder.store.rating_queries import (
    played_seat_rows,
    rating_history_rows,
    rating_rows,
    rating_state,
)
from ladder.store.tables import RatingHistoryRow, RatingRow, RatingStateRow, utcnow

# ---- the database side ------------------------------------------------------------------------------


def load_match_facts(session: Session, tournament_id: int | None = None) -> list[MatchFact]:
    """Every played match (of one tournament, if given), without its action log, in id order."""
    rows = played_seat_rows(session, tournament_id)
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


def played_matches_marker(session: Session) -> tuple[int, int]:
    """(number of played matches, highest played match id): what the stored ratings are checked against."""
    return rating_queries.played_matches_marker(session)


def rate_database(session: Session, games: Mapping[str, GameFacts] | None = None, history: bool = False) -> RatingSet:
    """Compute the ratings of every played match in the database (writes nothing); with ``history``, the rating
    history too (one TrueSkill update per match in recording order: about nine tenths of the work, and only the
    report's plots read it)."""
    return compute(load_match_facts(session), games, history=history)


def store(session: Session, rated: RatingSet) -> None:
    """Replace the stored ratings and history with ``rated`` and commit."""
    session.exec(delete(RatingHistoryRow))
    session.exec(delete(RatingRow))
    session.exec(delete(RatingStateRow))
    rows = [
        {
            "pool": s.pool,
            "game": s.game,
            "num_players": s.num_players,
            "bot_version_id": s.bot_version_id,
            "mu": s.mu,
            "sigma": s.sigma,
            "conservative": s.conservative,
            "matches": s.matches,
            "wins": s.wins,
            "score_sum": s.score_sum,
            "failures": s.failures,
            "draw_probability": s.draw_probability,
        }
        for table in rated.standings.values()
        for s in table.values()
    ]
    if rows:
        session.execute(insert(RatingRow), rows)
    history = [
        {
            "pool": h.pool,
            "event": h.event,
            "match_id": h.match_id,
            "bot_version_id": h.bot_version_id,
            "mu": h.mu,
            "sigma": h.sigma,
        }
        for h in rated.history
    ]
    for start in range(0, len(history), 20_000):
        session.execute(insert(RatingHistoryRow), history[start : start + 20_000])
    session.add(
        RatingStateRow(
            computed_at=utcnow(), match_count=rated.match_count, last_match_id=rated.last_match_id, method=METHOD
        )
    )
    session.commit()


def rerate(session: Session, games: Mapping[str, GameFacts] | None = None, history: bool = False) -> RatingSet:
    """Rebuild every rating from the matches and store them; with ``history``, the rating history too (without,
    the stored history is emptied and :func:`rating_history` computes it when asked)."""
    rated = rate_database(session, games, history)
    store(session, rated)
    return rated


def _fresh_state(session: Session) -> RatingStateRow | None:
    """The stored ratings' state row when they were computed from exactly the played matches there are now."""
    state = rating_state(session)
    if state is None or (state.match_count, state.last_match_id) != played_matches_marker(session):
        return None
    return state


def rating_history(session: Session, facts: list[MatchFact] | None = None) -> list[HistoryPoint]:
    """Every pool's rating history: the stored one where the stored ratings are fresh and carry it (``ladder
    rerate`` stores it; the end of a run and ``ladder serve`` do not), else computed from ``facts`` (every played
    match's, loaded if not given)."""
    state = _fresh_state(session)
    if state is not None:
        rows = rating_history_rows(session)
        if rows or state.match_count == 0:
            return [HistoryPoint(h.pool, h.event, h.match_id, h.bot_version_id, h.mu, h.sigma) for h in rows]
    return compute(load_match_facts(session) if facts is None else facts, history=True, estimate=False).history


def load_stored(session: Session) -> RatingSet | None:
    """The stored ratings, or None when there are none or they miss recorded matches (stale)."""
    state = _fresh_state(session)
    if state is None:
        return None
    rated = RatingSet(match_count=state.match_count, last_match_id=state.last_match_id)
    for row in rating_rows(session):
        rated.standings.setdefault(row.pool, {})[row.bot_version_id] = Standing(
            row.pool,
            row.game,
            row.num_players,
            row.bot_version_id,
            row.mu,
            row.sigma,
            row.matches,
            row.wins,
            row.score_sum,
            row.failures,
            row.draw_probability,
            facts_of(row.game).can_win,
        )
        rated.draw_probability[row.pool] = row.draw_probability
    return rated


def current(session: Session, history: bool = False, facts: list[MatchFact] | None = None) -> tuple[RatingSet, bool]:
    """The ratings as of every recorded match: (ratings, True) if stored and fresh, else computed now (False), from
    ``facts`` where given (every played match's) and with the history if asked."""
    stored = load_stored(session)
    if stored is not None:
        return stored, True
    return compute(load_match_facts(session) if facts is None else facts, history=history), False
