"""The recorded golden playthroughs of every game (``*.txt`` beside this file) and the cases they are played from.

``tests/engine/test_playthroughs.py`` plays each case again on every run and compares it with its file;
``python -m tests.engine.playthroughs --regenerate`` rewrites the files on purpose (docs/playthroughs.md).
"""

from __future__ import annotations

from pathlib import Path

from engine.playthrough import PlaythroughCase, playthrough

HERE = Path(__file__).resolve().parent

_GUESTS_FR = {
    "edition": "fr",
    "special_guests": True,
    "guest_cards": "1-9-10,2-3-4,5-6-7,2-8-9,3-5-7,4-6-8",
    "sugar_bowl": "limited",
}

CASES: tuple[PlaythroughCase, ...] = (
    PlaythroughCase("bowling-solitaire", 1, 1),
    PlaythroughCase("bowling-solitaire", 1, 2),
    PlaythroughCase("elevenses", 2, 1),
    PlaythroughCase("elevenses", 2, 1, {**_GUESTS_FR, "turn_cap": 5}),
    PlaythroughCase("elevenses", 2, 1, {"target": 9, "special_guests": True, "ties": "play_on", "turn_cap": 5}),
    PlaythroughCase("elevenses", 3, 2, {"turn_cap": 5}),
    PlaythroughCase("elevenses-for-one", 1, 1),
    PlaythroughCase("elevenses-for-one", 1, 2, {"minutes": 1}),
    PlaythroughCase("elevenses-for-one", 1, 3, {"trolley_shuffled_in": True}),
    PlaythroughCase("elevenses-for-one", 1, 4, {"discard_cap": "pile"}),
    PlaythroughCase("elfer-raus", 2, 1),
    PlaythroughCase("elfer-raus", 2, 1, {"number_swap": True, "rounds": 1}),
    PlaythroughCase("elfer-raus", 2, 1, {"without_blues": True, "rounds": 1}),
    PlaythroughCase("elfer-raus", 2, 1, {"hold_back": "all", "rounds": 1}),
    PlaythroughCase("elfer-raus", 4, 1, {"rounds": 1}),
    PlaythroughCase("elfer-raus", 6, 2, {"rounds": 1}),
)
"""Each game at its smallest table, every option variant of :meth:`engine.Game.option_variants` once, and a
larger table where the hand size changes. Long option sets are cut short (one round, a turn cap) so that all
of them replay in about a second."""


def recorded_path(case: PlaythroughCase) -> Path:
    return HERE / case.file_name


def regenerate(into: Path = HERE) -> list[Path]:
    """Write every case's playthrough afresh into ``into`` (the recorded files by default); in the recorded
    folder, also delete the ``*.txt`` files no case produces. Returns the files written."""
    into.mkdir(parents=True, exist_ok=True)
    written = []
    for case in CASES:
        path = into / case.file_name
        path.write_text(playthrough(case), encoding="utf-8")
        written.append(path)
    if into.resolve() == HERE:
        for stale in sorted(set(HERE.glob("*.txt")) - set(written)):
            stale.unlink()
    return written
