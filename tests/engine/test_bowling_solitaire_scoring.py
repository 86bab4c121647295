"""Rules of Bowling Solitaire (Sid Sackson): ten frames, the bonus balls and tenpin scoring.

Source: the second half of ../shared/rules/elevenses-for-one-and-bowling-solitaire.txt.
Decisions where the rulebook is silent: docs/rules-decisions.md (bowling-solitaire).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalActionError
from engine.bowling_solitaire import (
    PIN_NAMES,
    Rack,
    rack_for,
    score_sheet,
    split_frames,
)
from engine.rng import stream
from tests.engine.bowling_solitaire_helpers import (
    SAMPLE_FIRST_BALL,
    SAMPLE_FRAME,
    STOP,
    STRIKE_RACK,
    bowl,
    deal,
    play_sample_spare,
    play_strike,
)

# ---------------------------------------------------------------------------
# Ten frames and the bonus balls
# ---------------------------------------------------------------------------

NINE_GUTTER_FRAMES = [0] * 18


def test_ten_frames_then_the_game_is_over() -> None:
    """ "Players will play ten frames, bowling up to two balls in each frame" / "At the end of ten
    frames: Your game is over" - an open tenth frame earns no bonus ball."""
    state = deal(SAMPLE_FRAME, balls=NINE_GUTTER_FRAMES)
    assert state.observation(0)["frame"] == 10
    for action in SAMPLE_FIRST_BALL:
        state.apply(action)
    state.apply(bowl(0, "I"))
    state.apply(bowl(0, "J"))
    assert state.is_over()
    assert state.balls == NINE_GUTTER_FRAMES + [8, 1]
    assert state.current_player is None and state.legal_actions() == []
    assert state.result().scores == (9,)
    with pytest.raises(IllegalActionError):
        state.apply(STOP)


def test_a_tenth_frame_spare_earns_one_bonus_ball() -> None:
    """ "If a player makes a spare or a strike in the tenth frame, the player must throw one or two more
    balls to determine their scoring bonus!" - one ball after a spare, at a fresh rack."""
    state = deal(SAMPLE_FRAME, balls=NINE_GUTTER_FRAMES, later_racks=[STRIKE_RACK])
    play_sample_spare(state)
    assert not state.is_over()
    obs = state.observation(0)
    assert (obs["frame"], obs["bonus_rack"], obs["ball"]) == (10, 1, 1)
    assert len(obs["pins"]) == 10
    assert obs["can_stop"] is False and STOP not in state.legal_actions()  # a single ball, no second to hope for
    play_strike(state)
    assert state.is_over()  # a strike on the bonus ball earns nothing more
    assert state.balls[18:] == [7, 3, 10]
    assert score_sheet(state.balls)[-1] == 20
    assert state.result().scores == (20,)


def test_a_tenth_frame_strike_earns_two_bonus_balls_at_one_rack() -> None:
    """ "the player must throw one or two more balls" - two after a strike: the first at a fresh rack,
    the second at what it leaves (here the sample frame: 7 then a spare's 3)."""
    state = deal(STRIKE_RACK, balls=NINE_GUTTER_FRAMES, later_racks=[SAMPLE_FRAME])
    play_strike(state)
    obs = state.observation(0)
    assert (obs["frame"], obs["bonus_rack"], obs["ball"], obs["can_stop"]) == (10, 1, 1, True)
    play_sample_spare(state)
    assert state.is_over()
    assert state.balls[18:] == [10, 7, 3]
    assert score_sheet(state.balls)[-1] == 20


def test_a_strike_on_the_first_bonus_ball_resets_the_pins() -> None:
    """Tenpin scoring, "A 'perfect game' is when you reach the highest score possible: 300 points!" -
    after a strike on the first bonus ball the second bonus ball is bowled at a fresh rack."""
    state = deal(STRIKE_RACK, balls=NINE_GUTTER_FRAMES, later_racks=[STRIKE_RACK, STRIKE_RACK])
    play_strike(state)
    play_strike(state)
    obs = state.observation(0)
    assert (obs["bonus_rack"], obs["ball"], obs["can_stop"], len(obs["pins"])) == (2, 1, False, 10)
    play_strike(state)
    assert state.is_over()
    assert state.balls[18:] == [10, 10, 10]


def test_a_perfect_game_scores_300() -> None:
    """ "A "perfect game" is when you reach the highest score possible: 300 points!" """
    state = deal(STRIKE_RACK, later_racks=[STRIKE_RACK] * 11)
    for _ in range(12):
        play_strike(state)
    assert state.is_over()
    assert state.balls == [10] * 12
    result = state.result()
    assert result.scores == (300,)
    assert result.details["strikes"] == [10] and result.details["strike_rate"] == [1.0]
    assert result.details["spares"] == [0] and result.details["spare_rate"] == [0.0]


