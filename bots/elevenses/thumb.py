"""The rule-of-thumb bot ("thumb"): plays its best card, ends the round when ahead, digs, passes junk."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from bots.base import Bot
from bots.elevenses.memory import GAME_ID, Action, Memory, RememberingSeat, card_of
from engine.elevenses.cards import (
    BACK,
    CARD_VALUES,
    ELEVENSES,
    ELEVENSES_MIN_FACE_UP,
    NUMBER,
    TEA_TROLLEY,
    elevenses_of,
)
from engine.elevenses.phases import SHARE_TIES
from engine.elevenses.scoring import placing_cubes

# How much each card is worth playing, beyond its teaspoons (rough, from its special action).
PLAY_BONUS: dict[int, float] = {
    1: 1.6,  # Tea Trolley: a sure cube
    2: 0.4,  # Tea: knocks a card off a rival
    3: 0.4,  # Milk: a look and a chosen swap
    4: 0.3,  # Sugar: sight of one's own face-down cards
    5: 0.2,  # Cups & Saucers: three arrange actions
    6: 0.0,  # Fine China
    7: 0.0,  # Biscuits
    8: -0.3,  # Sandwiches: a rival takes a card of ours
    9: -0.4,  # Cakes: a rival picks a card of ours
    10: -0.1,  # Servants: shows our kitchen
}


class View:
    """The facts the rules of thumb use, read from one observation."""

    def __init__(self, obs: Mapping[str, Any], memory: Memory) -> None:
        self.obs = obs
        self.me: int = obs["seat"]
        self.n: int = obs["num_players"]
        self.kitchen: list[int] = [card_of(c) for c in obs["kitchens"][self.me]["cards"]]
        self.up: list[set[int]] = [{card[0] for card in row["face_up"]} for row in obs["spreads"]]
        self.values: list[int] = list(obs["values"])
        self.memory = memory
        self.wants: set[int] = set()
        if obs.get("my_guest") is not None and obs["guests"][self.me] is None:
            self.wants = set(obs["guest_cards"][obs["my_guest"]])

    def playable(self, card: int, seat: int | None = None) -> bool:
        seat = self.me if seat is None else seat
        number = NUMBER[card]
        if number == ELEVENSES:
            return False
        return number not in self.up[seat]

    def usefulness(self, card: int, seat: int | None = None) -> float:
        """How much a card in the kitchen is worth to ``seat`` (0 for a card it cannot play)."""
        number = NUMBER[card]
        if number == ELEVENSES:
            return 5.0 if (seat is None or seat == self.me) else 0.0
        if not self.playable(card, seat):
            return 0.0
        worth = CARD_VALUES[number] + PLAY_BONUS.get(number, 0.0) + 0.5
        if (seat is None or seat == self.me) and number in self.wants:
            worth += 1.0
        return worth

    def end_gain(self) -> float:
        """My standing if the round ended now: my cubes minus the best rival's."""
        gains = placing_cubes(self.values)
        for s in range(self.n):
            if TEA_TROLLEY in self.up[s]:
                gains[s] += 1
        return round_end_worth(
            self.obs["cubes"], gains, self.me, self.obs["target_cubes"], shares_ties(self.obs["options"])
        )


def shares_ties(options: Mapping[str, Any]) -> bool:
    return options.get("ties", SHARE_TIES) == SHARE_TIES


def round_end_worth(cubes: list[int], gains: list[int], seat: int, target: int, ties_shared: bool) -> float:
    """The rule of thumb's worth, for ``seat``, of a round ending with these cube gains: a game
    won (100, or 100/k for a victory shared by k tied leaders) or lost (-100), else the gain
    over the best rival's."""
    after = [c + g for c, g in zip(cubes, gains)]
    top = max(after)
    if top >= target:
        leaders = after.count(top)
        if leaders == 1 or ties_shared:
            return 100.0 / leaders if after[seat] == top else -100.0
    return gains[seat] - max(g for j, g in enumerate(gains) if j != seat)


