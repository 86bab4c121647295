"""Bot text made safe for the terminal, the log and the database: one function, every kind of escape."""

from __future__ import annotations

import pytest

from ladder.text import bot_lines, clean_text


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("plain words", "plain words"),
        ("a\x1b[2J\x1b[Hb", "ab"),  # CSI: clear screen, cursor home
        ("a\x1b[38;5;196mred\x1b[0m", "ared"),  # CSI with parameters
        ("x\x1b]0;window title\x07y", "xy"),  # OSC ended by BEL
        ("x\x1b]52;c;ZXZpbA==\x1b\\y", "xy"),  # OSC 52 (clipboard) ended by ST
        ("\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\", "link"),  # OSC 8 hyperlink
        ("a\x9b31mb", "ab"),  # 8-bit CSI
        ("a\x9d0;title\x9cb", "ab"),  # 8-bit OSC and ST
        ("a\x1bPdevice\x1b\\b", "ab"),  # DCS
        ("\x1b(B\x1b=k\x1bc", "k"),  # charset, keypad, reset
        ("cut off \x1b[", "cut off "),
        ("a\x00b\x07c\x08d\x7fe", "abcde"),  # C0 and DEL
        ("abc\u202edcba\u2066", "abcdcba"),  # direction overrides
        ("lone \ud800 half", "lone \ufffd half"),
        ("l1\r\nl2\rl3\tend", "l1\nl2\nl3\tend"),
        ("thé 日本 \U0001f375", "thé 日本 \U0001f375"),
    ],
)
def test_escape_sequences_and_controls_are_removed_and_text_is_kept(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean
    one = clean_text(raw, one_line=True)
    assert "\n" not in one and "\t" not in one
    assert clean_text(clean) == clean  # cleaning twice changes nothing more


def test_each_line_of_a_bots_stderr_is_marked_as_the_bots() -> None:
    marked = bot_lines("2026-01-01 MainProcess[1] ladder.tournament INFO: forged\n\x1b[2Jsecond", "seat 1 bot")
    assert marked.splitlines() == [
        "    [seat 1 bot stderr] | 2026-01-01 MainProcess[1] ladder.tournament INFO: forged",
        "    [seat 1 bot stderr] | second",
    ]
