"""The generic bot check (bots/testing.py) over every built-in bot and every Python example bot, in every
game each declares: only legal answers, the same answer on a JSON copy, the same actions from the same seed.

A bot added to ``bots/registry.py`` or ``docs/examples`` is picked up automatically. Search bots are
checked over their first decisions only (each thinks for a while); the others play whole matches.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from bots.base import Bot
from bots.registry import bot_classes
from bots.testing import check_bot, play_checked
from engine import game_ids

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SEARCH_DECISIONS = 5  # a search bot's first decisions: each takes a while


def _games(cls: type[Bot]) -> list[str]:
    return game_ids() if "*" in cls.games else [game for game in cls.games if game in game_ids()]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _example_classes() -> list[type[Bot]]:
    found = []
    for path in sorted(EXAMPLES.glob("*.py")):
        module = _load(path)
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Bot) and value.__module__ == module.__name__
        ]
    return found


BUILT_IN = [
    pytest.param(cls, game, id=f"{name}-{game}")
    for name, classes in bot_classes().items()
    for cls in classes
    for game in _games(cls)
]
EXAMPLE_BOTS = [pytest.param(cls, game, id=f"{cls.name}-{game}") for cls in _example_classes() for game in _games(cls)]


def test_every_example_file_holds_a_bot_and_every_bot_is_checked() -> None:
    assert len(EXAMPLE_BOTS) >= len(list(EXAMPLES.glob("*.py")))
    assert {param.values[0].name for param in BUILT_IN} == set(bot_classes())


@pytest.mark.parametrize(("cls", "game"), BUILT_IN)
def test_built_in_bot_passes_the_generic_check(cls: type[Bot], game: str) -> None:
    check_bot(cls, game, max_decisions=SEARCH_DECISIONS if cls.name == "search" else None)


@pytest.mark.parametrize(("cls", "game"), EXAMPLE_BOTS)
def test_example_bot_passes_the_generic_check(cls: type[Bot], game: str) -> None:
    check_bot(cls, game)


class _Illegal(Bot):
    name = "illegal"

    def act(self, observation, legal_actions):
        return {"type": "no-such-action"}


class _Float(Bot):
    """Answers with a legal action written with other JSON types (a float for an integer)."""

    name = "float"

    def act(self, observation, legal_actions):
        action = dict(legal_actions[-1])
        for key, value in action.items():
            if type(value) is int:
                action[key] = float(value)
        return action


class _Unseeded(Bot):
    """Ignores the seed: its own random generator is seeded from an ever-growing counter."""

    name = "unseeded"
    made = 0

    def start(self, match):
        super().start(match)
        _Unseeded.made += 1
        self.rng.seed(_Unseeded.made)

    def act(self, observation, legal_actions):
        return self.rng.choice(legal_actions)


class _Vandal(Bot):
    """Empties what it is handed before answering: harmless, since it gets copies."""

    name = "vandal"

    def act(self, observation, legal_actions):
        answer = dict(self.rng.choice(legal_actions))
        for action in legal_actions:
            action.clear()
        observation.clear()
        return answer


def test_the_check_catches_an_illegal_answer() -> None:
    with pytest.raises(AssertionError, match="not one of its"):
        check_bot(_Illegal, "elfer-raus")


def test_the_check_catches_a_legal_action_written_with_other_json_types() -> None:
    with pytest.raises(AssertionError, match="not one of its"):
        check_bot(_Float, "bowling-solitaire")


def test_the_check_catches_a_bot_that_ignores_its_seed() -> None:
    with pytest.raises(AssertionError, match="same seeds gave other actions|JSON copy"):
        check_bot(_Unseeded, "elfer-raus")


class _Alternating(Bot):
    """Answers the first legal action, then the last, and so on, counting over all its instances: the
    twin handed the JSON copy of a decision answers otherwise than the bot handed the original."""

    name = "alternating"
    calls = 0

    def act(self, observation, legal_actions):
        _Alternating.calls += 1
        return legal_actions[0] if _Alternating.calls % 2 else legal_actions[-1]


def test_the_check_catches_a_bot_that_answers_otherwise_on_a_json_copy() -> None:
    with pytest.raises(AssertionError, match="on a JSON copy"):
        play_checked(_Alternating, "bowling-solitaire", 1, None, 0)


def test_a_bot_that_changes_what_it_is_handed_harms_nothing() -> None:
    check_bot(_Vandal, "elevenses")
    check_bot(_Vandal, "bowling-solitaire")
