"""Rules of Bowling Solitaire (Sid Sackson): explicit deals, chance, the observation and the legal actions.

Source: the second half of ../shared/rules/elevenses-for-one-and-bowling-solitaire.txt.
Decisions where the rulebook is silent: docs/rules-decisions.md (bowling-solitaire).
"""

from __future__ import annotations

import itertools
import json
import random

import pytest

from engine import DealError, IllegalActionError
from engine.bowling_solitaire import (
    ADJACENT_PAIRS,
    GAME,
    PIN_NAMES,
    BowlingSolitaireState,
    Rack,
)
from engine.rng import stream
from tests.engine.bowling_solitaire_helpers import SAMPLE_FIRST_BALL, SAMPLE_FRAME, STOP, deal, play_sample_spare

# ---------------------------------------------------------------------------
# Explicit deals, chance, observation, actions
# ---------------------------------------------------------------------------


def test_explicit_deals_are_checked() -> None:
    """A deal must use the twenty cards, ten pins and piles of five, three and two."""
    with pytest.raises(DealError):
        GAME.from_deal({"pins": SAMPLE_FRAME["pins"], "piles": [[0, 5, 8, 3], [0, 3, 9, 6], [4, 4]]})
    with pytest.raises(DealError):
        GAME.from_deal({"pins": {**SAMPLE_FRAME["pins"], "A": 3}, "piles": SAMPLE_FRAME["piles"]})
    with pytest.raises(DealError):
        GAME.from_deal({"pins": SAMPLE_FRAME["pins"]})
    with pytest.raises(DealError):
        GAME.from_deal({**SAMPLE_FRAME, "balls": [3]})  # an unfinished frame
    with pytest.raises(DealError):
        GAME.from_deal({**SAMPLE_FRAME, "balls": [0] * 20})  # no frame left to bowl


def test_every_frame_is_drawn_from_the_seed_and_its_number_alone() -> None:
    """Chance: frame n's shuffle comes from stream(seed, "frame", n), whatever was played before."""
    seed = 2024
    layouts: list[dict[int, dict[str, int]]] = []
    for policy in ("first", "stop", "random"):
        state = GAME.new_state(1, seed)
        rng = random.Random(policy)
        seen: dict[int, dict[str, int]] = {}
        while not state.is_over():
            obs = state.observation(0)
            seen.setdefault(obs["frame"] + obs["bonus_rack"], {**obs["pins"], **obs["pins_down"]})
            legal = state.legal_actions()
            if policy == "first":
                action = legal[0]
            elif policy == "stop":
                action = STOP if STOP in legal else legal[-1]
            else:
                action = rng.choice(legal)
            state.apply(action)
        layouts.append(seen)
    assert all(set(range(1, 11)) <= set(seen) for seen in layouts)
    for seen in layouts:
        for rack_number, layout in seen.items():
            assert layout == dict(zip(PIN_NAMES, Rack.shuffled(stream(seed, "frame", rack_number)).pins))


def test_observation_shows_the_table_but_not_the_face_down_order() -> None:
    """The player sees the pins, the face-up ball cards, the pile sizes and the cards out of play;
    the order of the face-down cards is hidden."""
    state = deal(SAMPLE_FRAME)
    obs = state.observation(0)
    assert set(obs) >= {
        "frame",
        "ball",
        "pins",
        "pins_down",
        "ball_cards",
        "pile_sizes",
        "out_of_play",
        "balls",
        "score_sheet",
        "can_stop",
        "bonus_rack",
    }
    assert obs["pins"] == SAMPLE_FRAME["pins"] and obs["ball_cards"] == [0, 0, 4]
    assert obs["pile_sizes"] == [5, 3, 2] and obs["out_of_play"] == [] and obs["pins_down"] == {}
    other = GAME.from_deal({"pins": SAMPLE_FRAME["pins"], "piles": [[0, 9, 3, 6, 4], [0, 8, 5], [4, 3]]})
    assert other.observation(0) == obs
    assert other.legal_actions() == state.legal_actions()
    json.dumps(obs)


