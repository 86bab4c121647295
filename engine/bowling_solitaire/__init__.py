"""Bowling Solitaire, by Sid Sackson: tenpin bowling with twenty cards, for one player.

The deck is the numbers 0-9, each twice. Every frame the twenty cards are
shuffled: ten are laid out as pins in a triangle and ten form three face-down
"ball" piles of five, three and two cards whose top cards are face up::

    A  B  C  D      the back row
     E  F  G        F is the centre pin
      H  I
       J            the head pin

A face-up ball card knocks down one pin of the same number, or two or three
pins that touch one another in the triangle and whose sum ends in the ball
card's number. The first card of a frame may not take a back-row pin, nor the
centre pin alone; once a pin is down, every play must take a pin next to one
already down. The first ball of a frame ends when no play is possible or the
player stops; the top card of every pile is then thrown out and the second
ball is bowled the same way. Ten frames are scored like tenpin bowling
(:func:`score_sheet`); a spare or strike in the tenth frame earns one or two
bonus balls, bowled at fresh racks.

Rules decisions (where the rulebook is silent) are recorded in
``docs/rules-decisions.md (bowling-solitaire)``.

The package:

* :mod:`engine.bowling_solitaire.layout`: the pin triangle, the pin groups and which of them a ball may take;
* :mod:`engine.bowling_solitaire.scoring`: frames and the score sheet;
* :mod:`engine.bowling_solitaire.deal`: the racks, shuffled from the seed or given as JSON;
* :mod:`engine.bowling_solitaire.state`: a game in progress, its observation and result;
* :mod:`engine.bowling_solitaire.game`: the game's facts, explicit deals, the action bound.
"""

from engine.bowling_solitaire.deal import Rack, rack_for
from engine.bowling_solitaire.game import GAME, BowlingSolitaireGame
from engine.bowling_solitaire.layout import (
    ACTIONS_PER_RACK,
    ADJACENT_PAIRS,
    ALL_PINS,
    BACK_ROW,
    BACK_ROW_MASK,
    CENTRE_MASK,
    CENTRE_PIN,
    DECK,
    FRAMES,
    GROUP_INDEX,
    LAST_RACK,
    NEIGHBOURS,
    NUM_PINS,
    PILE_SIZES,
    PIN_GROUPS,
    PIN_INDEX,
    PIN_NAMES,
    STOP,
    TOUCHING,
    PinGroup,
    group_digits,
    legal_group_indices,
)
from engine.bowling_solitaire.scoring import FrameBalls, final_score, score_sheet, split_frames
from engine.bowling_solitaire.state import BowlingSolitaireState

__all__ = [
    "ACTIONS_PER_RACK",
    "ADJACENT_PAIRS",
    "ALL_PINS",
    "BACK_ROW",
    "BACK_ROW_MASK",
    "BowlingSolitaireGame",
    "BowlingSolitaireState",
    "CENTRE_MASK",
    "CENTRE_PIN",
    "DECK",
    "FRAMES",
    "FrameBalls",
    "GAME",
    "GROUP_INDEX",
    "LAST_RACK",
    "NEIGHBOURS",
    "NUM_PINS",
    "PILE_SIZES",
    "PIN_GROUPS",
    "PIN_INDEX",
    "PIN_NAMES",
    "PinGroup",
    "Rack",
    "STOP",
    "TOUCHING",
    "final_score",
    "group_digits",
    "legal_group_indices",
    "rack_for",
    "score_sheet",
    "split_frames",
]
