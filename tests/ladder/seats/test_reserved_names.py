"""Names that pass for a built-in bot are reserved (issue 23): case, look-alikes, separators, a handicap's number."""

from __future__ import annotations

import pytest

from ladder.seats.names import reserved_because, skeleton

BUILTINS = ("random", "search", "thumb", "thumb-25", "thumb-50", "thumb-75")


@pytest.mark.parametrize(
    "name",
    [
        "Search",
        "THUMB",
        "thumb-90",
        "thumb_10",
        "thumb-2-6",
        "Thumb2",
        "rand0m",
        "se.arch",
        "5earch",
        "randorn",
        "ｓｅａｒｃｈ",
        "ѕеаrсһ",
        "THUMB-25",
    ],
)
def test_a_name_that_passes_for_a_built_in_is_reserved(name: str) -> None:
    reason = reserved_because(name, BUILTINS)
    assert reason is not None and "passes for the built-in bot" in reason, (name, reason)


@pytest.mark.parametrize("name", ["random.", "thumb-", "my_bot_", "search!"])
def test_a_name_may_not_end_in_punctuation(name: str) -> None:
    reason = reserved_because(name, BUILTINS)
    assert reason is not None and "ends in punctuation" in reason, (name, reason)


@pytest.mark.parametrize("name", ["steady", "first-legal", "randomized", "search-bot", "thumbs", "my.bot", "bot2"])
def test_other_names_stay_free(name: str) -> None:
    assert reserved_because(name, BUILTINS) is None


def test_the_skeleton_folds_width_case_look_alikes_and_separators() -> None:
    assert skeleton("ＴＨＵ-ｍｂ") == "thumb"
    assert skeleton("Rаndоm") == "random"  # Cyrillic а and о
    assert skeleton("s_e.a-r c h") == "search"