class ElevensesThumbBot(RememberingSeat, Bot):
    """Plays its best card, ends the round when ahead, digs with arrange actions, passes junk."""

    name = "thumb"
    author = "the ladder"
    version = "1"
    games = (GAME_ID,)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        self.memory.update(observation)
        if len(legal_actions) == 1:
            return legal_actions[0]
        return thumb_choice(View(observation, self.memory), legal_actions, self.rng)


def thumb_choice(view: View, legal: list[Action], rng: random.Random) -> Action:
    """The rule-of-thumb decision for any kind of decision."""
    decide = _THUMB_BY_KIND.get(view.obs["phase"]["kind"])
    if decide is None:
        return rng.choice(legal)
    return decide(view, legal, rng)


def _thumb_arrange_more(view: View, legal: list[Action], rng: random.Random) -> Action:
    return _thumb_arrange(view, legal, rng, first=False)


def _thumb_tea(view: View, legal: list[Action], rng: random.Random) -> Action:
    """Tea: flip the best face-up card of the richest spread."""
    return max(
        legal, key=lambda a: (view.values[a["seat"]], _face_up_value(view, a["seat"], a["position"]), rng.random())
    )


def _thumb_choose_player(view: View, legal: list[Action], rng: random.Random) -> Action:
    played = view.obs["phase"]["played"]
    seats = [a["seat"] for a in legal]
    if played == 3:  # Milk: look at (and rob) the leader
        best = max(seats, key=lambda s: (view.values[s], view.obs["cubes"][s], rng.random()))
    else:  # Sandwiches and Cakes hand a rival one of our cards: pick the weakest rival
        best = min(seats, key=lambda s: (view.obs["cubes"][s], view.values[s], rng.random()))
    return {"type": "choose_player", "seat": best}


def _thumb_swap(view: View, legal: list[Action], rng: random.Random) -> Action:
    kind = view.obs["phase"]["kind"]
    owner = view.obs["phase"]["target"] if kind == "milk_swap" else view.obs["player"]
    return _best_swap(view, legal, owner)


def _thumb_sandwiches_draw(view: View, legal: list[Action], rng: random.Random) -> Action:
    backs = [a["back"] for a in legal]
    counts = {b: view.obs["kitchens"][view.obs["player"]]["backs"].count(b) for b in backs}
    return {"type": "draw", "back": max(backs, key=lambda b: (counts[b], b))}


def _thumb_sandwiches_keep(view: View, legal: list[Action], rng: random.Random) -> Action:
    drawn = card_of(view.obs["phase"]["drawn"])
    keeps = [a for a in legal if a["type"] == "keep"]
    if not keeps:
        return {"type": "return"}
    give = min(
        keeps,
        key=lambda a: (view.usefulness(card_of(a["give"])), -view.usefulness(card_of(a["give"]), view.obs["player"])),
    )
    if view.usefulness(drawn) > view.usefulness(card_of(give["give"])) + 0.2:
        return give
    return {"type": "return"}


def _thumb_set_aside(view: View, legal: list[Action], rng: random.Random) -> Action:
    receiver = _receiver(view)
    return min(
        legal,
        key=lambda a: (
            view.usefulness(card_of(a["card"])),
            view.usefulness(card_of(a["card"]), receiver),
            rng.random(),
        ),
    )


def _face_up_value(view: View, seat: int, position: int) -> int:
    return CARD_VALUES[position] if position in view.up[seat] else 0


def _receiver(view: View) -> int:
    phase = view.obs["phase"]
    order = phase["order"]
    step = 1 if phase["direction"] == "left" else -1
    return order[(order.index(view.me) + step) % len(order)]


def _best_swap(view: View, legal: list[Action], owner: int) -> Action:
    best: Action = {"type": "no_swap"}
    best_gain = 0.2
    for action in legal:
        if action["type"] != "swap":
            continue
        take, give = card_of(action["take"]), card_of(action["give"])
        gain = (
            view.usefulness(take)
            - view.usefulness(give)
            + 0.3 * (view.usefulness(take, owner) - view.usefulness(give, owner))
        )
        if gain > best_gain:
            best, best_gain = action, gain
    return best


