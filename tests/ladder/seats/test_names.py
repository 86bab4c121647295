"""One name rule (issues 34 and 35): the served check refuses every name the ladder's own check refuses.

The served ladder once folded names its own, weaker way and let ``r3x`` beside ``rex``, ``dock`` beside
``clock``, ``5am`` beside ``sam`` and ``maclwalker``, ``m4dwalker``, ``madwalk3r`` beside ``madwalker`` through.
One table of names, asked of both checks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, select

from ladder.seats.names import NAME_PATTERN, check_name, lookalike_of, skeleton, usable_name
from ladder.store import authors as security
from ladder.store.authors import add_author
from ladder.store.served_tables import AuthorRow
from ladder.store.tables import BotRow, BotVersionRow
from service.background.check_job import activate, ownership_problem
from service.db import open_service_database
from service.web import intake

ALICES = ("rex", "clock", "sam", "madwalker", "alicebot")
"""Bots of one author (alice) already on the served ladder."""
LOOKALIKES = [
    ("r3x", "rex"),
    ("REX", "rex"),
    ("R-e_X", "rex"),
    ("dock", "clock"),
    ("c1ock", "clock"),
    ("Clock.", "clock"),
    ("5am", "sam"),
    ("$am", "sam"),
    ("maclwalker", "madwalker"),
    ("m4dwalker", "madwalker"),
    ("madwalk3r", "madwalker"),
    ("MadWalker", "madwalker"),
    ("mad_walker", "madwalker"),
    ("mad.walker", "madwalker"),
    ("rnadwalker", "madwalker"),
    ("a1icebot", "alicebot"),
    ("ALlCEBOT", "alicebot"),
    ("аlicebot", "alicebot"),  # Cyrillic а
]
"""A name another author (bob) tries, and alice's bot it looks like."""
BUILTIN_LOOKALIKES = [
    "Search",
    "THUMB",
    "thumb-90",
    "thumb_10",
    "Thumb2",
    "rand0m",
    "randorn",
    "5earch",
    "ｓｅａｒｃｈ",
    "ѕеаrсһ",
]
"""Names that pass for a built-in bot."""
DIFFERENT = ["rox", "block", "samba", "madrunner", "walker", "bobbot", "steady", "search-bot", "bot2", "thumbs"]
"""Names clearly unlike every bot on the ladder."""


@pytest.fixture
def ladder(tmp_path: Path) -> Iterator[tuple[Session, AuthorRow, AuthorRow]]:
    """A served ladder where alice has the bots :data:`ALICES`; (session, alice, bob)."""
    engine = open_service_database(f"sqlite:///{tmp_path / 'ladder.db'}")
    with Session(engine, expire_on_commit=False) as session:
        add_author(session, "alice")
        add_author(session, "bob")
        alice = session.exec(select(AuthorRow).where(AuthorRow.name == "alice")).one()
        bob = session.exec(select(AuthorRow).where(AuthorRow.name == "bob")).one()
        for number, name in enumerate(ALICES, start=1):
            bot = BotRow(name=name)
            session.add(bot)
            session.commit()
            assert bot.id is not None
            row = BotVersionRow(bot_id=bot.id, version="1", content_hash=f"{number:064x}")
            session.add(row)
            session.commit()
            activate(session, alice, row, cap=10)
            session.commit()
        yield session, alice, bob
    engine.dispose()


@pytest.mark.parametrize(("name", "theirs"), LOOKALIKES)
def test_the_served_check_refuses_what_the_ladders_rule_refuses_and_names_the_bot(
    ladder: tuple[Session, AuthorRow, AuthorRow], name: str, theirs: str
) -> None:
    session, _alice, bob = ladder
    assert lookalike_of(name, ALICES) == theirs, (name, skeleton(name), skeleton(theirs))
    problem = ownership_problem(session, bob, name)
    assert problem is not None, f"{name!r} was accepted beside alice's {theirs!r}"
    assert repr(theirs) in problem or "ends in punctuation" in problem, problem


@pytest.mark.parametrize("name", BUILTIN_LOOKALIKES)
def test_the_served_check_refuses_every_name_that_passes_for_a_built_in(
    ladder: tuple[Session, AuthorRow, AuthorRow], name: str
) -> None:
    session, _alice, bob = ladder
    cli = check_name(name)
    served = ownership_problem(session, bob, name)
    assert cli is not None, name
    assert served is not None and "passes for the built-in bot" in served, (name, served)


@pytest.mark.parametrize("name", DIFFERENT)
def test_clearly_different_names_pass_both_checks(ladder: tuple[Session, AuthorRow, AuthorRow], name: str) -> None:
    session, _alice, bob = ladder
    assert lookalike_of(name, ALICES) is None, (name, skeleton(name))
    assert check_name(name) is None
    assert ownership_problem(session, bob, name) is None


@pytest.mark.parametrize("name", ["mad-walker", "R3X", "c1ock"])
def test_an_author_may_spell_her_own_bot_another_way(ladder: tuple[Session, AuthorRow, AuthorRow], name: str) -> None:
    session, alice, _bob = ladder
    assert ownership_problem(session, alice, name) is None


def test_one_name_pattern_everywhere() -> None:
    assert intake.NAME_PATTERN is NAME_PATTERN and security.NAME_PATTERN is NAME_PATTERN
    assert usable_name("a.b-c_9") and usable_name("x" * 40)
    for bad in ("", "-x", "x" * 41, "my bot", "ｓｅａｒｃｈ", "a/b"):
        assert not usable_name(bad) and check_name(bad) is not None, bad