def test_resample_hidden_redraws_only_the_face_down_cards() -> None:
    """resample_hidden shuffles the unseen face-down cards among the face-down places."""
    state = deal(SAMPLE_FRAME)
    state.apply(SAMPLE_FIRST_BALL[0])
    face_down = sorted(card for pile in state.piles for card in pile[:-1])
    orders = set()
    for draw in range(40):
        twin = state.resample_hidden(0, random.Random(draw))
        assert twin.observation(0) == state.observation(0)
        assert [pile[-1] for pile in twin.piles] == [pile[-1] for pile in state.piles]
        assert sorted(card for pile in twin.piles for card in pile[:-1]) == face_down
        orders.add(tuple(tuple(pile) for pile in twin.piles))
    assert len(orders) > 10
    assert [list(p) for p in state.piles] == [[6, 3, 8, 5], [9, 3, 0], [4, 4]]  # the original is untouched


def _brute_force_plays(state: BowlingSolitaireState) -> set[str]:
    """Every legal play, found straight from the rulebook's sentences, independently of the engine."""
    obs = state.observation(0)
    standing = obs["pins"]
    down = set(obs["pins_down"])
    touching = {frozenset(pair) for pair in ADJACENT_PAIRS}

    def connected(names: tuple[str, ...]) -> bool:
        reached = {names[0]}
        grew = True
        while grew:
            grew = False
            for name in names:
                if name not in reached and any(frozenset((name, r)) in touching for r in reached):
                    reached.add(name)
                    grew = True
        return len(reached) == len(names)

    found: set[str] = set()
    for pile, card in enumerate(obs["ball_cards"]):
        if card is None:
            continue
        for size in (1, 2, 3):
            for names in itertools.combinations(sorted(standing), size):
                total = sum(standing[name] for name in names)
                if size == 1 and total != card:
                    continue
                if size > 1 and (total % 10 != card or not connected(names)):
                    continue
                if not down:
                    if set(names) & set("ABCD") or names == ("F",):
                        continue
                elif not any(frozenset((name, d)) in touching for name in names for d in down):
                    continue
                found.add(json.dumps({"type": "bowl", "pile": pile, "pins": list(names)}))
    if found and obs["can_stop"]:
        found.add(json.dumps(STOP))
    return found


def test_every_legal_play_is_offered_and_nothing_else() -> None:
    """Every legal play is offered (each face-up card against every group it may take), nothing else,
    with pins in a canonical sorted order."""
    for seed in range(25):
        state = GAME.new_state(1, seed)
        rng = random.Random(seed)
        while not state.is_over():
            legal = state.legal_actions()
            assert {json.dumps(a) for a in legal} == _brute_force_plays(state)
            assert len({json.dumps(a) for a in legal}) == len(legal)
            for action in legal:
                if action["type"] == "bowl":
                    assert action["pins"] == sorted(action["pins"])
            state.apply(rng.choice(legal))


def test_unsorted_pins_are_refused() -> None:
    """Actions name their pins in the canonical sorted order only."""
    state = deal(SAMPLE_FRAME)
    with pytest.raises(IllegalActionError):
        state.apply({"type": "bowl", "pile": 0, "pins": ["H", "F"]})
    assert state.balls == [] and len(state.observation(0)["pins"]) == 10


def test_max_actions_bounds_every_game() -> None:
    """Twelve racks at most, each at most ten plays and one stop."""
    assert GAME.max_actions(1, {}) == 132
    longest = 0
    for seed in range(200):
        state = GAME.new_state(1, seed)
        rng = random.Random(seed)
        count = 0
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
            count += 1
        longest = max(longest, count)
    assert longest <= GAME.max_actions(1, {})


def test_clone_is_independent() -> None:
    state = deal(SAMPLE_FRAME)
    twin = state.clone()
    play_sample_spare(twin)
    assert state.balls == [] and state.observation(0)["pins"] == SAMPLE_FRAME["pins"]
    assert twin.balls == [7, 3]
    assert isinstance(state.render(), str) and "J:6" in state.render()
