"""Built-in bots for Elevenses: "thumb" (rules of thumb) and "search" (determinized Monte Carlo).

Both see only their observation and legal actions. Both keep a small memory of what
their seat witnessed (the cards they arranged face down, cards flipped by Tea, cards
shown by Milk, Cakes, Servants...), reset at each deal, since the observation is the
current view plus the events since the last decision.

The search bot samples full states consistent with its observation and memory
(:func:`engine.elevenses.hidden.state_from_observation` with pins), never the true state,
and plays each candidate action out to the end of the round with a fast policy.

Results over 1,000 games per table size (seeds 10000-10999, seats rotated; "win share" counts
a shared win as 1/k; fair share is 1/n), measured before issue 16 changed the defaults, i.e.
with what is now ``sugar_bowl=limited ties=play_on turn_cap=12``:

=========================  =========  =========  =========
hero vs the others         2 players  3 players  4 players
=========================  =========  =========  =========
thumb vs random            100.0%     100.0%     100.0%
search vs thumb            59.8%      40.7%      31.1%
fair share                 50.0%      33.3%      25.0%
=========================  =========  =========  =========

(standard errors about 1.5 points; the search bot spends about 10 ms per decision on average
with two players and 20 ms with four, at most about 0.1 s, on one core.) With the new defaults
(unlimited cubes, shared ties, 24 turns per seat) both bots value a shared victory as 1/k of a
win; the strength tests (tests/bots/test_elevenses_bots.py) pass unchanged. Small samples with
the new defaults (wins count shared ones): ``ladder play elevenses search thumb -n 100 --seed
10000``: search 77 wins, thumb 41; ``ladder play elevenses search thumb thumb thumb -n 80 --seed
10000``: search 34, the three thumbs 16, 27 and 32.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from bots.base import Bot, MatchStart
from engine.elevenses import GAME, ElevensesState, state_from_observation
from engine.elevenses.cards import (
    BACK,
    CARD_VALUES,
    ELEVENSES,
    ELEVENSES_MIN_FACE_UP,
    NUMBER,
    TEA_TROLLEY,
    VALUE,
    card_id,
    elevenses_of,
)
from engine.elevenses.phases import (
    ARRANGE,
    CAKES_SWAP,
    CHOOSE_PLAYER,
    MILK_SWAP,
    SANDWICHES_KEEP,
    SET_ASIDE,
    SHARE_TIES,
    TEA_FLIP,
    TURN,
)
from engine.elevenses.scoring import placing_cubes

GAME_ID = "elevenses"

Action = dict[str, Any]

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


def _card(value: list[int]) -> int:
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
            self.own_down[event["position"]] = _card(event["placed"])
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
        self.elsewhere.pop(_card(event["card"]), None)

    def _on_tea(self, event: Mapping[str, Any], me: int) -> None:
        if event["card"] is None:
            return
        card = _card(event["card"])
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
                self.elsewhere[_card(c)] = ("kitchen", seat)

    def _on_reveal_elevenses(self, event: Mapping[str, Any], me: int) -> None:
        if event["seat"] != me:
            self.elsewhere[_card(event["card"])] = ("kitchen", event["seat"])

    def _on_swap(self, event: Mapping[str, Any], me: int) -> None:
        self._forget_kitchens((event["taker"], event["owner"]), me)
        if "taken" in event:
            taken, given = _card(event["taken"]), _card(event["given"])
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
            self.elsewhere[_card(event["card"])] = ("kitchen", event["seat"])
        elif event["seat"] == me:
            self.elsewhere[_card(event["given"])] = ("kitchen", event["owner"])
        else:
            self._forget_kitchens((event["seat"], event["owner"]), me)

    def _on_sandwiches_return(self, event: Mapping[str, Any], me: int) -> None:
        if event["seat"] == me:
            self.elsewhere[_card(event["card"])] = ("kitchen", event["owner"])
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
                self.own_down[index + 1] = _card(seen_down[index])
        mine = {_card(c) for c in obs["kitchens"][me]["cards"]}
        for position, card in list(self.own_down.items()):
            if card in mine:
                del self.own_down[position]
        for card in mine:
            self.elsewhere.pop(card, None)
        for row in obs["spreads"]:
            for value in row["face_up"]:
                self.elsewhere.pop(_card(value), None)

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


# =====================================================================================
# the rule-of-thumb bot
# =====================================================================================
class View:
    """The facts the rules of thumb use, read from one observation."""

    def __init__(self, obs: Mapping[str, Any], memory: Memory) -> None:
        self.obs = obs
        self.me: int = obs["seat"]
        self.n: int = obs["num_players"]
        self.kitchen: list[int] = [_card(c) for c in obs["kitchens"][self.me]["cards"]]
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
            self.obs["cubes"], gains, self.me, self.obs["target_cubes"], _shares_ties(self.obs["options"])
        )


def _shares_ties(options: Mapping[str, Any]) -> bool:
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


class RememberingSeat:
    """Mixin for a bot that keeps a :class:`Memory` of what its seat witnessed, fresh each match."""

    memory: Memory

    def __init__(self) -> None:
        super().__init__()
        self.memory = Memory()

    def start(self, match: MatchStart) -> None:
        super().start(match)  # type: ignore[misc]
        self.memory = Memory()


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
    drawn = _card(view.obs["phase"]["drawn"])
    keeps = [a for a in legal if a["type"] == "keep"]
    if not keeps:
        return {"type": "return"}
    give = min(
        keeps, key=lambda a: (view.usefulness(_card(a["give"])), -view.usefulness(_card(a["give"]), view.obs["player"]))
    )
    if view.usefulness(drawn) > view.usefulness(_card(give["give"])) + 0.2:
        return give
    return {"type": "return"}


def _thumb_set_aside(view: View, legal: list[Action], rng: random.Random) -> Action:
    receiver = _receiver(view)
    return min(
        legal,
        key=lambda a: (view.usefulness(_card(a["card"])), view.usefulness(_card(a["card"]), receiver), rng.random()),
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
        take, give = _card(action["take"]), _card(action["give"])
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
    if any(_card(a["card"]) == eleven for a in plays) and _ending_pays(view):
        return {"type": "play", "card": [ELEVENSES, view.me]}
    scored = [
        (_play_score(view, _card(action["card"])), rng.random(), action)
        for action in plays
        if _card(action["card"]) != eleven
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


# =====================================================================================
# the search bot
# =====================================================================================
def _state_end_gain(state: ElevensesState, seat: int) -> float:
    """The rule of thumb's worth of ending the round now, read from a sampled state."""
    n = state.num_players
    values = [state.spread_value(j) for j in range(n)]
    gains = placing_cubes(values)
    for j in range(n):
        if state.up[j][TEA_TROLLEY]:
            gains[j] += 1
    return round_end_worth(state.cubes, gains, seat, state.target_cubes, not state.play_on)


