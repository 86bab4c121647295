"""A match in progress: the chart's steps, the card effects, the clock, the observation and result."""

from __future__ import annotations

import random
from itertools import combinations
from typing import TYPE_CHECKING, Any

from engine.core import Action, DealError, EventLog, GameResult, State
from engine.elevenses_for_one.cards import (
    BY_ELEVENSES,
    BY_SCORE,
    BY_USE,
    CHOOSE,
    DISCARD_CAP_GAME,
    DISCARD_LIMIT,
    ELEVENSES_SCORE,
    ENDED_STALLED,
    ENDED_STUCK,
    ENDED_TIME,
    ENDED_WON,
    FLIP,
    MOVE_TO_FRONT,
    NEVER_DISCARDED,
    OVER,
    SERVANTS_RETURN,
    STALL_LIMIT,
    SWAP,
    minute_cost,
    rating_band,
)
from engine.morning_tea import (  # the card table Elevenses for One shares with Elevenses
    BISCUITS,
    CAKES,
    CARD_NAMES,
    CUPS_AND_SAUCERS,
    ELEVENSES,
    FINE_CHINA,
    MILK,
    SANDWICHES,
    SERVANTS,
    TEA,
)
from engine.rng import stream

if TYPE_CHECKING:
    from engine.elevenses_for_one.game import ElevensesForOne


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
    def begin_pass(self) -> None:
        """Step 2 follows every laying out of the Pantry: offer the move to the front.

        Public because the game starts play here once it has laid out a new Pantry (a new match, a deal
        without a cursor); the state calls it after each shuffle."""
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

    def start_at(self, index: int) -> None:
        """Start play at step 3 with the face-up Pantry card at ``index`` (a deal's ``cursor``, for the game)."""
        self.next_index = index
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
        self.begin_pass()

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
            self.begin_pass()
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
