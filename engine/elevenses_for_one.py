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
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from engine.core import (
    Action,
    DealError,
    DetailValue,
    EventLog,
    Game,
    GameFacts,
    GameResult,
    OptionSpec,
    ScoreOrder,
    State,
    WinRule,
)
from engine.morning_tea import (  # the card table Elevenses for One shares with Elevenses
    BISCUITS,
    CAKES,
    CARD_NAMES,
    CARD_NUMBERS,
    CUPS_AND_SAUCERS,
    ELEVENSES,
    FINE_CHINA,
    MILK,
    SANDWICHES,
    SERVANTS,
    SUGAR,
    TEA,
    TEA_TROLLEY,
)
from engine.rng import stream

ALL_CARDS: tuple[int, ...] = CARD_NUMBERS
START_MINUTES = 15
DISCARD_LIMIT = 3
"""Three discards: in a game (``discard_cap="game"``), or lying in the pile at once (``"pile"``)."""
DISCARD_CAP_GAME = "game"
"""At most three discards in a game: a card taken back from the pile does not free a place."""
DISCARD_CAP_PILE = "pile"
"""At most three cards lying in the discard pile at once: a card taken back frees a place."""
DISCARD_CAPS: tuple[str, ...] = (DISCARD_CAP_GAME, DISCARD_CAP_PILE)
NEVER_DISCARDED = frozenset({CUPS_AND_SAUCERS, SERVANTS})
STALL_LIMIT = 5
"""The cap that makes every match end: a fifth pass in a row through the Pantry
during which the clock never moved ends the match as a loss (the clock strikes
eleven while the maid shuffles cards back and forth)."""
MAX_PANTRY = 11

# Decision points (the "step" in the observation).
MOVE_TO_FRONT = "move_to_front"  # step 2
CHOOSE = "choose"  # step 3: score, use or discard the current card
FLIP = "flip"  # Tea or Milk: which face-up card(s) to flip face down
SWAP = "swap"  # Biscuits: which two face-up cards swap places
SERVANTS_RETURN = "servants_return"  # Servants used: which discard to return, or none
ELEVENSES_SCORE = "elevenses_score"  # Elevenses discarded: score the discard, or not
OVER = "over"

# How a card whose effect is being performed reached that point.
BY_USE = "use"
BY_SCORE = "score"
BY_ELEVENSES = "elevenses"  # scored from the discard pile while discarding 11

# How a match ended.
ENDED_WON = "won"
ENDED_TIME = "time"  # the timer reached zero
ENDED_STUCK = "stuck"  # no card left in the Pantry: nothing can ever be scored again
ENDED_STALLED = "stalled"  # the STALL_LIMIT cap


@dataclass(frozen=True)
class RatingBand:
    """One line of Lady Agatha's rating: a range of points and her verdict."""

    low: int
    high: int | None  # None: no upper end
    name: str
    verdict: str
    never_awarded: str = ""  # why no game can end in this band, if none can

    def note(self) -> str:
        points = (
            f"{self.low} points or more"
            if self.high is None
            else (f"{self.low} points" if self.low == self.high else f"{self.low}-{self.high} points")
        )
        return f"{points}: never awarded, {self.never_awarded}" if self.never_awarded else points


RATING_BANDS: tuple[RatingBand, ...] = (
    RatingBand(0, 7, "You're fired!", "You're fired!"),
    RatingBand(8, 10, "The Madam is disappointed", "The Madam is disappointed. You risk getting replaced."),
    RatingBand(
        11,
        11,
        "Performed as expected",
        "You have performed as expected, but haven't excelled.",
        never_awarded="a loss scores at most 10 (top card at most 10, no minutes left) "
        "and a win at least 12 (11 with at least one minute left)",
    ),
    RatingBand(12, 13, "Half-day off", "Lady Agatha congratulates you and rewards you with a half-day off."),
    # The rulebook's last line reads "14-15 points"; a perfect game scores 16
    # (11 + 5 minutes), so the top band has no upper end.
    RatingBand(14, None, "Wages raised", "You have shown your worth. Lady Agatha raises your wages."),
)