def _state_worth(state: ElevensesState, seat: int, card: int) -> float:
    """How much a card is worth to ``seat`` in a sampled state (0 if it cannot be played)."""
    number = NUMBER[card]
    if number == ELEVENSES:
        return 5.0 if BACK[card] == seat else 0.0
    if state.up[seat][number]:
        return 0.0
    return VALUE[card] + PLAY_BONUS[number] + 0.5


def rollout_action(state: ElevensesState, rng: random.Random) -> Action:
    """A quick policy for simulations, reading the sampled state directly and much like the
    rules of thumb: end the round when that gains, else play the best playable card, else dig by
    arranging a card it cannot use; pass junk, rob the leader, spare one's good cards."""
    phase = state.phase
    if phase == TURN or phase == ARRANGE:
        return _rollout_own_move(state, phase, rng)
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    decide = _ROLLOUT_BY_PHASE.get(phase)
    if decide is None:
        return legal[int(rng.random() * len(legal))]
    return decide(state, legal, rng)


def _rollout_own_move(state: ElevensesState, phase: int, rng: random.Random) -> Action:
    """A turn (or a Cups & Saucers arrange): end the round, play the best card, or dig."""
    s = state.actor
    if phase == TURN:
        if elevenses_of(s) in state.kitchen[s] and state.up_count[s] >= ELEVENSES_MIN_FACE_UP:
            gain = _state_end_gain(state, s)
            if gain > 0 or (gain == 0 and state.turn_cap - state.turn < 2 * state.num_players):
                return {"type": "play", "card": [ELEVENSES, s]}
        best = _rollout_best_play(state, s, rng)
        if best >= 0:
            return {"type": "play", "card": [NUMBER[best], BACK[best]]}
    return _rollout_dig(state, s, phase, rng)


