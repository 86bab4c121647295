"""The analysis's contract: a pure function of its inputs, blind to hidden cards, right where the answer is known."""

from __future__ import annotations

import random

import pytest

from engine import get_game
from ladder.analysis.core import DecisionTask, analyse_seat, replay_to, seat_decisions, value_actions
from ladder.analysis.model import MatchLog, Reference, SeatAnalysis
from ladder.analysis.worlds import world_maker
from tests.analysis.helpers import played

SHORT = {
    "elfer-raus": ({"rounds": 1}, ["thumb", "random", "thumb"]),
    "elevenses": ({"target": 5}, ["thumb", "random"]),
    "elevenses-for-one": ({}, ["random"]),
    "bowling-solitaire": ({}, ["random"]),
}


def _match(game: str, seed: int = 5) -> MatchLog:
    options, bots = SHORT[game]
    return played(game, bots, seed, options)


def test_the_same_analysis_twice_gives_the_same_numbers_whatever_the_worker_count() -> None:
    match = _match("elfer-raus")
    once = analyse_seat(match, 0, samples=4, seed=3)
    again = analyse_seat(match, 0, samples=4, seed=3, workers=2)
    assert once.decisions, "the seat made no decision to analyse"
    assert once.to_json() == again.to_json()
    assert SeatAnalysis.from_json(once.to_json()) == once
    other_seed = analyse_seat(match, 0, samples=4, seed=4)
    assert other_seed.to_json() != once.to_json()  # the seed does reach the worlds


@pytest.mark.parametrize("game", sorted(SHORT))
def test_forced_moves_are_skipped_and_every_legal_action_is_valued(game: str) -> None:
    match = _match(game)
    moves = seat_decisions(match, 0)
    analysis = analyse_seat(match, 0, samples=2, seed=0) if len(moves) < 40 else None
    for move in moves[:5]:
        assert len(replay_to(match, move).legal_actions()) > 1
    if analysis is not None:
        assert [d.move for d in analysis.decisions] == moves
        for decision in analysis.decisions:
            state = replay_to(match, decision.move)
            assert [v.action for v in decision.actions] == state.legal_actions()
            assert decision.loss.mean >= 0.0


def _hidden_swapped(game: str, match: MatchLog, move: int, seat: int) -> tuple[object, object]:
    """The real state at ``move`` and another the seat cannot tell from it (its hidden cards dealt anew)."""
    real = replay_to(match, move)
    for attempt in range(20):
        other = world_maker(game)(real, seat, random.Random(f"swap/{attempt}"))
        if _seen(other, seat) == _seen(real, seat) and repr(_hidden(other)) != repr(_hidden(real)):
            return real, other
    raise AssertionError("no other world consistent with the observation was found")


def _seen(state: object, seat: int) -> object:
    """What the seat sees now (the events of its last turns are history: a rebuilt world has none)."""
    view = dict(state.observation(seat))  # type: ignore[attr-defined]
    view.pop("events", None)
    return view


def _hidden(state: object) -> object:
    from ladder.report.replay import hidden_of

    found = hidden_of(state)  # type: ignore[arg-type]
    return found or (getattr(state, "seed", None), getattr(state, "_seed", None))


@pytest.mark.parametrize("game", sorted(SHORT))
def test_the_analysis_never_reads_hidden_cards(game: str) -> None:
    match = _match(game)
    seat = 0
    moves = seat_decisions(match, seat)
    for move in (moves[0], moves[len(moves) // 2]):
        real, other = _hidden_swapped(game, match, move, seat)
        task = DecisionTask(match, seat, move, Reference.THUMB, 4, 11)
        assert value_actions(task, real) == value_actions(task, other)  # type: ignore[arg-type]


def test_a_rulebook_win_is_the_best_action() -> None:
    """Elfer raus rulebook (shared/rules/elfer-raus-eleven-starts.txt): "The round is won by the first player able
    to play his last card. The other players should add up the values of their cards". Seat 0 holds only the red
    ten beside the red eleven ("He/she lays a 10 of the same colour to the left of the eleven"): laying it wins
    the round (and, in a one-round game, the game) with no points. "Matching cards do not have to be played however"
    (read as 'all': it may draw instead): drawing leaves it holding cards, and a rival may go out first."""
    game = get_game("elfer-raus")
    hands = [[["red", 10]], [["yellow", 5], ["green", 3], ["blue", 18]], [["yellow", 7], ["green", 20]]]
    taken = [card for hand in hands for card in hand] + [["red", 11], ["yellow", 11]]
    pack = [[c, n] for c in ("red", "yellow", "green", "blue") for n in range(1, 21) if [c, n] not in taken]
    random.Random(2).shuffle(pack)
    deal = {
        "hands": hands,
        "pack": pack,
        "rows": {"red": [11, 11], "yellow": [11, 11]},
        "current_player": 0,
    }
    state = game.from_deal(deal, {"rounds": 1, "hold_back": "all"})
    legal = state.legal_actions()
    win = next(a for a in legal if a.get("type") == "play")
    assert len(legal) > 1, legal
    others = [a for a in legal if a is not win]
    match = MatchLog("elfer-raus", {"rounds": 1, "hold_back": "all"}, 3, 0, (others[0],), ("thumb", "thumb", "thumb"))
    decision = value_actions(DecisionTask(match, 0, 1, Reference.THUMB, 8, 0), state)
    assert decision.actions[decision.best].action == win
    assert not decision.indistinguishable
    assert decision.loss.low > 0.0  # the other action's loss is told apart from nothing