def test_bonus_racks_are_drawn_from_their_own_streams() -> None:
    """Decision: the bonus balls of the tenth frame are bowled at fresh racks 11 and 12, each drawn
    from stream(seed, "frame", n) like any frame's shuffle."""
    state = deal(STRIKE_RACK, balls=NINE_GUTTER_FRAMES, seed=77)
    play_strike(state)
    obs = state.observation(0)
    rack = rack_for(77, 11)
    assert rack == Rack.shuffled(stream(77, "frame", 11))
    assert {**obs["pins"], **obs["pins_down"]} == dict(zip(PIN_NAMES, rack.pins))


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


def test_score_pad_from_the_rulebook() -> None:
    """ "Here is a score pad showing a game of Bowling Solitaire in progress. The fourth frame has just
    been completed. 20 46 65 74" (eight and two, a strike, a strike, then six and three)."""
    assert score_sheet([8, 2, 10, 10, 6, 3]) == [20, 46, 65, 74, None, None, None, None, None, None]


def test_score_pad_step_by_step() -> None:
    """ "The spare is noted in the corner of the first frame. NO SCORE IS ENTERED YET." ... "These 10 are
    added to the 10 already earned in the first frame, and 20 points are now entered for the first
    frame." ... "Now that we are two balls after the second frame's strike, the second frame score can
    be recorded ... a running total of 46 pins." """
    assert score_sheet([8, 2]) == [None] * 10
    assert score_sheet([8, 2, 10]) == [20] + [None] * 9
    assert score_sheet([8, 2, 10, 10]) == [20] + [None] * 9
    assert score_sheet([8, 2, 10, 10, 6]) == [20, 46] + [None] * 8
    assert score_sheet([8, 2, 10, 10, 6, 3])[:4] == [20, 46, 65, 74]


def test_tenpin_scoring() -> None:
    """ "It is scored like a regular game of bowling." """
    assert score_sheet([10] * 12)[-1] == 300
    assert score_sheet([10] * 12) == [30, 60, 90, 120, 150, 180, 210, 240, 270, 300]
    assert score_sheet([0] * 20)[-1] == 0
    assert score_sheet([5, 5] * 10 + [5])[-1] == 150
    assert score_sheet([9, 0] * 10)[-1] == 90
    assert score_sheet([0] * 18 + [10, 3, 4])[-1] == 17
    assert score_sheet([0] * 18 + [3, 7, 10])[-1] == 20
    assert score_sheet([0] * 18 + [10, 10])[9] is None  # one bonus ball still to come
    assert score_sheet([0, 10, 5, 0] + [0] * 16)[:2] == [15, 20]  # 0 then 10 is a spare


@pytest.mark.parametrize(
    ("balls", "message"),
    [
        ([3, -1], "negative|fewer than 0"),
        ([11], "more than the ten"),
        ([6, 5], "more than the ten standing"),
        ([0] * 20 + [4], "after the game is over"),
        ([0] * 18 + [3, 4, 2], "after the game is over"),
        ([0] * 18 + [10, 3, 8], "cannot knock down 8"),
        ([0] * 18 + [10, 10, 10, 1], "after the game is over"),
        ([0] * 18 + [9, 2], "more than the ten standing"),
        ([2.5], "whole number"),
        ([True], "whole number"),
    ],
)
def test_impossible_sequences_are_refused(balls: list[Any], message: str) -> None:
    """A sequence of balls that could not happen is refused with a clear message."""
    with pytest.raises(ValueError, match=message):
        score_sheet(balls)


def test_result_reports_the_score_sheet_total_and_rates() -> None:
    """The game's result is the score sheet's total; strikes and spares are counted over the ten frames."""
    state = deal(SAMPLE_FRAME, later_racks=[STRIKE_RACK, STRIKE_RACK], seed=4)
    play_sample_spare(state)
    play_strike(state)
    play_strike(state)
    rng = random.Random(4)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    result = state.result()
    frames = split_frames(state.balls)
    assert result.scores == (score_sheet(state.balls)[-1],)
    assert result.details["strikes"] == [sum(f.strike for f in frames)] and result.details["strikes"][0] >= 2
    assert result.details["spares"] == [sum(f.spare for f in frames)] and result.details["spares"][0] >= 1
    assert result.details["strike_rate"] == [result.details["strikes"][0] / 10]
    assert result.details["spare_rate"] == [result.details["spares"][0] / 10]
    assert result.ranks == (1,)