def _rollout_best_play(state: ElevensesState, s: int, rng: random.Random) -> int:
    """The kitchen card worth most to play (with a little noise), or -1 when none can be played."""
    up = state.up[s]
    best = -1
    best_score = -9.0
    for c in state.kitchen[s]:
        number = NUMBER[c]
        if number <= 10 and not up[number]:
            score = VALUE[c] + PLAY_BONUS[number] + 0.3 * rng.random()
            if score > best_score:
                best, best_score = c, score
    return best


def _rollout_dig(state: ElevensesState, s: int, phase: int, rng: random.Random) -> Action:
    """Bury a card that cannot be played under a face-down one, or pass (stop, in an arrange)."""
    kitchen = state.kitchen[s]
    up = state.up[s]
    eleven = elevenses_of(s)
    junk = [c for c in kitchen if c != eleven and up[NUMBER[c]]]
    if (
        not junk
        and kitchen == [eleven]
        and (state.up_count[s] < ELEVENSES_MIN_FACE_UP or _state_end_gain(state, s) <= 0)
    ):
        junk = kitchen
    downs = [p for p in range(2, 10) if not up[p]]
    if junk and downs:
        c = junk[int(rng.random() * len(junk))]
        return {"type": "arrange", "card": [NUMBER[c], BACK[c]], "position": downs[int(rng.random() * len(downs))]}
    return {"type": "pass"} if phase == TURN else {"type": "stop"}


def _rollout_tea(state: ElevensesState, legal: list[Action], rng: random.Random) -> Action:
    return max(legal, key=lambda a: (state.spread_value(a["seat"]), CARD_VALUES[a["position"]], rng.random()))


def _rollout_choose_player(state: ElevensesState, legal: list[Action], rng: random.Random) -> Action:
    if state.played == 3:
        return max(legal, key=lambda a: (state.spread_value(a["seat"]), rng.random()))
    return min(legal, key=lambda a: (state.cubes[a["seat"]], state.spread_value(a["seat"]), rng.random()))


def _rollout_swap(state: ElevensesState, legal: list[Action], rng: random.Random) -> Action:
    s = state.actor
    best_action = legal[0]  # no_swap
    best_gain = 0.2
    for action in legal[1:]:
        take, give = action["take"], action["give"]
        gain = _state_worth(state, s, take[1] * 11 + take[0] - 1) - _state_worth(state, s, give[1] * 11 + give[0] - 1)
        if gain > best_gain:
            best_action, best_gain = action, gain
    return best_action


def _rollout_sandwiches_keep(state: ElevensesState, legal: list[Action], rng: random.Random) -> Action:
    s = state.actor
    if len(legal) > 1 and _state_worth(state, s, state.transit) > 0.5:
        return min(legal[1:], key=lambda a: _state_worth(state, s, a["give"][1] * 11 + a["give"][0] - 1))
    return legal[0]


def _rollout_set_aside(state: ElevensesState, legal: list[Action], rng: random.Random) -> Action:
    s = state.actor
    return min(legal, key=lambda a: (_state_worth(state, s, a["card"][1] * 11 + a["card"][0] - 1), rng.random()))


_ROLLOUT_BY_PHASE: dict[int, Callable[[ElevensesState, list[Action], random.Random], Action]] = {
    TEA_FLIP: _rollout_tea,
    CHOOSE_PLAYER: _rollout_choose_player,
    MILK_SWAP: _rollout_swap,
    CAKES_SWAP: _rollout_swap,
    SANDWICHES_KEEP: _rollout_sandwiches_keep,
    SET_ASIDE: _rollout_set_aside,
}
"""The simulation policy for each decision that is not one's own turn; any other is taken at random."""


GAME_END_BONUS = 4.0
"""Worth of winning (or losing) the game in a rollout, in cubes of margin."""


def standing(cubes: list[int], seat: int, over: bool, winners: list[int], utility: str) -> float:
    """How good a cube count is for ``seat``: "margin" (my cubes minus the best rival's) or
    "mean" (minus the rivals' average), plus a bonus or malus when the game is over."""
    rivals = [c for j, c in enumerate(cubes) if j != seat]
    if utility == "mean":
        value = cubes[seat] - sum(rivals) / len(rivals)
    else:
        value = float(cubes[seat] - max(rivals))
    if over:
        value += GAME_END_BONUS / len(winners) if seat in winners else -GAME_END_BONUS
    return value


