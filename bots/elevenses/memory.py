"""What an Elevenses seat remembers beyond its observation (cards it saw go by), kept by both built-in bots."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bots.base import MatchStart
from engine.elevenses.cards import BACK, card_id

GAME_ID = "elevenses"

Action = dict[str, Any]


def card_of(value: list[int]) -> int:
    """The engine's card id of a card as the observation writes it (``[number, set]``)."""
    return card_id(value[0], value[1])


class Memory:
    """What one seat knows beyond its current observation, from the events it witnessed."""

    def __init__(self) -> None:
        self.own_down: dict[int, int] = {}  # position -> card, own face-down cards known
        self.elsewhere: dict[int, tuple[Any, ...]] = {}  # card -> place, other hidden cards known
        self.picks: dict[int, int] = {}  # seat -> face-down cards it picked up this round
        self.last_turn: dict[int, str] = {}  # seat -> "play", "cups" or "dig" (arranged or passed)

    def update(self, obs: Mapping[str, Any]) -> None:
        """Learn from the events ``obs`` shows since the last decision, then let what it shows now win."""
        me = obs["seat"]
        for event in obs["events"]:
            handler = _EVENT_HANDLERS.get(event["type"])
            if handler is not None:
                handler(self, event, me)
        self._reconcile(obs)

    # ---- one handler per kind of event (seat ``me`` is this memory's) ------------------
    def _on_round_start(self, event: Mapping[str, Any], me: int) -> None:
        self.own_down.clear()
        self.elsewhere.clear()
        self.picks.clear()
        self.last_turn.clear()

    def _on_pass(self, event: Mapping[str, Any], me: int) -> None:
        self.last_turn[event["seat"]] = "dig"

    def _on_arrange(self, event: Mapping[str, Any], me: int) -> None:
        self.picks[event["seat"]] = self.picks.get(event["seat"], 0) + 1
        if self.last_turn.get(event["seat"]) != "cups":
            self.last_turn[event["seat"]] = "dig"
        if event["seat"] == me and "placed" in event:
            self.own_down[event["position"]] = card_of(event["placed"])
        else:
            seat = event["seat"]
            picked = self._at(("spread", seat, event["position"]))
            self._forget_kitchen_back(seat, event["placed_back"])
            if picked is not None:
                self.elsewhere[picked] = ("kitchen", seat)

    def _on_play(self, event: Mapping[str, Any], me: int) -> None:
        seat = event["seat"]
        number = event["card"][0]
        if event["picked_up_back"] is not None:
            self.picks[seat] = self.picks.get(seat, 0) + 1
        self.last_turn[seat] = "cups" if number == 5 else "play"
        if seat == me:
            self.own_down.pop(number, None)
        else:
            picked = self._at(("spread", seat, number))
            if picked is not None:
                self.elsewhere[picked] = ("kitchen", seat)
        self.elsewhere.pop(card_of(event["card"]), None)

    def _on_tea(self, event: Mapping[str, Any], me: int) -> None:
        if event["card"] is None:
            return
        card = card_of(event["card"])
        if event["target"] == me:
            self.own_down[event["position"]] = card
        else:
            self.elsewhere[card] = ("spread", event["target"], event["position"])

    def _on_kitchen_shown(self, event: Mapping[str, Any], me: int) -> None:
        """Milk, Cakes or Servants showed a whole kitchen: it is known exactly."""
        seat = event[_KITCHEN_OWNER[event["type"]]]
        if seat != me:
            self._forget_place(("kitchen", seat))
            for c in event["kitchen"]:
                self.elsewhere[card_of(c)] = ("kitchen", seat)

    def _on_reveal_elevenses(self, event: Mapping[str, Any], me: int) -> None:
        if event["seat"] != me:
            self.elsewhere[card_of(event["card"])] = ("kitchen", event["seat"])

    def _on_swap(self, event: Mapping[str, Any], me: int) -> None:
        self._forget_kitchens((event["taker"], event["owner"]), me)
        if "taken" in event:
            taken, given = card_of(event["taken"]), card_of(event["given"])
            if event["taker"] != me:
                self.elsewhere[taken] = ("kitchen", event["taker"])
            if event["owner"] != me:
                self.elsewhere[given] = ("kitchen", event["owner"])

    def _on_passed(self, event: Mapping[str, Any], me: int) -> None:
        for move in event["moves"]:
            self._forget_kitchens((move["from"], move["to"]), me)

    def _on_sandwiches_give(self, event: Mapping[str, Any], me: int) -> None:
        self._forget_kitchens((event["seat"], event["owner"]), me)

    def _on_sandwiches_keep(self, event: Mapping[str, Any], me: int) -> None:
        if event["owner"] == me:
            self.elsewhere[card_of(event["card"])] = ("kitchen", event["seat"])
        elif event["seat"] == me:
            self.elsewhere[card_of(event["given"])] = ("kitchen", event["owner"])
        else:
            self._forget_kitchens((event["seat"], event["owner"]), me)

    def _on_sandwiches_return(self, event: Mapping[str, Any], me: int) -> None:
        if event["seat"] == me:
            self.elsewhere[card_of(event["card"])] = ("kitchen", event["owner"])
        else:
            self._forget_kitchens((event["seat"], event["owner"]), me)

    def _forget_kitchens(self, seats: tuple[int, ...], me: int) -> None:
        """Cards changed hands between these kitchens unseen: forget what they held (never one's own)."""
        for seat in seats:
            if seat != me:
                self._forget_place(("kitchen", seat))

    def _reconcile(self, obs: Mapping[str, Any]) -> None:
        """What the observation shows now wins over memory."""
        me = obs["seat"]
        spread = obs["spreads"][me]
        seen_down = spread.get("face_down_cards")
        for index, back in enumerate(spread["face_down"]):
            if back is None:
                self.own_down.pop(index + 1, None)
            elif seen_down is not None:
                self.own_down[index + 1] = card_of(seen_down[index])
        mine = {card_of(c) for c in obs["kitchens"][me]["cards"]}
        for position, card in list(self.own_down.items()):
            if card in mine:
                del self.own_down[position]
        for card in mine:
            self.elsewhere.pop(card, None)
        for row in obs["spreads"]:
            for value in row["face_up"]:
                self.elsewhere.pop(card_of(value), None)

    def _at(self, place: tuple[Any, ...]) -> int | None:
        for card, where in self.elsewhere.items():
            if where == place:
                return card
        return None

    def _forget_place(self, place: tuple[Any, ...]) -> None:
        for card in [c for c, where in self.elsewhere.items() if where == place]:
            del self.elsewhere[card]

    def _forget_kitchen_back(self, seat: int, back: int) -> None:
        for card in [c for c, where in self.elsewhere.items() if where == ("kitchen", seat) and BACK[c] == back]:
            del self.elsewhere[card]

    def pins(self, obs: Mapping[str, Any]) -> dict[int, tuple[Any, ...]]:
        """Remembered cards as pins for :func:`state_from_observation`."""
        me = obs["seat"]
        pinned: dict[int, tuple[Any, ...]] = {card: ("spread", me, p) for p, card in self.own_down.items()}
        pinned.update(self.elsewhere)
        return pinned