def rating_band(points: int) -> RatingBand:
    """The rulebook's band for a final score: 0-7, 8-10, 11, 12-13, 14 and more."""
    for band in RATING_BANDS:
        if points >= band.low and (band.high is None or points <= band.high):
            return band
    return RATING_BANDS[0]


def minute_cost(card: int) -> int:
    """Minutes lost for using or scoring ``card`` (Sugar: "lose two minutes ... instead of one")."""
    return 2 if card == SUGAR else 1


class ElevensesForOneState(State):
    """One position of a game of Elevenses for One.

    The Pantry is a row (index 0 is the first card) with a face-up flag per
    card. ``next_index`` is the step-4 pointer: the position of the next card
    to look at in the current pass; cards removed or inserted before it shift
    it so that it keeps pointing at the same card.
    """

    __slots__ = (
        "game",
        "num_players",
        "options",
        "_legal_cache",
        "seed",
        "scripted_shuffles",
        "pantry",
        "face_up",
        "trolley",
        "discards",
        "discards_made",
        "minutes",
        "step",
        "current",
        "next_index",
        "effect_card",
        "effect_by",
        "shuffles",
        "clock_moved",
        "stalled_passes",
        "ended",
        "log",
    )

    def __init__(self, game: ElevensesForOne, options: dict[str, Any]) -> None:
        self.game = game
        self.num_players = 1
        self.options = options
        self._legal_cache = None
        self.seed = 0
        self.scripted_shuffles: list[list[int]] = []
        self.pantry: list[int] = []
        self.face_up: list[bool] = []
        self.trolley: list[int] = []
        self.discards: list[int] = []
        self.discards_made = 0
        self.minutes = options["minutes"]
        self.step = MOVE_TO_FRONT
        self.current = -1
        self.next_index = 0
        self.effect_card = 0
        self.effect_by = ""
        self.shuffles = 0
        self.clock_moved = False
        self.stalled_passes = 0
        self.ended = ""
        self.log = EventLog(1)

    # ---- facts ------------------------------------------------------------------
    @property
    def top(self) -> int:
        """The number on the top card of the Tea Trolley (0 while it is empty)."""
        return self.trolley[-1] if self.trolley else 0

    @property
    def won(self) -> bool:
        return self.ended == ENDED_WON

    @property
    def current_player(self) -> int | None:
        return None if self.step == OVER else 0

    def is_over(self) -> bool:
        return self.step == OVER

    def final_score(self) -> int:
        """Lady Agatha's rating: "Number displayed on the top card on the Tea Trolley + Number of
        minutes remaining"."""
        return self.top + self.minutes

    # ---- legal actions ------------------------------------------------------------
    def _legal_actions(self) -> list[Action]:
        step = self.step
        if step == CHOOSE:
            return self._choose_actions()
        if step == MOVE_TO_FRONT:
            return [{"type": "keep_order"}] + [
                {"type": "to_front", "card": self.pantry[index]}
                for index in range(1, len(self.pantry))
                if self.face_up[index]
            ]
        if step == FLIP:
            candidates = sorted(self._flip_candidates())
            if self.effect_card == TEA:
                return [{"type": "flip", "cards": [card]} for card in candidates]
            return [{"type": "flip", "cards": [a, b]} for a, b in combinations(candidates, 2)]
        if step == SWAP:
            candidates = sorted(self._swap_candidates())
            return [{"type": "swap", "cards": [a, b]} for a, b in combinations(candidates, 2)]
        if step == SERVANTS_RETURN:
            actions = [{"type": "return", "card": card} for card in self.discards]
            actions.append({"type": "decline"})
            return actions
        if step == ELEVENSES_SCORE:
            return [{"type": "score_discard", "card": self.top + 1}, {"type": "decline"}]
        return []

    def _choose_actions(self) -> list[Action]:
        """Step 3 on the current card: score it (if it is the next number), use it, or discard it (if allowed)."""
        card = self.pantry[self.current]
        actions: list[Action] = []
        if card == self.top + 1:
            actions.append({"type": "score", "card": card})
        actions.append({"type": "use", "card": card})
        if self._may_discard(card):
            actions.append({"type": "discard", "card": card})
        return actions

    @property
    def discards_left(self) -> int:
        """How many more cards may be discarded now: C: "If less than three cards have been discarded"."""
        used = self.discards_made if self.options["discard_cap"] == DISCARD_CAP_GAME else len(self.discards)
        return max(0, DISCARD_LIMIT - used)

    def _may_discard(self, card: int) -> bool:
        """C: "If less than three cards have been discarded"; 5 and 10 "can never be discarded"."""
        return self.discards_left > 0 and card not in NEVER_DISCARDED

    def _flip_candidates(self) -> list[int]:
        """Face-up Pantry cards Tea or Milk may flip: never 5, never the card being used."""
        acting = self.effect_card if self.effect_by == BY_USE else 0
        return [
            card for card, up in zip(self.pantry, self.face_up) if up and card != CUPS_AND_SAUCERS and card != acting
        ]

    def _swap_candidates(self) -> list[int]:
        """Biscuits: "two other face-up cards in the Pantry"."""
        return [card for card, up in zip(self.pantry, self.face_up) if up and card != BISCUITS]

    # ---- applying actions -------------------------------------------------------
    def _apply(self, action: Action) -> None:
        self.log.mark(0)
        kind = action["type"]
        if kind == "score":
            self._score_current()
        elif kind == "use":
            self._use_current()
        elif kind == "discard":
            self._discard_current()
        elif kind == "keep_order":
            self._advance()
        elif kind == "to_front":
            self._move_to_front(action["card"])
        elif kind == "flip":
            self._flip_down(action["cards"])
            self._finish_effect()
        elif kind == "swap":
            self._swap(action["cards"][0], action["cards"][1])
            self._finish_effect()
        elif kind == "return":
            self._servants_return(action["card"])
        elif kind == "score_discard":
            self._elevenses_score(action["card"])
        elif kind == "decline":
            if self.step == SERVANTS_RETURN:
                self._finish_effect()
            else:  # Elevenses: keep the discard and put 11 on the pile
                self.discards.append(ELEVENSES)
                self.log.add({"event": "discard", "card": ELEVENSES})
                self._advance()
        else:  # pragma: no cover - the base class only lets legal actions through
            raise AssertionError(kind)

    # Step 2 ------------------------------------------------------------------------
    def _begin_pass(self) -> None:
        """Step 2 follows every laying out of the Pantry: offer the move to the front."""
        self.next_index = 0
        self.current = -1
        if any(self.face_up[1:]):
            self.step = MOVE_TO_FRONT
        else:
            self._advance()

    def _move_to_front(self, card: int) -> None:
        """Step 2: "take a single face-up Pantry card and place it first ... lose one minute"."""
        index = self.pantry.index(card)
        del self.pantry[index]
        del self.face_up[index]
        self.pantry.insert(0, card)
        self.face_up.insert(0, True)
        self.log.add({"event": "to_front", "card": card})
        self._lose_minutes(1)
        if self.step != OVER:
            self._advance()

    # Step 4 ------------------------------------------------------------------------
    def _advance(self) -> None:
        """Step 4: the next face-up card is the current card; the end of the Pantry is step 1."""
        pantry = self.pantry
        face_up = self.face_up
        index = self.next_index
        size = len(pantry)
        while index < size and not face_up[index]:
            index += 1
        if index == size:
            self._end_of_pantry()
            return
        self.current = index
        self.step = CHOOSE
        card = pantry[index]
        if card != self.top + 1 and not self._may_discard(card):
            # Neither scoring nor discarding is possible: using the card is forced.
            self._use_current()

    def _end_of_pantry(self) -> None:
        """ "If you have reached the end of the Pantry, GO TO 1"."""
        if not self.pantry:
            self._end(ENDED_STUCK)
            return
        if self.clock_moved:
            self.stalled_passes = 0
        else:
            self.stalled_passes += 1
            if self.stalled_passes >= STALL_LIMIT:
                self._end(ENDED_STALLED)
                return
        self._reshuffle()
        self._begin_pass()

    def _reshuffle(self) -> None:
        """Step 1: "Shuffle the Pantry cards and lay them face up in a line"."""
        self.shuffles += 1
        cards = sorted(self.pantry)
        if self.scripted_shuffles:
            order = self.scripted_shuffles.pop(0)
            if sorted(order) != cards:
                raise DealError(f"scripted shuffle {order} is not an order of the Pantry {cards}")
            cards = list(order)
        else:
            stream(self.seed, "reshuffle", self.shuffles).shuffle(cards)
        self.pantry = cards
        self.face_up = [True] * len(cards)
        self.next_index = 0
        self.current = -1
        self.clock_moved = False
        self.log.add({"event": "shuffle", "pantry": list(cards)})

    # Step 3 ------------------------------------------------------------------------
    def _score_current(self) -> None:
        """A: place the card on the trolley, then perform its action; 11 wins."""
        index = self.current
        card = self.pantry.pop(index)
        del self.face_up[index]
        self.next_index = index
        self.trolley.append(card)
        self.log.add({"event": "score", "card": card})
        if card == ELEVENSES:
            self._end(ENDED_WON)
            return
        self._start_effect(card, BY_SCORE)

    def _use_current(self) -> None:
        """B: perform the action, turn the card face down, lose a minute."""
        card = self.pantry[self.current]
        self.next_index = self.current + 1
        self.log.add({"event": "use", "card": card})
        self._start_effect(card, BY_USE)

    def _discard_current(self) -> None:
        """C: put the card on the discard pile; no action, no minute (11 may score a discard first)."""
        index = self.current
        card = self.pantry.pop(index)
        del self.face_up[index]
        self.next_index = index
        self.discards_made += 1
        if card == ELEVENSES and (self.top + 1) in self.discards:
            # "after discarding this card you may first take a card from your
            # discard pile, score it, and then place (11) in the discard pile"
            self.step = ELEVENSES_SCORE
            self.effect_card = ELEVENSES
            self.effect_by = ""
            return
        self.discards.append(card)
        self.log.add({"event": "discard", "card": card})
        self._advance()

    def _elevenses_score(self, card: int) -> None:
        self.discards.remove(card)
        self.trolley.append(card)
        self.log.add({"event": "score_discard", "card": card})
        self._start_effect(card, BY_ELEVENSES)

    # Card effects ------------------------------------------------------------------
    def _start_effect(self, card: int, by: str) -> None:
        """Perform the action of ``card`` after it was used or scored.

        Mandatory instructions are carried out when they can be; a choice with
        a single possibility is made automatically; a real choice stops here
        and waits for the player's action.
        """
        self.effect_card = card
        self.effect_by = by
        if card == TEA or card == MILK:
            candidates = self._flip_candidates()
            if len(candidates) <= (1 if card == TEA else 2):
                self._flip_down(candidates)
            else:
                self.step = FLIP
                return
        elif card == BISCUITS:
            candidates = self._swap_candidates()
            if len(candidates) == 2:
                self._swap(candidates[0], candidates[1])
            elif len(candidates) > 2:
                self.step = SWAP
                return
        elif card == FINE_CHINA:
            self._reshuffle()
        elif card == SANDWICHES:
            self._sandwiches()
        elif card == CAKES:
            self._cakes(by)
        elif card == SERVANTS:
            if by == BY_USE:
                if self.discards:
                    self.step = SERVANTS_RETURN
                    return
            elif ELEVENSES in self.discards:
                # "if (11) is currently discarded, you must use this card's action
                # to return it to the Pantry face-up": where (10) was, so it is next.
                self.discards.remove(ELEVENSES)
                self._insert(self.next_index, ELEVENSES)
                self.log.add({"event": "return", "card": ELEVENSES})
        self._finish_effect()

    def _finish_effect(self, servants_returned: bool = False) -> None:
        """After the action: turn a used card face down, lose the minute(s), go on."""
        card = self.effect_card
        by = self.effect_by
        self.effect_card = 0
        self.effect_by = ""
        if by == BY_USE:
            # "Then turn the card face-down": Fine China too, where the reshuffle laid it.
            self.face_up[self.pantry.index(card)] = False
        if not servants_returned:
            self._lose_minutes(minute_cost(card))
        if by == BY_ELEVENSES:
            self.discards.append(ELEVENSES)
            self.log.add({"event": "discard", "card": ELEVENSES})
        if self.step == OVER:
            return
        if card == FINE_CHINA:
            self._begin_pass()
        else:
            self._advance()

    def _flip_down(self, cards: list[int]) -> None:
        for card in cards:
            self.face_up[self.pantry.index(card)] = False
        if cards:
            self.log.add({"event": "flip", "cards": list(cards)})

    def _swap(self, first: int, second: int) -> None:
        pantry = self.pantry
        i, j = pantry.index(first), pantry.index(second)
        pantry[i], pantry[j] = second, first
        self.log.add({"event": "swap", "cards": [first, second]})

    def _sandwiches(self) -> None:
        """ "take the first card in the Pantry (whether face-up or face-down) and place it
        at the end of the Pantry face-up. (8) must move itself if it is the first card"."""
        if not self.pantry:
            return
        card = self.pantry[0]
        self._remove(0)
        self.pantry.append(card)
        self.face_up.append(True)
        self.log.add({"event": "to_end", "card": card})

    def _cakes(self, by: str) -> None:
        """ "flip the next card in the Pantry after (9) face-down. If the next card is already
        face-down, or is card (5), do nothing. If (9) is the last card in the Pantry, do nothing"."""
        if by == BY_USE:
            index = self.pantry.index(CAKES) + 1
        elif by == BY_SCORE:
            index = self.next_index  # the card that followed 9 before it left the Pantry
        else:
            return  # scored from the discard pile: 9 has no place in the Pantry
        if index < len(self.pantry) and self.face_up[index] and self.pantry[index] != CUPS_AND_SAUCERS:
            self.face_up[index] = False
            self.log.add({"event": "flip", "cards": [self.pantry[index]]})

    def _servants_return(self, card: int) -> None:
        """Servants used: the discard goes face up directly after (10); no minute is lost."""
        self.discards.remove(card)
        self._insert(self.pantry.index(SERVANTS) + 1, card)
        self.log.add({"event": "return", "card": card})
        self._finish_effect(servants_returned=True)

    def _remove(self, index: int) -> None:
        del self.pantry[index]
        del self.face_up[index]
        if index < self.next_index:
            self.next_index -= 1

    def _insert(self, index: int, card: int) -> None:
        """Insert a face-up card; inserted at the step-4 pointer, it is the next card seen."""
        self.pantry.insert(index, card)
        self.face_up.insert(index, True)
        if index < self.next_index:
            self.next_index += 1

    # The clock and the end ------------------------------------------------------
    def _lose_minutes(self, count: int) -> None:
        self.minutes = max(0, self.minutes - count)
        self.clock_moved = True
        if self.minutes == 0:
            self._end(ENDED_TIME)

    def _end(self, how: str) -> None:
        if how != ENDED_WON:
            # Every loss is the clock striking eleven: no minutes remain.
            self.minutes = 0
        self.ended = how
        self.step = OVER
        self.current = -1
        self.log.add({"event": "end", "how": how, "score": self.final_score()})

    # ---- what the player knows ----------------------------------------------------
    def _observation(self, seat: int) -> dict[str, Any]:
        """The whole table: every card's place is known (face-down cards were seen face up)."""
        current = self.current if self.step == CHOOSE else None
        return {
            "step": self.step,
            "minutes": self.minutes,
            "trolley": list(self.trolley),
            "top": self.top,
            "pantry": [{"card": card, "face_up": up} for card, up in zip(self.pantry, self.face_up)],
            "current": current,
            "current_card": None if current is None else self.pantry[current],
            "next_index": self.next_index,
            "effect": (
                {"card": self.effect_card, "by": self.effect_by}
                if self.step in (FLIP, SWAP, SERVANTS_RETURN, ELEVENSES_SCORE)
                else None
            ),
            "discards": list(self.discards),
            "discard_limit": DISCARD_LIMIT,
            "discard_cap": self.options["discard_cap"],
            "discards_made": self.discards_made,
            "discards_left": self.discards_left,
            "shuffles": self.shuffles,
            "stalled_passes": self.stalled_passes,
            "clock_moved_this_pass": self.clock_moved,
            "stall_limit": STALL_LIMIT,
            "start_minutes": self.options["minutes"],
            "trolley_shuffled_in": self.options["trolley_shuffled_in"],
            "won": self.won,
            "score": self.final_score(),
            "events": self.log.since_last_decision(seat),
        }

    def resample_hidden(self, seat: int, rng: random.Random) -> ElevensesForOneState:
        """Redraw the only unknown: the order every future shuffle will lay out."""
        twin = self.clone()
        twin.seed = rng.getrandbits(63)
        twin.scripted_shuffles = []
        return twin

    # ---- the end ------------------------------------------------------------------
    def result(self) -> GameResult:
        points = self.final_score()
        return GameResult(
            scores=(float(points),),
            ranks=(1,),
            details={
                "won": [self.won],
                "band": [rating_band(points).name],
                "minutes_left": [self.minutes],
                "top_card": [self.top],
                "cards_scored": [len(self.trolley) - (0 if self.options["trolley_shuffled_in"] else 1)],
                "ended": [self.ended],
                "shuffles": [self.shuffles],
            },
        )

    # ---- copying and display ------------------------------------------------------
    def clone(self) -> ElevensesForOneState:
        twin = ElevensesForOneState.__new__(ElevensesForOneState)
        twin.game = self.game
        twin.num_players = 1
        twin.options = self.options
        twin._legal_cache = self._legal_cache
        twin.seed = self.seed
        twin.scripted_shuffles = [list(order) for order in self.scripted_shuffles]
        twin.pantry = list(self.pantry)
        twin.face_up = list(self.face_up)
        twin.trolley = list(self.trolley)
        twin.discards = list(self.discards)
        twin.discards_made = self.discards_made
        twin.minutes = self.minutes
        twin.step = self.step
        twin.current = self.current
        twin.next_index = self.next_index
        twin.effect_card = self.effect_card
        twin.effect_by = self.effect_by
        twin.shuffles = self.shuffles
        twin.clock_moved = self.clock_moved
        twin.stalled_passes = self.stalled_passes
        twin.ended = self.ended
        twin.log = self.log.copy()
        return twin

    def render(self) -> str:
        cards = []
        for index, (card, up) in enumerate(zip(self.pantry, self.face_up)):
            text = str(card) if up else f"({card})"
            if index == self.current and self.step == CHOOSE:
                text = f">{text}<"
            cards.append(text)
        lines = [
            f"Minutes: {self.minutes}   Trolley: {self.trolley or '-'}   Discards: {self.discards or '-'}",
            f"Pantry: {' '.join(cards) or '-'}   (face-down cards in brackets)",
            f"Step: {self.step}"
            + (f" ({CARD_NAMES[self.effect_card]} by {self.effect_by})" if self.effect_card else ""),
        ]
        if self.step == OVER:
            points = self.final_score()
            lines.append(f"Over ({self.ended}): {points} points, {rating_band(points).name}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ElevensesForOneState {self.render()!r}>"


def state_from_observation(observation: Mapping[str, Any], seed: int) -> ElevensesForOneState:
    """A state the player cannot tell apart from the one that gave ``observation``.

    Everything on the table is known, so only the future shuffles are
    unknown: they are drawn from ``seed``. Look-ahead bots use this to build
    their own determinized states from what they were shown.
    """
    options = GAME.validate_options(
        {
            "minutes": observation["start_minutes"],
            "trolley_shuffled_in": observation["trolley_shuffled_in"],
            "discard_cap": observation["discard_cap"],
        }
    )
    state = ElevensesForOneState(GAME, options)
    state.seed = seed
    state.pantry = [slot["card"] for slot in observation["pantry"]]
    state.face_up = [bool(slot["face_up"]) for slot in observation["pantry"]]
    state.trolley = list(observation["trolley"])
    state.discards = list(observation["discards"])
    state.discards_made = observation["discards_made"]
    state.minutes = observation["minutes"]
    state.step = observation["step"]
    state.current = -1 if observation["current"] is None else observation["current"]
    state.next_index = observation["next_index"]
    effect = observation["effect"]
    if effect is not None:
        state.effect_card = effect["card"]
        state.effect_by = effect["by"]
    state.shuffles = observation["shuffles"]
    state.stalled_passes = observation["stalled_passes"]
    state.clock_moved = observation["clock_moved_this_pass"]
    if observation["over"]:
        state.ended = ENDED_WON if observation["won"] else ENDED_TIME
    return state


class ElevensesForOne(Game):
    """Elevenses for One: the solitaire of the Tea Trolley."""

    id = "elevenses-for-one"
    name = "Elevenses for One"
    facts = GameFacts(
        min_players=1,
        max_players=1,
        score_order=ScoreOrder.HIGHER_IS_BETTER,
        win_rule=WinRule.GOAL_MET,
        win_condition="every Pantry card scored on the Tea Trolley before eleven o'clock",
    )
    option_specs = (
        OptionSpec(
            "minutes",
            "int",
            START_MINUTES,
            "minutes on the timer at the start (the rulebook: 15, or 14 or fewer for a greater challenge)",
            minimum=1,
            maximum=START_MINUTES,
        ),
        OptionSpec(
            "trolley_shuffled_in",
            "bool",
            False,
            "greater challenge: the Tea Trolley (1) is shuffled into the Pantry and must be scored first",
        ),
        OptionSpec(
            "discard_cap",
            "choice",
            DISCARD_CAP_GAME,
            "'If three cards have already been discarded, this option is unavailable': 'game' = three discards "
            "in a game; 'pile' = three cards lying in the discard pile at once (a card taken back frees a place)",
            choices=DISCARD_CAPS,
        ),
    )

    def detail_values(self, detail: str) -> tuple[DetailValue, ...]:
        """Every rating band, in the rulebook's order, with its points (and why 11 is never awarded)."""
        if detail == "band":
            return tuple(DetailValue(band.name, band.note()) for band in RATING_BANDS)
        return ()

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> ElevensesForOneState:
        state = ElevensesForOneState(self, options)
        state.seed = seed
        if options["trolley_shuffled_in"]:
            cards = list(ALL_CARDS)
        else:
            cards = list(ALL_CARDS[1:])
            state.trolley = [TEA_TROLLEY]
        stream(seed, "deal").shuffle(cards)
        state.pantry = cards
        state.face_up = [True] * len(cards)
        state.log.add({"event": "shuffle", "pantry": list(cards)})
        state._begin_pass()
        return state

    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> ElevensesForOneState:
        """A game from an explicit layout.

        ``deal`` keys: ``pantry`` (card numbers, first card first; required),
        ``face_down`` (cards of the Pantry lying face down), ``trolley``
        (scored cards, bottom first; default ``[1]``, or ``[]`` when 1 is in
        the Pantry or the discards), ``discards``, ``discards_made`` (cards
        discarded so far in the game, default: the cards in ``discards``),
        ``minutes`` (default: the
        option), ``cursor`` (index of the card to decide on at step 3; without
        it the game starts at step 2), ``shuffles`` (orders for the next
        shuffles, each an order of the Pantry's cards at that moment) and
        ``seed`` (for shuffles beyond those).
        """
        validated = self.validate_options(options)
        pantry, discards, trolley, face_down = _deal_cards(deal)
        _check_layout(trolley, pantry, discards, validated)
        discards_made = _checked_discards_made(deal, discards, validated)
        if not pantry:
            raise DealError("the Pantry must hold at least one card")
        if not face_down <= set(pantry):
            raise DealError("face_down cards must be in the Pantry")
        minutes = deal.get("minutes", validated["minutes"])
        if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= START_MINUTES:
            raise DealError(f"minutes must be 1 to {START_MINUTES}, not {minutes!r}")
        state = ElevensesForOneState(self, validated)
        state.seed = int(deal.get("seed", 0))
        state.scripted_shuffles = [[int(card) for card in order] for order in deal.get("shuffles", [])]
        state.pantry = pantry
        state.face_up = [card not in face_down for card in pantry]
        state.trolley = trolley
        state.discards = discards
        state.discards_made = discards_made
        state.minutes = minutes
        cursor = deal.get("cursor")
        if cursor is None:
            state._begin_pass()
        else:
            if not isinstance(cursor, int) or not 0 <= cursor < len(pantry) or not state.face_up[cursor]:
                raise DealError(f"cursor must be the index of a face-up Pantry card, not {cursor!r}")
            state.next_index = cursor
            state._advance()
        return state

    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        """A true bound on the decisions of any match.

        Passes through the Pantry (the stretches between two shuffles) are of
        three kinds: those in which the clock moves (at most ``minutes``: each
        minute lost falls in one pass); those ended by Fine China before any
        minute was lost (each followed by the pass holding Fine China's minute,
        so at most ``minutes``); and those ended at the end of the Pantry with
        the clock unmoved, fewer than ``STALL_LIMIT`` in a row between two
        passes of the first kind. So there are at most
        ``P = 2 * minutes + 1 + (STALL_LIMIT - 1) * (minutes + 1)`` passes. A
        pass offers one step-2 decision and looks at most at the 11 cards laid
        out plus one card returned by Servants; cards moved ahead by paid
        effects (8, scoring 10) add at most ``3 * minutes`` looks in all. Each
        look brings at most two more decisions (an effect's choice, or
        Elevenses' offer and then the scored card's choice).
        """
        minutes = options.get("minutes", START_MINUTES)
        passes = 2 * minutes + 1 + (STALL_LIMIT - 1) * (minutes + 1)
        looks = passes * (MAX_PANTRY + 1) + 3 * minutes
        return passes + 3 * looks


def _deal_cards(deal: Mapping[str, Any]) -> tuple[list[int], list[int], list[int], set[int]]:
    """The deal's Pantry, discards, trolley (default ``[1]`` unless 1 lies elsewhere) and face-down cards."""
    try:
        pantry = [int(card) for card in deal["pantry"]]
    except (KeyError, TypeError, ValueError):
        raise DealError("a deal needs 'pantry': a list of card numbers") from None
    discards = [int(card) for card in deal.get("discards", [])]
    default_trolley = [] if TEA_TROLLEY in pantry or TEA_TROLLEY in discards else [TEA_TROLLEY]
    trolley = [int(card) for card in deal.get("trolley", default_trolley)]
    face_down = {int(card) for card in deal.get("face_down", [])}
    return pantry, discards, trolley, face_down


def _check_layout(trolley: list[int], pantry: list[int], discards: list[int], options: Mapping[str, Any]) -> None:
    """Every card once, the trolley in order (the Tea Trolley on it unless shuffled in), a legal discard pile."""
    if sorted(trolley + pantry + discards) != list(ALL_CARDS):
        raise DealError("trolley, pantry and discards must hold cards 1 to 11, each exactly once")
    if trolley != list(range(1, len(trolley) + 1)) or ELEVENSES in trolley:
        raise DealError(f"the trolley must hold 1, 2, 3, ... in order without 11, not {trolley}")
    if not trolley and not options["trolley_shuffled_in"]:
        raise DealError("the Tea Trolley (1) starts on the trolley unless trolley_shuffled_in is set")
    if len(discards) > DISCARD_LIMIT or NEVER_DISCARDED & set(discards):
        raise DealError(f"at most {DISCARD_LIMIT} discards, never 5 or 10: {discards}")


def _checked_discards_made(deal: Mapping[str, Any], discards: list[int], options: Mapping[str, Any]) -> int:
    """``deal["discards_made"]`` (default: the cards in the pile), within what the discard cap allows."""
    discards_made = deal.get("discards_made", len(discards))
    if isinstance(discards_made, bool) or not isinstance(discards_made, int) or discards_made < len(discards):
        raise DealError(
            f"discards_made must be an integer of at least {len(discards)} (the cards in the pile), not {discards_made!r}"
        )
    if options["discard_cap"] == DISCARD_CAP_GAME and discards_made > DISCARD_LIMIT:
        raise DealError(
            f"with discard_cap=game at most {DISCARD_LIMIT} cards are discarded in a game, not {discards_made}"
        )
    return discards_made


GAME = ElevensesForOne()
