"""The one rule for bot names: the pattern a name must match, and when two names look alike.

``ladder submit``, ``ladder validate`` and the served ladder's check all ask this module, so a name one of
them refuses the others refuse too (issues 23, 34 and 35: the served check once had a weaker fold of its
own and let ``r3x`` beside ``rex`` and ``maclwalker`` beside ``madwalker`` through).

A reader of a leaderboard should never mistake one bot for another: not a submitted bot for one of the
ladder's own reference players (``random``, ``thumb``, ``search`` and the handicapped ``thumb-25``...), nor
one author's bot for another's. So names are compared by their *skeleton* (:func:`skeleton`):

1. Unicode NFKC normalisation (full-width and compatibility letters become plain ones: ``ｓｅａｒｃｈ`` is
   ``search``);
2. case folding (``Search``, ``THUMB``);
3. a small map of look-alike characters (:data:`CONFUSABLES`: Cyrillic and Greek letters that look Latin,
   and the digits and signs that stand for letters, ``rand0m``, ``r3x``, ``5am``; and, as in Unicode's
   confusables (UTS #39), ``rn`` for ``m``, ``vv`` for ``w`` and ``cl`` for ``d``: ``ranclom``, ``clock``);
4. the separators ``-``, ``_``, ``.`` and spaces dropped (``se.arch``).

Two names with one skeleton look alike (:func:`lookalike_of`). A built-in's name is guarded more widely
(:func:`reserved_because`): a name whose skeleton is a built-in's followed by digits (the handicapped
variants: ``thumb-90``, ``thumb_10``, ``thumb-2-6``) is reserved too, and no submitted name may end in
punctuation (``random.``): such a name reads as a built-in's in prose and in tables. The map is deliberately
small (not the whole Unicode confusables table): names are ASCII letters, digits, ``_``, ``.`` and ``-``
anyway (:data:`NAME_PATTERN`); the fold guards the names a bot claims for itself in other places, and any
future widening of the pattern.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from bots.registry import bot_names
from ladder.text import NAME_PATTERN, NAME_RULE

RESERVED_PREFIXES = ("store", "ep")
"""``store:...`` and ``ep:...`` are bot references (:mod:`ladder.seats.botref`), not names."""
HOW_TO_RENAME = "(set `name = ...` in the class, or pass --name)"

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
    "8": "b",
    "9": "g",
    "@": "a",
    "$": "s",
    "|": "l",
    "!": "l",
    # letters that look alike in most fonts
    "i": "l",
}
"""Look-alike characters and what they pass for (applied after NFKC and case folding)."""
LOOKALIKE_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))
"""Two letters that read as one (applied after :data:`CONFUSABLES`, so ``c1`` and ``ci`` are ``cl`` too)."""
SEPARATORS = re.compile(r"[\s_.\-]+")
ENDS_IN_PUNCTUATION = re.compile(r"[^\w]$|_$")
_TRAILING_NUMBER = re.compile(r"([\s_.\-]*\d+)+$")


def usable_name(name: str) -> bool:
    """Whether ``name`` matches :data:`NAME_PATTERN`."""
    return NAME_PATTERN.match(name) is not None


def skeleton(name: str) -> str:
    """What ``name`` looks like: NFKC, case folded, look-alikes mapped, separators dropped (see the module docstring)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    folded = "".join(CONFUSABLES.get(char, char) for char in folded)
    for pair, single in LOOKALIKE_PAIRS:
        folded = folded.replace(pair, single)
    return SEPARATORS.sub("", folded)


def lookalike_of(name: str, existing_names: Iterable[str]) -> str | None:
    """The first of ``existing_names`` that ``name`` looks like (one skeleton; the name itself included), or ``None``."""
    shape = skeleton(name)
    return next((other for other in existing_names if skeleton(other) == shape), None)


def _digits_skeleton(name: str) -> tuple[str, bool]:
    """The skeleton of ``name`` without a trailing number (digits before folding), and whether it had one."""
    plain = unicodedata.normalize("NFKC", name)
    stripped = _TRAILING_NUMBER.sub("", plain)
    return skeleton(stripped), stripped != plain


def reserved_because(name: str, builtin_names: Iterable[str]) -> str | None:
    """Why ``name`` may not be a submitted bot's (it passes for a built-in, or ends in punctuation), or ``None``."""
    builtins = list(builtin_names)
    if name and ENDS_IN_PUNCTUATION.search(name):
        return f"the name {name!r} ends in punctuation; end it with a letter or digit"
    shape = skeleton(name)
    base, numbered = _digits_skeleton(name)
    builtin = next(
        (
            own
            for own in builtins
            if shape == skeleton(own) or (numbered and base in (skeleton(own), _digits_skeleton(own)[0]))
        ),
        None,
    )
    if builtin is not None:
        return (
            f"the name {name!r} passes for the built-in bot {builtin!r} (names are compared ignoring case, "
            "look-alike characters, separators and a trailing number); choose another"
        )
    return None


def check_name(name: str) -> str | None:
    """Why ``name`` cannot be a registered bot's name, or ``None`` if it can (``ladder validate``, ``submit``, the service)."""
    if not usable_name(name):
        return f"the name {name!r} is not usable: {NAME_RULE} {HOW_TO_RENAME}"
    if name in bot_names():
        return f"the name {name!r} is a built-in bot's; choose another {HOW_TO_RENAME}"
    reserved = reserved_because(name, bot_names())
    if reserved is not None:
        return f"{reserved} {HOW_TO_RENAME}"
    if name.split(":")[0] in RESERVED_PREFIXES and ":" in name:
        return f"the name {name!r} looks like a reference; choose another"
    return None