def rollout_value(
    state: ElevensesState, seat: int, start_round: int, rng: random.Random, utility: str = "margin"
) -> float:
    """Play the sampled world to the end of round ``start_round`` and rate the cubes."""
    steps = 0
    while not state.over and state.round == start_round and steps < 2000:
        state.apply(rollout_action(state, rng))
        steps += 1
    return standing(state.cubes, seat, state.over, state.winners() if state.over else [], utility)


class ElevensesSearchBot(RememberingSeat, Bot):
    """Determinized Monte Carlo search on its own turns, anchored on the rules of thumb.

    At the start of each of its turns it lists candidates: the rule of thumb's choice, every
    card it may play, passing, and two other arrange actions. It then samples
    ``determinizations`` full states from its observation and memory (never from the true
    state; twice as many when it could end the round), with two models of the rivals: a rival
    keeps its Elevenses once found (the chance grows with the cards it picked up; a rival that
    could have ended the round with a gain and did not probably lacks it), and a rival that
    arranged or passed last turn held nothing it could play. Every candidate is played out in
    every sampled state with the same luck to the end of the round by a quick thumb-like
    policy, and rated "my cubes minus the best rival's" (plus or minus 4 if the game ends). The
    rule of thumb's choice stands unless another candidate beats it by ``thumb_prior`` cubes on
    average and by ``confidence`` standard errors of the paired differences (stricter with
    four players, where rollouts are noisier). Other decisions follow the rules of thumb.
    """

    name = "search"
    author = "the ladder"
    version = "1"
    games = (GAME_ID,)

    determinizations = 24
    extra_arranges = 2
    thumb_prior = 0.2
    confidence = 2.0
    # with four players the rollouts are noisier: ask more of a deviation from the rule of thumb
    strict_from_players = 4
    strict_thumb_prior = 0.3
    strict_confidence = 3.0
    utility = "margin"
    junk_model = True

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        self.memory.update(observation)
        if len(legal_actions) == 1:
            return legal_actions[0]
        view = View(observation, self.memory)
        if observation["phase"]["kind"] != "turn":
            return thumb_choice(view, legal_actions, self.rng)
        candidates = self._candidates(view, legal_actions)
        if len(candidates) == 1:
            return candidates[0]
        return self._search(observation, candidates)

    def _candidates(self, view: View, legal: list[Action]) -> list[Action]:
        """The rule of thumb's choice first, every play, passing, and a few arrange actions."""
        thumb = thumb_choice(view, legal, self.rng)
        chosen = [thumb] + [a for a in legal if a["type"] in ("play", "pass") and a != thumb]
        arranges = [a for a in legal if a["type"] == "arrange" and a != thumb]
        self.rng.shuffle(arranges)
        chosen.extend(arranges[: self.extra_arranges])
        return chosen

    def _search(self, observation: dict[str, Any], candidates: list[Action]) -> Action:
        seat = observation["seat"]
        pins = self.memory.pins(observation)
        holds = self._elevenses_in_hand_chances(observation, pins)
        values: list[list[float]] = [[] for _ in candidates]
        samples = self.determinizations
        if any(a["type"] == "play" and a["card"][0] == ELEVENSES for a in candidates):
            samples *= 2  # ending the round or not is the decision that matters most
        for _ in range(samples):
            world_pins = dict(pins)
            for rival, chance in holds.items():
                world_pins[elevenses_of(rival)] = self._elevenses_place(observation, rival, chance)
            world = state_from_observation(GAME, observation, self.rng, world_pins, record_events=False)
            if self.junk_model:
                self._junk_kitchens(world, observation, world_pins)
            luck = self.rng.getrandbits(32)
            for index, action in enumerate(candidates):
                trial = world.clone()
                trial.apply(action)
                # the same luck for every candidate: differences come from the actions
                values[index].append(rollout_value(trial, seat, world.round, random.Random(luck), self.utility))
        return candidates[self._pick(values)]

    def _pick(self, values: list[list[float]]) -> int:
        """The rule of thumb's choice (index 0) unless another candidate beats it clearly:
        by more than ``thumb_prior`` on average and by ``confidence`` standard errors of the
        paired differences (the same sampled worlds and luck for every candidate)."""
        base = values[0]
        count = len(base)
        strict = self.match is not None and self.match.num_players >= self.strict_from_players
        prior = self.strict_thumb_prior if strict else self.thumb_prior
        confidence = self.strict_confidence if strict else self.confidence
        best, best_gain = 0, 0.0
        for index in range(1, len(values)):
            diffs = [v - b for v, b in zip(values[index], base)]
            mean = sum(diffs) / count
            if mean <= prior or mean <= best_gain:
                continue
            spread = (sum((d - mean) ** 2 for d in diffs) / max(1, count - 1)) ** 0.5
            if spread == 0.0 or mean / (spread / count**0.5) >= confidence:
                best, best_gain = index, mean
        return best

    def _elevenses_in_hand_chances(self, observation: dict[str, Any], pins: Mapping[int, Any]) -> dict[int, float]:
        """For each rival whose Elevenses we do not know, the chance it is in its kitchen.

        Uniform sampling would spread it evenly over the kitchen and face-down places of its
        back, but players keep their Elevenses once they find it: the chance grows with every
        card the rival picked up this round. A rival that could have ended the round with a
        gain (four face-up cards, ahead) and did not probably lacks it.
        """
        n = observation["num_players"]
        me = observation["seat"]
        values = observation["values"]
        chances: dict[int, float] = {}
        for rival in range(n):
            if rival == me or elevenses_of(rival) in pins:
                continue
            in_kitchen = observation["kitchens"][rival]["backs"].count(rival)
            face_down = observation["spreads"][rival]["face_down"].count(rival)
            if in_kitchen == 0 or face_down == 0:
                continue  # only one kind of place is possible: leave it to the sampler
            picks = self.memory.picks.get(rival, 0)
            chance = 1.0 - (8.0 / 11.0) * max(0.0, 1.0 - picks / 8.0)
            face_up = len(observation["spreads"][rival]["face_up"])
            if face_up >= ELEVENSES_MIN_FACE_UP and _rival_gain(observation, rival, values) > 0:
                chance = 0.1
            chances[rival] = chance
        return chances

    def _elevenses_place(self, observation: dict[str, Any], rival: int, chance: float) -> tuple[Any, ...]:
        if self.rng.random() < chance:
            return ("kitchen", rival)
        downs = [index + 1 for index, back in enumerate(observation["spreads"][rival]["face_down"]) if back == rival]
        return ("spread", rival, self.rng.choice(downs))

    def _junk_kitchens(self, world: ElevensesState, observation: Mapping[str, Any], pins: Mapping[int, Any]) -> None:
        """A rival that arranged or passed on its last turn had nothing it could play: make
        the cards it kept in its kitchen ones it cannot play, by swapping them with same-back
        cards hidden face down (never a card we know the place of)."""
        me = observation["seat"]
        known = set(pins)
        for rival in range(world.num_players):
            if rival == me or self.memory.last_turn.get(rival) != "dig":
                continue
            up = world.up[rival]
            for card in list(world.kitchen[rival]):
                number = NUMBER[card]
                if card in known or number == ELEVENSES or up[number]:
                    continue
                partners = _unplayable_twins(world, me, up, card, known)
                if not partners:
                    continue
                seat, p = partners[int(self.rng.random() * len(partners))]
                other = world.card_at[seat][p]
                world.card_at[seat][p] = card
                world.kitchen[rival].remove(card)
                world.kitchen[rival].append(other)
                world.kitchen[rival].sort()


def _unplayable_twins(
    world: ElevensesState, me: int, up: list[bool], card: int, known: set[int]
) -> list[tuple[int, int]]:
    """Face-down places (seat, position) holding a card of ``card``'s back that the rival whose face-up
    flags are ``up`` cannot play, and whose place we do not know: where ``card`` may have been instead."""
    return [
        (seat, p)
        for seat in range(world.num_players)
        if seat != me or not world.up[me][4]
        for p in range(2, 10)
        if not world.up[seat][p]
        and BACK[world.card_at[seat][p]] == BACK[card]
        and world.card_at[seat][p] not in known
        and NUMBER[world.card_at[seat][p]] != ELEVENSES
        and up[NUMBER[world.card_at[seat][p]]]
    ]


def _rival_gain(observation: Mapping[str, Any], seat: int, values: list[int]) -> float:
    """The rule of thumb's worth, for ``seat``, of ending the round now (public facts only)."""
    n = observation["num_players"]
    gains = placing_cubes(values)
    for j in range(n):
        if TEA_TROLLEY in {card[0] for card in observation["spreads"][j]["face_up"]}:
            gains[j] += 1
    return round_end_worth(
        observation["cubes"], gains, seat, observation["target_cubes"], _shares_ties(observation["options"])
    )
