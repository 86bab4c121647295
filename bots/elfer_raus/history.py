"""What play revealed this round: cards a seat cannot hold, and the choices each opponent made since its last draw."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bots.elfer_raus.thumb import END, number_of, rows_of
from engine.elfer_raus import CARDS_PER_COLOUR, COLOUR_INDEX, COLOURS, HIGHEST, LOWEST


class Revealed:
    """What play revealed about the other hands this round: cards a seat cannot hold.

    A seat that draws while it may draw only when unable to go (``hold_back="some"``),
    or that is passed with the pack empty, held none of the cards that fitted then.
    Such a card still fits until it is laid, so the seat can only come to hold it
    by drawing it as its matching card; if it keeps that card, what it drew is one
    of the cards that fitted, and they are no longer known to be elsewhere.
    """

    def __init__(self, draws_reveal: bool) -> None:
        self.draws_reveal = draws_reveal
        self.excluded: dict[int, set[int]] = {}

    def update(self, observation: dict[str, Any]) -> None:
        events = self._this_round(observation["events"])
        if not events:
            return
        low, high, opening = self._table_before(observation, events)
        me = observation["seat"]
        last_draw: tuple[int, list[int]] | None = None
        for event in events:
            kind = event["type"]
            seat = event.get("seat")
            if kind in ("play", "open"):
                card = COLOUR_INDEX[event["colour"]] * CARDS_PER_COLOUR + event["number"] - 1
                _lay(card, low, high)
                last_draw = None
            elif seat == me:
                continue
            elif seat is not None and (kind == "pass" or (kind == "draw" and self.draws_reveal)):
                fitting = fitting_cards(low, high, opening)
                self.excluded.setdefault(seat, set()).update(fitting)
                last_draw = (seat, fitting) if kind == "draw" and event["fits"] else None
            elif kind == "end_turn" and last_draw is not None and last_draw[0] == seat:
                self.excluded[seat].difference_update(last_draw[1])  # it kept the card it drew
                last_draw = None

    def _this_round(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The events since the last deal; a new deal forgets what the last round revealed."""
        start = 0
        for index, event in enumerate(events):
            if event["type"] == "deal":
                start = index + 1
                self.excluded = {}
        return events[start:]

    @staticmethod
    def _table_before(
        observation: dict[str, Any], events: list[dict[str, Any]]
    ) -> tuple[list[int], list[int], frozenset[int]]:
        """The rows before ``events``: the rows now, with the cards the events laid taken back."""
        low, high = rows_of(observation)
        for event in reversed(events):
            if event["type"] in ("play", "open"):
                colour, number = COLOUR_INDEX[event["colour"]], event["number"]
                if low[colour] == high[colour] == number:
                    low[colour] = high[colour] = 0
                elif number == low[colour]:
                    low[colour] += 1
                elif number == high[colour]:
                    high[colour] -= 1
        return low, high, frozenset(observation["opening_numbers"])


def _lay(card: int, low: list[int], high: list[int]) -> None:
    colour, number = card // CARDS_PER_COLOUR, number_of(card)
    if low[colour] == 0:
        low[colour] = high[colour] = number
    elif number < low[colour]:
        low[colour] = number
    else:
        high[colour] = number


def fitting_cards(low: list[int], high: list[int], opening: Iterable[int]) -> list[int]:
    fitting: list[int] = []
    for colour in range(len(COLOURS)):
        base = colour * CARDS_PER_COLOUR - 1
        if low[colour] == 0:
            fitting.extend(base + number for number in opening)
        else:
            if low[colour] > LOWEST:
                fitting.append(base + low[colour] - 1)
            if high[colour] < HIGHEST:
                fitting.append(base + high[colour] + 1)
    return fitting


@dataclass(frozen=True)
class Decision:
    """One choice an opponent made this round, with what the table showed then.

    Made after that seat's last draw of the round, so its hand then was its hand
    now plus the cards it has laid since (``laid_from_here``, this card included):
    in a sampled world the rules of thumb can be asked what they would have done.
    """

    seat: int
    low: tuple[int, ...]
    high: tuple[int, ...]
    pending: int  # the matching card it had just drawn and was deciding on, -1 if none
    played: bool  # it had already laid a card this turn (so it could end the turn)
    can_draw: bool  # hold_back="all", nothing laid yet and cards in the pack
    move: int  # the card it laid, or END
    laid_from_here: frozenset[int]


