"""The search bot ("search"): flat Monte Carlo over sampled shuffles, played out with the rules of thumb."""

from __future__ import annotations

from typing import Any

from bots.base import Bot
from bots.elevenses_for_one.thumb import GAME_ID, thumb_choice


class ElevensesForOneSearchBot(Bot):
    """Flat Monte Carlo look-ahead: every legal action is tried on states rebuilt
    from the observation (future shuffles sampled), then played out with the
    thumb policy; the action with the best mean final score is chosen. All
    actions are compared on the same sampled shuffles (common random numbers)."""

    name = "search"
    author = "the ladder"
    version = "1"
    games = (GAME_ID,)
    rollout_budget = 240
    min_rollouts = 8

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        if len(legal_actions) == 1:
            return legal_actions[0]
        # Imported here so that the thumb bot stays free of the engine.
        from engine.elevenses_for_one import state_from_observation

        count = max(self.min_rollouts, self.rollout_budget // len(legal_actions))
        seeds = [self.rng.getrandbits(63) for _ in range(count)]
        best_action = legal_actions[0]
        best_value = float("-inf")
        for action in legal_actions:
            total = 0.0
            for seed in seeds:
                state = state_from_observation(observation, seed)
                state.apply(action)
                total += _thumb_playout(state)
            value = total / count
            if value > best_value:
                best_value, best_action = value, action
        return best_action


def _thumb_playout(state: Any) -> float:
    """Play ``state`` (a determinized state the bot built itself) to the end with
    the thumb policy; return the final score."""
    while not state.is_over():
        legal = state.legal_actions()
        action = legal[0] if len(legal) == 1 else thumb_choice(_light_observation(state), legal)
        state.apply(action)
    return float(state.final_score())


def _light_observation(state: Any) -> dict[str, Any]:
    """The parts of the observation the thumb policy reads, built cheaply for rollouts."""
    choosing = state.step == "choose"
    return {
        "step": state.step,
        "top": state.top,
        "minutes": state.minutes,
        "pantry": [{"card": card, "face_up": up} for card, up in zip(state.pantry, state.face_up)],
        "current": state.current if choosing else None,
        "current_card": state.pantry[state.current] if choosing else None,
        "next_index": state.next_index,
        "discards": state.discards,
        "discards_left": state.discards_left,
        "discard_cap": state.options["discard_cap"],
    }
