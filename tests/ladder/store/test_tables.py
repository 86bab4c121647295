"""The shared table helpers: a table fits the terminal without cutting a number; notes break between phrases."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console

from cli.commands.tables import fitted_table, label_column, number_column, phrase_lines, print_table

LONG = "a-bot-whose-name-is-forty-characters-long"
NOTE = (
    "TrueSkill per game and player count (mu 25, sigma 25/3, beta 25/6, tau 0), one free-for-all per match "
    "(per deal in solitaires), draw probability = the pool's observed tie rate; ordered by mu - 3 sigma"
)


def render(width: int) -> str:
    table = fitted_table("Leaderboard")
    number_column(table, "rank")
    label_column(table, "bot")
    label_column(table, "author")
    for column in ("mu", "sigma", "mu-3σ", "matches", "win rate", "mean score", "failed"):
        number_column(table, column)
    table.add_row(
        "1", LONG, "someone with a long name too", "36.12", "1.23", "32.42", "123456", "99.9%", "1234.56", "17"
    )
    table.add_row("2", "short", "me", "25.00", "8.33", "-0.01", "1", "0.0%", "0.00", "-")
    out = io.StringIO()
    print_table(Console(file=out, width=width, color_system=None), table, NOTE)
    return out.getvalue()


def test_numbers_stay_whole_and_names_wrap_at_80_columns() -> None:
    text = render(80)
    assert all(cell_len(line) <= 80 for line in text.splitlines()), text
    for number in ("36.12", "1.23", "32.42", "123456", "99.9%", "1234.56", "8.33", "-0.01"):
        assert number in text, number
    assert "…" not in text
    bot_cells = [line[6:15] for line in text.splitlines() if line.startswith(("   1  ", "      "))]
    assert LONG not in text and "".join(bot_cells).replace(" ", "").startswith(
        LONG
    )  # wrapped onto several lines, whole


def test_a_wide_terminal_keeps_names_on_one_line() -> None:
    assert LONG in render(200)


def test_notes_break_between_phrases() -> None:
    lines = phrase_lines(NOTE, 80)
    assert all(len(line) <= 80 for line in lines)
    assert " ".join(lines).split() == NOTE.split()
    assert lines[0].endswith("tau 0),") and not any(
        line.endswith(("per", "the", "mu", "sigma 25/3,")) for line in lines
    )


def test_two_versions_of_one_bot_get_distinct_labels() -> None:
    from cli.commands.dbview import VersionName, distinct_labels

    names = {
        1: VersionName(1, "dumper", "1", "aa" * 32),
        2: VersionName(2, "dumper", "2", "bb" * 32),
        3: VersionName(3, "random", "1", "cc" * 32),
        4: VersionName(4, "twin", "1", "dd" * 32),
        5: VersionName(5, "twin", "1", "ee" * 32),
    }
    assert distinct_labels(names) == {
        1: "dumper@v1",
        2: "dumper@v2",
        3: "random",
        4: "twin@dddddddd",
        5: "twin@eeeeeeee",
    }