@dataclass
class _TurnState:
    """The table and the turn while :class:`History` replays a round's events."""

    low: list[int]
    high: list[int]
    pack: int
    seat: int | None = None
    played: bool = False
    pending_unknown: bool = False  # its draw stopped on a matching card we did not see


class History:
    """The events of the current round, turned into the opponents' checkable decisions.

    The engine shows a seat only the events since its last decision; this keeps
    the whole round (a ``deal`` event starts a new one).
    """

    def __init__(self, may_draw_instead: bool, number_swap: bool) -> None:
        self.may_draw_instead = may_draw_instead
        self.number_swap = number_swap
        self.events: list[dict[str, Any]] = []
        self.new_round = False

    def update(self, observation: dict[str, Any]) -> None:
        self.new_round = False
        for event in observation["events"]:
            if event["type"] == "deal":
                self.events = []
                self.new_round = True
            self.events.append(event)

    def decisions(self, me: int) -> list[Decision]:
        """The other seats' choices this round that the rules of thumb can be checked against."""
        if not self.events or self.events[0]["type"] != "deal":
            return []
        deal = self.events[0]
        turn = _TurnState([0, 0, 0, 0], [0, 0, 0, 0], deal["pack_size"])
        for colour_name, (row_low, row_high) in (deal.get("rows") or {}).items():
            turn.low[COLOUR_INDEX[colour_name]], turn.high[COLOUR_INDEX[colour_name]] = row_low, row_high
        found, last_draw, laid = self._replay(turn, me)
        checkable: list[Decision] = []
        for index, decision in found:
            if index <= last_draw.get(decision.seat, 0):
                continue
            later = frozenset(card for at, seat, card in laid if seat == decision.seat and at >= index)
            checkable.append(_replace_laid(decision, later))
        return checkable

    def _replay(
        self, turn: _TurnState, me: int
    ) -> tuple[list[tuple[int, Decision]], dict[int, int], list[tuple[int, int, int]]]:
        """Replay the round's events: the others' decisions (with their event index), each seat's last
        draw (event index) and every card laid (event index, seat, card)."""
        found: list[tuple[int, Decision]] = []
        last_draw: dict[int, int] = {}
        laid: list[tuple[int, int, int]] = []
        for index, event in enumerate(self.events[1:], start=1):
            seat: int = event.get("seat", -1)
            if seat != turn.seat:
                turn.seat, turn.played, turn.pending_unknown = seat, False, False
            automatic = index == 1 and event["type"] == "open" and not self.number_swap
            decision = self._step(event, turn, automatic)
            if event["type"] == "draw":
                last_draw[seat] = index
            elif event["type"] in ("play", "open"):
                laid.append((index, seat, _event_card(event)))
            if decision is not None and seat != me:
                found.append((index, decision))
        return found, last_draw, laid

    def _step(self, event: dict[str, Any], turn: _TurnState, automatic: bool) -> Decision | None:
        """Apply ``event`` to ``turn``; the decision it records, if it is one we can check."""
        kind = event["type"]
        seat = event.get("seat", -1)
        decision: Decision | None = None
        if kind in ("play", "open"):
            card = _event_card(event)
            if not automatic:
                pending = card if turn.pending_unknown else -1
                decision = Decision(
                    seat,
                    tuple(turn.low),
                    tuple(turn.high),
                    pending,
                    turn.played,
                    self._can_draw(turn),
                    card,
                    frozenset(),
                )
            _lay(card, turn.low, turn.high)
            turn.played, turn.pending_unknown = True, False
        elif kind == "end_turn":
            if not turn.pending_unknown:  # keeping an unseen drawn card: nothing to check
                decision = Decision(seat, tuple(turn.low), tuple(turn.high), -1, turn.played, False, END, frozenset())
            turn.seat = None
        elif kind == "draw":
            turn.pack -= event["count"] if "count" in event else len(event["cards"])
            if event["fits"]:
                turn.pending_unknown = True
            else:
                turn.seat = None
        return decision

    def _can_draw(self, turn: _TurnState) -> bool:
        return self.may_draw_instead and not turn.played and not turn.pending_unknown and turn.pack > 0


def _event_card(event: dict[str, Any]) -> int:
    return COLOUR_INDEX[event["colour"]] * CARDS_PER_COLOUR + event["number"] - 1


def _replace_laid(decision: Decision, laid: frozenset[int]) -> Decision:
    return Decision(
        decision.seat,
        decision.low,
        decision.high,
        decision.pending,
        decision.played,
        decision.can_draw,
        decision.move,
        laid,
    )