_KITCHEN_OWNER: dict[str, str] = {"milk_look": "target", "cakes_look": "owner", "servants": "seat"}
"""The field naming the seat whose whole kitchen an event shows."""

_EVENT_HANDLERS: dict[str, Callable[[Memory, Mapping[str, Any], int], None]] = {
    "round_start": Memory._on_round_start,
    "pass": Memory._on_pass,
    "arrange": Memory._on_arrange,
    "play": Memory._on_play,
    "tea": Memory._on_tea,
    "milk_look": Memory._on_kitchen_shown,
    "cakes_look": Memory._on_kitchen_shown,
    "servants": Memory._on_kitchen_shown,
    "reveal_elevenses": Memory._on_reveal_elevenses,
    "swap": Memory._on_swap,
    "passed": Memory._on_passed,
    "sandwiches_give": Memory._on_sandwiches_give,
    "sandwiches_keep": Memory._on_sandwiches_keep,
    "sandwiches_return": Memory._on_sandwiches_return,
}
"""What :meth:`Memory.update` does with each kind of event; the other kinds teach it nothing."""


class RememberingSeat:
    """Mixin for a bot that keeps a :class:`Memory` of what its seat witnessed, fresh each match."""

    memory: Memory

    def __init__(self) -> None:
        super().__init__()
        self.memory = Memory()

    def start(self, match: MatchStart) -> None:
        super().start(match)  # type: ignore[misc]
        self.memory = Memory()
