"""``--reference search``: the built-in search bot's own value of every legal action at a decision.

The search bot is rebuilt in the seat's place: started with a seed drawn from the analysis's seed, shown every
observation the seat had seen up to the decision (its memory of revealed cards and of the rivals' choices is
then what it would have been), and asked for its values of *every* legal action (where it would search only a
few candidates) with ``samples`` of its own worlds. The values are in the bot's own utility (Elfer raus and
Elevenses: its rollouts' margin over its rivals to the end of the round; Elevenses for One: the final score;
Bowling Solitaire: its exact expectimax value, the same in every sample), so a loss under this reference is in
that unit. It reads the bots' internals: it lives here, with the analysis, not in the bots.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from bots.base import MatchStart
from engine import get_game
from engine.core import Action, State
from ladder.analysis.model import AnalysisError

if TYPE_CHECKING:
    from ladder.analysis.core import DecisionTask

Values = list[list[float]]


def _history(task: DecisionTask) -> list[dict[str, Any]]:
    """The seat's observations at each of its decisions before ``task.move`` (what an in-process bot was shown)."""
    match = task.match
    state = get_game(match.game).new_state(match.num_players, match.seed, dict(match.options))
    seen: list[dict[str, Any]] = []
    for action in task.match.actions[: task.move - 1]:
        if state.current_player == task.seat:
            seen.append(state.observation(task.seat))
        state.apply(action)
    return seen


def _start(bot: Any, task: DecisionTask, state: State, base: str) -> None:
    seed = random.Random(f"{base}/search-bot").getrandbits(32)
    bot.start(MatchStart(task.match.game, task.seat, state.num_players, dict(state.options), seed))


def _elfer_raus(task: DecisionTask, state: State, legal: Sequence[Action], base: str) -> Values:
    from bots.elfer_raus import ElferRausSearchBot, play_out_round

    bot = ElferRausSearchBot()
    _start(bot, task, state, base)
    observation = state.observation(task.seat)
    for seen in [*_history(task), observation]:
        bot.revealed.update(seen)
        bot.history.update(seen)
        if bot.history.new_round:
            bot.model.new_round()
    bot.determinizations = bot.many_determinizations = task.samples
    bot.candidate_worlds = max(bot.candidate_worlds, task.samples)
    worlds = bot._worlds(observation)
    wild = bot.model.wild()
    totals = observation["totals"]
    last_round = observation["round"] >= observation["rounds"]
    values: Values = [[] for _ in legal]
    for world in worlds:
        rounds_done = len(world.round_points)
        luck = bot.rng.getrandbits(32)
        for index, action in enumerate(legal):
            trial = world.clone()
            trial.apply(action)
            points = play_out_round(trial, rounds_done, wild, random.Random(luck))
            values[index].append(bot._rate(task.seat, totals, points, last_round))
    return values


def _elevenses(task: DecisionTask, state: State, legal: Sequence[Action], base: str) -> Values:
    from bots.elevenses import ElevensesSearchBot, rollout_value
    from engine.elevenses import GAME, state_from_observation
    from engine.elevenses.cards import elevenses_of

    bot = ElevensesSearchBot()
    _start(bot, task, state, base)
    observation = state.observation(task.seat)
    for seen in [*_history(task), observation]:
        bot.memory.update(seen)
    pins = bot.memory.pins(observation)
    holds = bot._elevenses_in_hand_chances(observation, pins)
    values: Values = [[] for _ in legal]
    for _ in range(task.samples):
        world_pins = dict(pins)
        for rival, chance in holds.items():
            world_pins[elevenses_of(rival)] = bot._elevenses_place(observation, rival, chance)
        world = state_from_observation(GAME, observation, bot.rng, world_pins, record_events=False)
        if bot.junk_model:
            bot._junk_kitchens(world, observation, world_pins)
        luck = bot.rng.getrandbits(32)
        for index, action in enumerate(legal):
            trial = world.clone()
            trial.apply(action)
            values[index].append(rollout_value(trial, task.seat, world.round, random.Random(luck), bot.utility))
    return values


def _elevenses_for_one(task: DecisionTask, state: State, legal: Sequence[Action], base: str) -> Values:
    from engine.elevenses_for_one import state_from_observation
    from ladder.analysis.worlds import rollout_for

    roll = rollout_for(task.match.game)
    observation = state.observation(task.seat)
    rng = random.Random(f"{base}/search")
    seeds = [rng.getrandbits(63) for _ in range(task.samples)]
    values: Values = [[] for _ in legal]
    for seed in seeds:  # the search bot's own look-ahead: shuffles from a seed, played out by thumb
        for index, action in enumerate(legal):
            trial = state_from_observation(observation, seed)
            trial.apply(action)
            roll(trial, random.Random(seed))
            values[index].append(float(trial.result().scores[0]))
    return values


def _bowling(task: DecisionTask, state: State, legal: Sequence[Action], base: str) -> Values:
    from bots.bowling_solitaire import BowlingSearchBot, pile_code, pool_code
    from engine.bowling_solitaire import DECK, PIN_INDEX

    bot = BowlingSearchBot()
    _start(bot, task, state, base)
    observation = state.observation(task.seat)
    model = bot._model_for(observation)
    standing = 0
    for name in observation["pins"]:
        standing |= 1 << PIN_INDEX[name]
    piles = [pile_code(top, size) for top, size in zip(observation["ball_cards"], observation["pile_sizes"])]
    unseen = [DECK.count(card) for card in range(10)]
    for card in list(observation["pins"].values()) + observation["out_of_play"]:
        unseen[card] -= 1
    for card in observation["ball_cards"]:
        if card is not None:
            unseen[card] -= 1
    exact = model.action_values(observation["ball"], standing, piles, pool_code(unseen), list(legal))
    return [[value] * task.samples for value in exact]  # an expectation, not a sample: no spread


SEARCH_VALUES: dict[str, Callable[[DecisionTask, State, Sequence[Action], str], Values]] = {
    "elfer-raus": _elfer_raus,
    "elevenses": _elevenses,
    "elevenses-for-one": _elevenses_for_one,
    "bowling-solitaire": _bowling,
}


def search_values(task: DecisionTask, state: State, legal: Sequence[Action], base: str) -> Values:
    """Per legal action, the search bot's value in each of its ``task.samples`` worlds (the same worlds and luck
    for every action)."""
    adapter = SEARCH_VALUES.get(task.match.game)
    if adapter is None:
        raise AnalysisError(f"{task.match.game} has no built-in search bot to ask; use --reference thumb")
    return adapter(task, state, legal, base)
