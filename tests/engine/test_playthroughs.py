"""Golden playthroughs: every recorded match of every game is played again and must come out identical.

A difference means the engine now deals, rules, shows or scores differently from when the file was
recorded. If that change is meant (a rule fixed), regenerate with
``python -m tests.engine.playthroughs --regenerate`` and commit the diff with the change (docs/playthroughs.md).
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import MutableSequence
from pathlib import Path
from typing import Any

import pytest

from engine import all_games
from engine.playthrough import PlaythroughCase, first_difference, playthrough
from tests.engine.playthroughs import CASES, HERE, recorded_path

REGENERATE = "python -m tests.engine.playthroughs --regenerate"
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.file_name.removesuffix(".txt"))
def test_a_fresh_playthrough_matches_the_recorded_one(case: PlaythroughCase) -> None:
    path = recorded_path(case)
    assert path.is_file(), f"no recorded playthrough {path.name}: record it with {REGENERATE}"
    difference = first_difference(path.read_text(encoding="utf-8"), playthrough(case))
    assert difference is None, (
        f"{path.name}: the game no longer plays as recorded ({difference}). If the change is meant, "
        f"regenerate with {REGENERATE} and commit the diff."
    )


def test_every_recorded_file_has_its_case() -> None:
    expected = {case.file_name for case in CASES}
    assert len(expected) == len(CASES), "two cases write the same file"
    stray = sorted(path.name for path in HERE.glob("*.txt") if path.name not in expected)
    assert not stray, f"recorded playthroughs no case plays (delete them, or run {REGENERATE}): {stray}"


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.id)
def test_every_game_and_option_variant_has_a_playthrough(game: Any) -> None:
    cases = [case for case in CASES if case.game_id == game.id]
    assert cases, f"{game.id} has no golden playthrough: add a case to tests/engine/playthroughs/__init__.py"
    for variant in game.option_variants():
        assert any(variant.items() <= dict(case.options).items() for case in cases), (
            f"{game.id}: no golden playthrough plays the option variant {variant}"
        )


def _swap_after_first_shuffle(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the first shuffle of the next deal swap its first card with a different one from its middle (so they
    change hands, or pins and piles, not just places in one hand); returns a call counter."""
    shuffle = random.Random.shuffle
    calls: list[int] = []

    def shuffle_then_swap(self: random.Random, cards: MutableSequence[Any]) -> None:
        shuffle(self, cards)
        calls.append(len(cards))
        if len(calls) == 1:
            middle = len(cards) // 2
            other = next(index for index in range(middle, len(cards)) if cards[index] != cards[0])
            cards[0], cards[other] = cards[other], cards[0]

    monkeypatch.setattr(random.Random, "shuffle", shuffle_then_swap)
    return calls


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.file_name.removesuffix(".txt"))
def test_one_card_changed_in_a_deal_is_reported(case: PlaythroughCase, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison has teeth: two cards of the first deal swapped, and the recorded file no longer matches."""
    recorded = recorded_path(case).read_text(encoding="utf-8")
    calls = _swap_after_first_shuffle(monkeypatch)
    perturbed = playthrough(case)
    assert calls, f"{case.game_id} dealt without shuffling: the perturbation did not apply"
    difference = first_difference(recorded, perturbed)
    assert difference is not None, f"{case.file_name}: two cards of the deal swapped, yet the playthrough is unchanged"
    assert difference.startswith("line "), difference


def test_first_difference_names_the_line_and_column() -> None:
    assert first_difference("a\nb\n", "a\nb\n") is None
    difference = first_difference('head\nobservation: {"hand":[1,2]}\n', 'head\nobservation: {"hand":[1,3]}\n')
    assert difference is not None
    assert difference.startswith("line 2, column 25 differs")
    assert '{"hand":[1,2]}' in difference and '{"hand":[1,3]}' in difference
    assert (
        first_difference("a\nb\n", "a\n")
        == "the new playthrough ends early: 2 lines recorded, 1 now (first extra line 2)"
    )


@pytest.mark.slow  # two interpreters started and every playthrough written: about 3 s on a busy machine
def test_the_regenerate_command_writes_what_is_recorded(tmp_path: Path) -> None:
    """The documented command, run as a user runs it (into a scratch folder, so the recorded files stay)."""
    other = tmp_path / "notes.txt"
    other.write_text("mine", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "tests.engine.playthroughs", "--regenerate", "--into", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for case in CASES:
        assert (tmp_path / case.file_name).read_text(encoding="utf-8") == recorded_path(case).read_text(
            encoding="utf-8"
        )
    assert other.read_text(encoding="utf-8") == "mine", "a folder of the user's lost a file it did not write"
    refused = subprocess.run(
        [sys.executable, "-m", "tests.engine.playthroughs"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert refused.returncode == 2 and "pass --regenerate" in refused.stderr
