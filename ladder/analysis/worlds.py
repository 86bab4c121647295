"""The two game-specific pieces of an analysis: a world drawn from what a seat saw, and a fast thumb rollout.

A *world* is a full state the seat could not tell apart from the real one, built from the seat's observation
alone (never from the match's hidden cards or its seed): the engine's own determinization where it has one
that reads only the observation (Elevenses, Elfer raus, Elevenses for One), a canonical redraw where the
engine's redraw starts from the true arrangement (Bowling Solitaire: the face-down ball cards are sorted before
they are shuffled, so the true order cannot leak through the draw). A game the ladder does not know here
falls back on :meth:`engine.core.State.resample_hidden`.

The rollout plays a world to the end of the match with the game's ``thumb`` policy at every seat, reading
the state directly where the built-in bots offer such a policy (the fast path of their own searches).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from bots.base import Bot, MatchStart
from bots.registry import UnknownBotError, get_bot_class
from engine import get_game
from engine.core import Action, State

WorldMaker = Callable[[State, int, random.Random], State]
"""``(state at the decision, seat, rng) -> world``: reads only ``state.observation(seat)`` (and the options)."""

Rollout = Callable[[State, random.Random], None]
"""Plays a world to the end of the match in place (``rng``: the luck shared by every action of a sample)."""


def _elevenses_world(state: State, seat: int, rng: random.Random) -> State:
    from engine.elevenses import GAME

    return GAME.sample_hidden(state.observation(seat), rng)


def _elfer_raus_world(state: State, seat: int, rng: random.Random) -> State:
    from engine.elfer_raus import state_from_observation

    return state_from_observation(state.observation(seat), state.options, rng)


def _elevenses_for_one_world(state: State, seat: int, rng: random.Random) -> State:
    from engine.elevenses_for_one import state_from_observation

    return state_from_observation(state.observation(seat), rng.getrandbits(63))


def _bowling_world(state: State, seat: int, rng: random.Random) -> State:
    """The face-down ball cards redrawn among themselves (sorted first: their true order never shows through),
    and every rack to come redrawn from a fresh seed."""
    twin: Any = state.clone()  # a BowlingSolitaireState: its piles and seed are its own
    face_down = sorted(card for pile in twin.piles for card in pile[:-1])
    rng.shuffle(face_down)
    for pile in twin.piles:
        if len(pile) > 1:
            hidden = len(pile) - 1
            pile[:hidden] = face_down[:hidden]
            del face_down[:hidden]
    twin._seed = rng.getrandbits(63)
    twin._explicit_racks = []
    return twin


def _engine_world(state: State, seat: int, rng: random.Random) -> State:
    return state.resample_hidden(seat, rng)


WORLD_MAKERS: dict[str, WorldMaker] = {
    "elevenses": _elevenses_world,
    "elfer-raus": _elfer_raus_world,
    "elevenses-for-one": _elevenses_for_one_world,
    "bowling-solitaire": _bowling_world,
}


def world_maker(game_id: str) -> WorldMaker:
    return WORLD_MAKERS.get(game_id, _engine_world)


# ---- rollouts --------------------------------------------------------------------------------------------


def _elevenses_rollout(state: State, rng: random.Random) -> None:
    from bots.elevenses import rollout_action

    steps = 0
    while not state.is_over() and steps < 20000:
        state.apply(rollout_action(state, rng))  # type: ignore[arg-type]
        steps += 1


def _elfer_raus_rollout(state: State, rng: random.Random) -> None:
    from bots.elfer_raus import play_out_round

    while not state.is_over():
        play_out_round(state, len(state.round_points))  # type: ignore[arg-type, attr-defined]


def elfer_raus_totals(world: State, legal: Sequence[Action]) -> list[list[int]]:
    """The final penalty totals of ``world`` after each of ``legal``, everyone playing by the rules of thumb.

    Only the round in play is played out per action, and only once per position the seat's turn ends in: thumb
    is deterministic and every action sees the same pack, so two actions whose turns end in the same position
    (cards laid in another order) end the same (the usual case when several free cards are laid). The rounds
    after the one in play are dealt from the world's seed and their dealer alone (not from how the round in
    play ended), and thumb never looks at the totals, so they play out the same after every action: they are
    played once, and their points added to every action's.
    """
    from bots.elfer_raus import play_out_round
    from bots.elfer_raus import thumb_state_move as thumb_step
    from engine.elfer_raus import ElferRausState

    assert isinstance(world, ElferRausState)
    seat = world.current
    rounds_done = len(world.round_points)
    totals: list[list[int]] = []
    later: list[int] | None = None
    ends: dict[tuple[object, ...], list[int]] = {}
    for action in legal:
        trial = world.clone()
        trial.apply(action)
        while trial.current == seat and len(trial.round_points) == rounds_done and not trial.over:
            trial.apply(thumb_step(trial))  # the rest of the seat's turn
        position = _position(trial)
        known = ends.get(position)
        if known is not None:
            totals.append(known)
            continue
        play_out_round(trial, rounds_done)
        if later is None:
            after_round = list(trial.totals)
            rest = trial.clone()
            while not rest.is_over():
                play_out_round(rest, len(rest.round_points))
            later = [end - now for end, now in zip(rest.totals, after_round)]
        final = [total + extra for total, extra in zip(trial.totals, later)]
        ends[position] = final
        totals.append(final)
    return totals


def _position(state: Any) -> tuple[object, ...]:
    """Everything the rest of a thumb playout depends on (the pack's order is the same for every action)."""
    return (
        tuple(frozenset(hand) for hand in state.hands),
        len(state.pack),
        tuple(state.low),
        tuple(state.high),
        state.current,
        state.played_this_turn,
        state.drawn_this_turn,
        state.pending_draw,
        tuple(state.totals),
        len(state.round_points),
    )


class _BotRollout:
    """The game's ``thumb`` bot at every seat, asked with observations: for games without a state-reading policy."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.cls: type[Bot] | None
        try:
            self.cls = get_bot_class("thumb", game_id)
        except UnknownBotError:
            self.cls = None  # a game without a thumb bot: random legal moves

    def __call__(self, state: State, rng: random.Random) -> None:
        bots: list[Bot] = []
        for seat in range(state.num_players):
            bot = self.cls() if self.cls is not None else Bot()
            bot.start(MatchStart(self.game_id, seat, state.num_players, dict(state.options), rng.getrandbits(32)))
            bots.append(bot)
        while not state.is_over():
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply(legal[0])
                continue
            mover = state.current_player
            assert mover is not None
            if self.cls is None:
                action: Action = legal[int(rng.random() * len(legal))]
            else:
                observation, offered = state.offer()
                action = bots[mover].act(observation, offered)
            state.apply(action)


def rollout_for(game_id: str) -> Rollout:
    if game_id == "elevenses":
        return _elevenses_rollout
    if game_id == "elfer-raus":
        return _elfer_raus_rollout
    get_game(game_id)  # an unknown game fails here, with the known ids
    return _BotRollout(game_id)
