"""Text that came from a bot, made safe to store, log and show on a terminal.

Anything a bot writes (its description, its exception messages, its stderr)
is hostile input. :func:`clean_text` is the one function every such string
goes through before it is stored, logged or printed: it removes terminal
escape sequences (ANSI CSI such as clear-screen or cursor moves, OSC such as
window titles, hyperlinks or clipboard writes, and the other ESC sequences),
C0 and C1 control characters (keeping newline and tab where several lines are
fitting, turning them into spaces where one line is), Unicode direction
overrides (which can make a line read differently from its bytes), and lone
surrogates (which no database, log file or terminal can encode).

:func:`bot_lines` marks each line of a bot's output for the run log, so that
no line a bot writes can pass for one of the ladder's own.
"""

from __future__ import annotations

import re

# ESC [ ... final byte (CSI), ESC ] ... BEL or ST (OSC), ESC P/X/^/_ ... ST (DCS, SOS, PM, APC): whole sequences
_ESCAPE_SEQUENCE = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]?            # CSI: parameters, intermediates, final byte (a cut-off one too)
    | \x9b[0-?]*[ -/]*[@-~]?            # 8-bit CSI
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)  # OSC/DCS/SOS/PM/APC up to BEL or ST
    | \x1b[ -/]*[0-~]?                  # any other ESC sequence (charset, keypad, reset...)
    """,
    re.VERBOSE | re.DOTALL,
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufff9-\ufffb]")
_LINE_BREAKS = re.compile(r"\r\n?|[\x0b\x0c\x85\u2028\u2029]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def clean_text(text: object, one_line: bool = False) -> str:
    """``text`` without escape sequences, control characters, direction overrides or lone surrogates.

    Newlines and tabs are kept (line breaks of any kind become ``\\n``), or
    turned into spaces with ``one_line``.
    """
    value = text if isinstance(text, str) else str(text)
    if value.isascii() and value.isprintable():
        return value  # the usual case: nothing to remove
    value = _SURROGATE.sub("\ufffd", value)
    value = _ESCAPE_SEQUENCE.sub("", value)
    value = _LINE_BREAKS.sub("\n", value)
    value = _CONTROL.sub("", value)
    if one_line:
        value = value.replace("\n", " ").replace("\t", " ")
    return value


def bot_lines(text: str, who: str) -> str:
    """``text`` cleaned, each line prefixed with ``who``'s mark (for a log: a bot cannot forge the ladder's lines)."""
    lines = clean_text(text).splitlines() or [""]
    return "\n".join(f"    [{who} stderr] | {line}" for line in lines)


# ---- names ----------------------------------------------------------------------------------------------
# The one name pattern (ladder.seats.names holds the look-alike rule); here, at the bottom, so that the store
# checks an author's name with it too.

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
"""A bot's (or an author's) name: 1 to 40 ASCII letters, digits, ``_``, ``.`` or ``-``, starting with a letter or digit."""
NAME_RULE = "use 1 to 40 letters, digits, '_', '.' or '-', starting with a letter or digit"
""":data:`NAME_PATTERN` in words, for refusals."""
