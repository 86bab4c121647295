"""Elevenses for One (David Harding, Grail Games, v1.1, July 2014): a solitaire.

You are Grosvenor the maid. The Tea Trolley (card 1) starts face up in front
of you; the ten Pantry cards (2 to 11) are shuffled and laid face up in a row.
You must score every Pantry card onto the trolley in ascending order before
the timer (15 minutes) runs down to zero. The game chart:

1. Shuffle the Pantry cards and lay them face up in a line.
2. You may move one face-up Pantry card to the front of the Pantry (one minute).
3. For the first face-up card: A. score it (if it is the next number; then
   perform its action; 11 wins, any other card costs a minute), B. use it
   (perform its action, turn it face down, lose a minute), or C. discard it
   (only while fewer than three cards have been discarded in the game, or,
   with ``discard_cap="pile"``, lie in the pile; no action, no minute).
4. Look at the next card: face up, go to 3; face down, repeat 4; at the end
   of the Pantry, go to 1.

Card effects (after using or scoring): 2 Tea flips one face-up card down;
3 Milk flips two; 4 Sugar costs two minutes instead of one; 5 Cups & Saucers
is never discarded nor flipped by 2, 3 or 9; 6 Fine China reshuffles the
Pantry (back to step 1); 7 Biscuits swaps two other face-up cards; 8
Sandwiches moves the first Pantry card to the end, face up; 9 Cakes flips the
card after it; 10 Servants is never discarded, and when used may return a
discard to the Pantry right after it for no minute, and when scored must
return a discarded 11; 11 Elevenses, when discarded, may first score a card
from the discard pile.

Final score: the number on the top card of the trolley plus the minutes
remaining, rated in the rulebook's bands. Options: the starting minutes
(15 or fewer), the "greater challenge" with the Tea Trolley shuffled into
the Pantry, and how the three discards are counted (``discard_cap``). Every interpretation of an unclear passage is recorded in
``docs/rules-decisions.md (elevenses-for-one)``.

Information: every Pantry card is laid face up and only turned face down in
place by the player, so the player always knows which card lies where (the
observation shows face-down cards' numbers, flagged face down). The only thing
the player cannot know is the order of future shuffles; ``resample_hidden``
redraws exactly that.

The package:

* :mod:`engine.elevenses_for_one.cards`: the card table's limits, the decision steps, how a match ends, the rating bands;
* :mod:`engine.elevenses_for_one.state`: a match in progress, the card effects, the observation and result;
* :mod:`engine.elevenses_for_one.deal`: an explicit layout read and checked;
* :mod:`engine.elevenses_for_one.game`: the options, new matches and explicit deals, the action bound;
* :mod:`engine.elevenses_for_one.hidden`: a full state rebuilt from the player's observation.
"""

from engine.elevenses_for_one.cards import (
    ALL_CARDS,
    BY_ELEVENSES,
    BY_SCORE,
    BY_USE,
    CHOOSE,
    DISCARD_CAP_GAME,
    DISCARD_CAP_PILE,
    DISCARD_CAPS,
    DISCARD_LIMIT,
    ELEVENSES_SCORE,
    ENDED_STALLED,
    ENDED_STUCK,
    ENDED_TIME,
    ENDED_WON,
    FLIP,
    MAX_PANTRY,
    MOVE_TO_FRONT,
    NEVER_DISCARDED,
    OVER,
    RATING_BANDS,
    SERVANTS_RETURN,
    STALL_LIMIT,
    START_MINUTES,
    SWAP,
    RatingBand,
    minute_cost,
    rating_band,
)
from engine.elevenses_for_one.game import GAME, ElevensesForOne
from engine.elevenses_for_one.hidden import state_from_observation
from engine.elevenses_for_one.state import ElevensesForOneState

__all__ = [
    "ALL_CARDS",
    "BY_ELEVENSES",
    "BY_SCORE",
    "BY_USE",
    "CHOOSE",
    "DISCARD_CAPS",
    "DISCARD_CAP_GAME",
    "DISCARD_CAP_PILE",
    "DISCARD_LIMIT",
    "ELEVENSES_SCORE",
    "ENDED_STALLED",
    "ENDED_STUCK",
    "ENDED_TIME",
    "ENDED_WON",
    "ElevensesForOne",
    "ElevensesForOneState",
    "FLIP",
    "GAME",
    "MAX_PANTRY",
    "MOVE_TO_FRONT",
    "NEVER_DISCARDED",
    "OVER",
    "RATING_BANDS",
    "RatingBand",
    "SERVANTS_RETURN",
    "STALL_LIMIT",
    "START_MINUTES",
    "SWAP",
    "minute_cost",
    "rating_band",
    "state_from_observation",
]
