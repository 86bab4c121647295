"""Names a submitted bot may not take: those that pass for a built-in bot.

A reader of a leaderboard should never mistake a submitted bot for one of the
ladder's own reference players (``random``, ``thumb``, ``search`` and the
handicapped ``thumb-25``...). So a name is compared with the built-in names
by its *skeleton*:

1. Unicode NFKC normalisation (full-width and compatibility letters become
   plain ones: ``ｓｅａｒｃｈ`` is ``search``);
2. case folding (``Search``, ``THUMB``);
3. a small map of look-alike characters (:data:`CONFUSABLES`: Cyrillic and
   Greek letters that look Latin, and the digits and signs that stand for
   letters, ``rand0m``; and, as in Unicode's confusables (UTS #39), ``rn``
   for ``m``, ``vv`` for ``w`` and ``cl`` for ``d``: ``ranclom``);
4. the separators ``-``, ``_``, ``.`` and spaces dropped (``se.arch``).

A name whose skeleton is a built-in's, or a built-in's followed by digits
(the handicapped variants: ``thumb-90``, ``thumb_10``, ``thumb-2-6``), is reserved. Names
may not end in punctuation either (``random.``): such a name reads as a
built-in's in prose and in tables. The map is deliberately small (not the
whole Unicode confusables table): submitted names are ASCII letters, digits,
``_``, ``.`` and ``-`` anyway (``ladder.seats.botstore.NAME_PATTERN``); the fold
guards the names a bot claims for itself in other places, and any future
widening of the pattern.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

CONFUSABLES: dict[str, str] = {
    # Cyrillic letters that look Latin
    "а": "a",
    "в": "b",
    "с": "c",
    "е": "e",
    "һ": "h",
    "і": "i",
    "ј": "j",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "ԛ": "q",
    "ѕ": "s",
    "т": "t",
    "у": "y",
    "х": "x",
    "ԁ": "d",
    "ԝ": "w",
    "ո": "n",
    "ս": "u",
    # Greek letters that look Latin
    "α": "a",
    "β": "b",
    "ε": "e",
    "η": "n",
    "ι": "i",
    "κ": "k",
    "ν": "v",
    "ο": "o",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "μ": "u",
    # digits and signs that stand for letters
    "0": "o",
    "1": "l",
    "3": "e",
    "4": "a",
    "5": "s",
    "7": "t",
    "@": "a",
    "$": "s",
    "|": "l",
    "!": "l",
    # letters that look alike in most fonts
    "i": "l",
}
"""Look-alike characters and what they pass for (applied after NFKC and case folding)."""
SEPARATORS = re.compile(r"[\s_.\-]+")
ENDS_IN_PUNCTUATION = re.compile(r"[^\w]$|_$")


def skeleton(name: str) -> str:
    """What ``name`` looks like: NFKC, case folded, look-alikes mapped, separators dropped (see the module docstring)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    folded = "".join(CONFUSABLES.get(char, char) for char in folded)
    folded = folded.replace("rn", "m").replace("vv", "w").replace("cl", "d")
    return SEPARATORS.sub("", folded)


def _digits_skeleton(name: str) -> tuple[str, bool]:
    """The skeleton of ``name`` without a trailing number (digits before folding), and whether it had one."""
    stripped = re.sub(r"([\s_.\-]*\d+)+$", "", unicodedata.normalize("NFKC", name))
    return skeleton(stripped), stripped != unicodedata.normalize("NFKC", name)


def reserved_because(name: str, builtin_names: Iterable[str]) -> str | None:
    """Why ``name`` may not be a submitted bot's (it passes for a built-in, or ends in punctuation), or ``None``."""
    builtins = list(builtin_names)
    if name and ENDS_IN_PUNCTUATION.search(name):
        return f"the name {name!r} ends in punctuation; end it with a letter or digit"
    shape = skeleton(name)
    base, numbered = _digits_skeleton(name)
    for builtin in builtins:
        own = skeleton(builtin)
        own_base, _ = _digits_skeleton(builtin)
        if shape == own or (numbered and base in (own, own_base)):
            return (
                f"the name {name!r} passes for the built-in bot {builtin!r} (names are compared ignoring case, "
                "look-alike characters, separators and a trailing number); choose another"
            )
    return None
