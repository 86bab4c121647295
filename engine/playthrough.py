"""Golden playthroughs: one match of a game written out as text, to be compared on every test run.

As OpenSpiel's ``playthroughs/``: a match is dealt from a seed and played by seeded random choices, and
everything a seat is shown and does is written down (the whole initial and final state, every observation,
the number of legal actions and the action taken, the result). The text is recorded once and kept;
``tests/engine/test_playthroughs.py`` plays each recorded case again and compares, so a change in a deal,
a rule, an observation or the result (another Python version shuffling differently, a refactoring that
was not one) fails the suite. See docs/playthroughs.md.

Pure: this module returns text; reading and writing the recorded files is the tests' business.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core import State
from engine.registry import get_game

FORMAT_VERSION = 1
"""Bumped when the layout of the text changes (every recorded file is then regenerated)."""


@dataclass(frozen=True)
class PlaythroughCase:
    """What a recorded playthrough is played from: the game, its options, the table and the seed.

    The same seed deals the match and drives the random choice of actions (a separate
    ``random.Random(seed)``, whose ``randrange`` is stable across Python versions).
    """

    game_id: str
    num_players: int
    seed: int
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def file_name(self) -> str:
        """A stable file name: game, table size, seed and the options that differ from the defaults."""
        parts = [self.game_id, f"{self.num_players}p", f"seed{self.seed}"]
        parts += [f"{key}={_slug(value)}" for key, value in sorted(self.options.items())]
        return "-".join(parts) + ".txt"


def _slug(value: Any) -> str:
    """An option value fit for a file name; a long text (a guest table) by a short digest instead."""
    text = json.dumps(value) if not isinstance(value, str) else value
    if len(text) > 16:
        return hashlib.blake2b(text.encode(), digest_size=4).hexdigest()
    return "".join(char if char.isalnum() or char in "._" else "_" for char in text)


def _json(value: Any) -> str:
    """Compact JSON in the engine's own key order (the order is part of what is compared)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def _render_lines(state: State) -> Iterator[str]:
    for line in state.render().splitlines():
        yield f"  {line}".rstrip()


def playthrough(case: PlaythroughCase) -> str:
    """The text of one playthrough of ``case``: the same text on every run, every machine, every Python."""
    game = get_game(case.game_id)
    state = game.new_state(case.num_players, case.seed, case.options)
    chooser = random.Random(case.seed)
    lines = [
        f"# Golden playthrough (format {FORMAT_VERSION}); regenerate on purpose only: python -m tests.engine.playthroughs --regenerate",
        f"game: {game.id}",
        f"num_players: {case.num_players}",
        f"seed: {case.seed}",
        f"options: {_json(state.options)}",
        "",
        "initial state:",
        *_render_lines(state),
        *(f"observation of seat {seat}: {_json(state.observation(seat))}" for seat in range(case.num_players)),
    ]
    step = 0
    while not state.is_over():
        seat = state.current_player
        legal = state.legal_actions()
        action = legal[chooser.randrange(len(legal))]
        lines += [
            "",
            f"step {step}: seat {seat} chooses among {len(legal)} legal actions",
            f"observation: {_json(state.observation(seat if seat is not None else 0))}",
            f"action: {_json(action)}",
        ]
        state.apply(action)
        step += 1
    lines += [
        "",
        "final state:",
        *_render_lines(state),
        *(f"observation of seat {seat}: {_json(state.observation(seat))}" for seat in range(case.num_players)),
        f"result: {_json(state.result().to_json())}",
    ]
    return "\n".join(lines) + "\n"


def first_difference(expected: str, actual: str) -> str | None:
    """Where two playthrough texts first differ, in one readable paragraph; ``None`` when they are equal."""
    if expected == actual:
        return None
    old, new = expected.splitlines(), actual.splitlines()
    for number, (was, now) in enumerate(zip(old, new), start=1):
        if was != now:
            column = next((i for i, (a, b) in enumerate(zip(was, now)) if a != b), min(len(was), len(now)))
            return (
                f"line {number}, column {column + 1} differs:\n  recorded: {_clip(was, column)}\n"
                f"  now:      {_clip(now, column)}"
            )
    shorter = "the new playthrough ends early" if len(new) < len(old) else "the new playthrough goes on"
    return f"{shorter}: {len(old)} lines recorded, {len(new)} now (first extra line {min(len(old), len(new)) + 1})"


def _clip(line: str, column: int, width: int = 160) -> str:
    """The part of a long line around ``column``, so the difference is visible in a test failure."""
    start = max(0, column - width // 2)
    end = start + width
    return ("..." if start else "") + line[start:end] + ("..." if end < len(line) else "")
