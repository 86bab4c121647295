"""The search bot ("search"): samples states consistent with what its seat knows and plays each candidate out."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from bots.base import Bot
from bots.elevenses.memory import GAME_ID, Action, RememberingSeat
from bots.elevenses.thumb import PLAY_BONUS, View, round_end_worth, shares_ties, thumb_choice
from engine.elevenses import GAME, ElevensesState, state_from_observation
from engine.elevenses.cards import (
    BACK,
    CARD_VALUES,
    ELEVENSES,
    ELEVENSES_MIN_FACE_UP,
    NUMBER,
    TEA_TROLLEY,
    VALUE,
    elevenses_of,
)
from engine.elevenses.phases import (
    ARRANGE,
    CAKES_SWAP,
    CHOOSE_PLAYER,
    MILK_SWAP,
    SANDWICHES_KEEP,
    SET_ASIDE,
    TEA_FLIP,
    TURN,
)
from engine.elevenses.scoring import placing_cubes


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
        observation["cubes"], gains, seat, observation["target_cubes"], shares_ties(observation["options"])
    )