def _thumb_turn(view: View, legal: list[Action], rng: random.Random) -> Action:
    eleven = elevenses_of(view.me)
    plays = [a for a in legal if a["type"] == "play"]
    if any(card_of(a["card"]) == eleven for a in plays) and _ending_pays(view):
        return {"type": "play", "card": [ELEVENSES, view.me]}
    scored = [
        (_play_score(view, card_of(action["card"])), rng.random(), action)
        for action in plays
        if card_of(action["card"]) != eleven
    ]
    if scored:
        return max(scored, key=lambda t: (t[0], t[1]))[2]
    return _thumb_arrange(view, legal, rng, first=True)


def _ending_pays(view: View) -> bool:
    """Whether to play the Elevenses now: the round's end gains, or breaks even with few turns left."""
    gain = view.end_gain()
    turns_left = view.obs["turn_cap"] - view.obs["turn"]
    return gain > 0 or (gain == 0 and turns_left < view.n * 2)


def _play_score(view: View, card: int) -> float:
    """How good playing ``card`` from the kitchen is: teaspoons, special action, guest, the card it uncovers."""
    number = NUMBER[card]
    score = CARD_VALUES[number] + PLAY_BONUS.get(number, 0.0)
    if number in view.wants:
        score += 1.0
    under = view.memory.own_down.get(number)
    if under is not None:
        score += 0.3 * view.usefulness(under) - 0.2
    if number == 2 and not any(p in view.up[s] for s in range(view.n) if s != view.me for p in range(2, 10)):
        score -= 0.4  # nothing to flip
    return score


def _thumb_arrange(view: View, legal: list[Action], rng: random.Random, *, first: bool) -> Action:
    """Dig: put a card we cannot use face down where an unknown (or known good) card lies."""
    arranges = [a for a in legal if a["type"] == "arrange"]
    stop: Action = {"type": "pass"} if first else {"type": "stop"}
    if not arranges:
        return stop
    junk = _junk_to_bury(view)
    if not junk:
        return stop
    junk.sort(key=lambda c: (view.usefulness(c, None), rng.random()))
    best, best_score = _dig_spot(view, arranges, junk[0], rng)
    if best is None or best_score <= 0.0:
        return stop
    return best


def _junk_to_bury(view: View) -> list[int]:
    """The kitchen cards we cannot use; the Elevenses alone when it cannot end the round well."""
    junk = [c for c in view.kitchen if view.usefulness(c) == 0.0]
    eleven = elevenses_of(view.me)
    if not junk and eleven in view.kitchen and len(view.kitchen) == 1:
        # only the Elevenses in hand and no way to end well: hide it and dig (we remember where)
        if len(view.up[view.me]) < ELEVENSES_MIN_FACE_UP or view.end_gain() <= 0:
            junk = [eleven]
    return junk


def _dig_spot(view: View, arranges: list[Action], placed: int, rng: random.Random) -> tuple[Action | None, float]:
    """The arrange action that buries ``placed`` where the best card lies: an unknown one, or a known good one."""
    placed_json = [NUMBER[placed], BACK[placed]]
    best = None
    best_score = -1.0
    for action in arranges:
        if action["card"] != placed_json:
            continue
        known = view.memory.own_down.get(action["position"])
        score = 1.0 + rng.random() * 0.1 if known is None else view.usefulness(known)
        if score > best_score:
            best, best_score = action, score
    return best, best_score


_THUMB_BY_KIND: dict[str, Callable[[View, list[Action], random.Random], Action]] = {
    "turn": _thumb_turn,
    "arrange": _thumb_arrange_more,
    "tea": _thumb_tea,
    "choose_player": _thumb_choose_player,
    "milk_swap": _thumb_swap,
    "cakes_swap": _thumb_swap,
    "sandwiches_draw": _thumb_sandwiches_draw,
    "sandwiches_keep": _thumb_sandwiches_keep,
    "set_aside": _thumb_set_aside,
}
"""The rule of thumb for each kind of decision; any other is taken at random."""
