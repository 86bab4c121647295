"""Tables that fit the terminal (80 columns and up) without cutting a number.

Every command's table is built the same way:

    table = fitted_table("Tournaments")
    label_column(table, "name")        # text that may be shortened by wrapping: bot names, notes
    number_column(table, "done")       # never cut, never wrapped
    ...add rows...
    print_table(console, table, "a method note, wrapped between phrases")

:func:`print_table` sizes the label columns to what the numbers leave free
(long names wrap onto a second line, folded if they are one long word), and
prints the caption below the table wrapped at phrase boundaries (``;`` and
``,``), not mid-phrase. Rich alone shrinks every column alike, numbers
included (``36…``).
"""

from __future__ import annotations

import re

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Column, Table
from rich.text import Text

PADDING = 1  # blank on the right of each column (but the last)
GAP = PADDING + 1  # between two columns: the padding and the box's blank separator
LABEL_MIN = 8  # a label column is never squeezed narrower than this


def fitted_table(title: str | None = None) -> Table:
    """A table in the ladder's compact style: a rule under the header, two spaces between columns, no edges."""
    return Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, PADDING, 0, 0))


def label_column(table: Table, header: str) -> None:
    """A column of text that may wrap (bot names, reasons): it takes the width the numbers leave."""
    table.add_column(header, overflow="fold")


def number_column(table: Table, header: str, left: bool = False) -> None:
    """A column whose values are never cut nor wrapped (numbers, ids, short codes, dates); its header may take
    two lines."""
    table.add_column(header, justify="left" if left else "right")


def _plain(cell: object) -> str:
    return cell.plain if isinstance(cell, Text) else Text.from_markup(str(cell)).plain


def _width(column: Column, header_words: bool = False) -> int:
    """The widest line of the column's cells, and of its header (or of the header's longest word)."""
    lines = [line for cell in column.cells for line in _plain(cell).splitlines()] or [""]
    header = _plain(column.header).split() if header_words else [_plain(column.header)]
    return max(cell_len(line) for line in [*lines, *header])


def fit(table: Table, width: int) -> Table:
    """Size ``table`` for ``width`` columns: fixed columns at their content's width (their headers on two lines
    if that is what it takes), labels sharing the rest (the narrow ones first)."""
    labels = [c for c in table.columns if c.overflow == "fold"]
    fixed = [c for c in table.columns if c.overflow != "fold"]
    gaps = GAP * (len(table.columns) - 1)
    whole = sum(_width(c) for c in [*fixed, *labels]) + gaps <= width
    for column in fixed:
        column.width = _width(column, header_words=not whole)
    room = width - sum(c.width or 0 for c in fixed) - gaps
    waiting = sorted(labels, key=_width)
    while waiting:  # the narrowest labels take what they need; the others share what is left
        share = max(LABEL_MIN, room // len(waiting))
        column = waiting.pop(0)
        column.width = min(share, _width(column))
        room -= column.width
    return table


def phrase_lines(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken after ``;`` or ``,`` or around a parenthesis where
    possible (between words otherwise)."""
    phrases = re.findall(r"\([^)]*\)[,;]?\s*|[^,;(]+[,;]?\s*|\(", text.strip())
    lines: list[str] = []
    current = ""
    for phrase in phrases:
        if cell_len((current + phrase).rstrip()) <= width:
            current += phrase
            continue
        if current:
            lines.append(current.rstrip())
            current = ""
        while cell_len(phrase.rstrip()) > width:  # one phrase longer than a line: break it between words
            cut = phrase.rstrip()[: width + 1].rfind(" ")
            cut = cut if cut > 0 else width
            lines.append(phrase[:cut].rstrip())
            phrase = phrase[cut:].lstrip()
        current = phrase
    if current.strip():
        lines.append(current.rstrip())
    return lines


def print_note(console: Console, text: str, style: str = "dim") -> None:
    """A caption or method note, wrapped between phrases to the console's width."""
    for line in phrase_lines(text, console.width):
        console.print(escape(line), style=style, highlight=False, soft_wrap=True)


def print_table(console: Console, table: Table, caption: str | None = None) -> None:
    """Print ``table`` fitted to the console, then its caption (see :func:`print_note`)."""
    console.print(fit(table, console.width))
    if caption:
        print_note(console, caption)
