"""Who may enter what: a bot's name belongs to its first author, and the active versions of each bot are capped."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session, select

from ladder.store.authors import add_author
from ladder.store.served_bots import Action, set_bot_state
from ladder.store.served_tables import AuthorRow, Role, ServedVersionRow, VersionState
from ladder.store.tables import BotRow, BotVersionRow
from service.background.check_job import activate, ownership_problem
from service.db import open_service_database


def version(session: Session, bot: BotRow, number: int) -> BotVersionRow:
    assert bot.id is not None
    row = BotVersionRow(bot_id=bot.id, version=str(number), content_hash=f"{number:064x}")
    session.add(row)
    session.commit()
    return row


def states(session: Session) -> dict[str, str]:
    return {
        session.get(BotVersionRow, v.bot_version_id).version: v.state  # type: ignore[union-attr]
        for v in session.exec(select(ServedVersionRow)).all()
    }


def test_versions_past_the_cap_retire_oldest_first_and_the_name_stays_its_authors(tmp_path: Path) -> None:
    engine = open_service_database(f"sqlite:///{tmp_path / 'ladder.db'}")
    with Session(engine, expire_on_commit=False) as session:
        add_author(session, "alice")
        add_author(session, "bob")
        add_author(session, "op", Role.OPERATOR)
        alice = session.exec(select(AuthorRow).where(AuthorRow.name == "alice")).one()
        bob = session.exec(select(AuthorRow).where(AuthorRow.name == "bob")).one()
        assert ownership_problem(session, alice, "fast") is None
        fast, slow = BotRow(name="fast"), BotRow(name="slow")
        session.add_all([fast, slow])
        session.commit()
        for number, bot in ((1, fast), (2, slow), (3, fast), (4, fast)):  # the cap is per bot: fast's 3rd retires 1
            assert activate(session, alice, version(session, bot, number), cap=2) == (
                [] if number < 4 else [session.exec(select(BotVersionRow).where(BotVersionRow.version == "1")).one().id]
            )
            session.commit()
        assert states(session) == {
            "1": VersionState.SUPERSEDED,
            "2": VersionState.ACTIVE,
            "3": VersionState.ACTIVE,
            "4": VersionState.ACTIVE,
        }
        assert "another author's bot" in (ownership_problem(session, bob, "fast") or "")
        assert ownership_problem(session, alice, "fast") is None
        session.add(BotRow(name="operators-own"))
        session.commit()
        assert "registered on this ladder by its operator" in (ownership_problem(session, alice, "operators-own") or "")
        set_bot_state(session, "slow", Action.RETIRE, "plays illegal moves on purpose")
        assert "retired" in (ownership_problem(session, alice, "slow") or "")
    engine.dispose()


def test_a_paused_bot_takes_no_place_under_the_cap(tmp_path: Path) -> None:
    """The operator pauses one of alice's two bots; her new bot must not push her other, playing bot off the
    schedule (the fresh-user walk found it superseded, leaving her one bot playing)."""
    engine = open_service_database(f"sqlite:///{tmp_path / 'ladder.db'}")
    with Session(engine, expire_on_commit=False) as session:
        add_author(session, "alice")
        alice = session.exec(select(AuthorRow).where(AuthorRow.name == "alice")).one()
        paused, playing, new = BotRow(name="paused"), BotRow(name="playing"), BotRow(name="new")
        session.add_all([paused, playing, new])
        session.commit()
        for number, bot in ((1, paused), (2, playing)):
            assert activate(session, alice, version(session, bot, number), cap=2) == []
            session.commit()
        set_bot_state(session, "paused", Action.PAUSE, "looking into it")
        assert activate(session, alice, version(session, new, 3), cap=2) == []
        session.commit()
        assert states(session) == {"1": VersionState.ACTIVE, "2": VersionState.ACTIVE, "3": VersionState.ACTIVE}
        # resumed, the paused bot plays again; the cap is per bot, so new's versions make way only for its own
        set_bot_state(session, "paused", Action.RESUME)
        assert activate(session, alice, version(session, new, 4), cap=2) == []
        superseded = activate(session, alice, version(session, new, 5), cap=2)
        session.commit()
        assert states(session) == {
            "1": VersionState.ACTIVE,
            "2": VersionState.ACTIVE,
            "3": VersionState.SUPERSEDED,
            "4": VersionState.ACTIVE,
            "5": VersionState.ACTIVE,
        }
        assert len(superseded) == 1
    engine.dispose()


def test_versions_sent_to_a_benched_bot_keep_to_the_cap_within_that_bot(tmp_path: Path) -> None:
    """A benched bot's versions take no place under the cap, but new versions sent to it while it sits out must
    not pile up: resumed, it would put every one of them on the schedule at once. They supersede that bot's own
    older versions past the cap (never the author's playing bot's)."""
    engine = open_service_database(f"sqlite:///{tmp_path / 'ladder.db'}")
    with Session(engine, expire_on_commit=False) as session:
        add_author(session, "alice")
        alice = session.exec(select(AuthorRow).where(AuthorRow.name == "alice")).one()
        benched, playing = BotRow(name="benched"), BotRow(name="playing")
        session.add_all([benched, playing])
        session.commit()
        for number, bot in ((1, benched), (2, playing)):
            assert activate(session, alice, version(session, bot, number), cap=2) == []
            session.commit()
        set_bot_state(session, "benched", Action.BENCH, "crashes at start")
        for number in (3, 4, 5):  # three fixes sent while it sits out
            activate(session, alice, version(session, benched, number), cap=2)
            session.commit()
        assert states(session) == {
            "1": VersionState.SUPERSEDED,
            "2": VersionState.ACTIVE,  # her playing bot keeps its place
            "3": VersionState.SUPERSEDED,
            "4": VersionState.ACTIVE,
            "5": VersionState.ACTIVE,
        }
    engine.dispose()


def test_a_burst_of_versions_of_one_bot_leaves_the_authors_other_bots_playing_and_says_why(tmp_path: Path) -> None:
    """Issue 35: five versions of a new bot took the author's other bots off the schedule, and the skip reason
    said "superseded by its author's newer versions" for a bot that had no newer version."""
    from service.background.scheduler import ServeLoop
    from service.settings import ServeSettings
    from tournaments.coordinator.loop import StopSignals

    engine = open_service_database(f"sqlite:///{tmp_path / 'ladder.db'}")
    with Session(engine, expire_on_commit=False) as session:
        add_author(session, "alice")
        alice = session.exec(select(AuthorRow).where(AuthorRow.name == "alice")).one()
        old, other, burst = BotRow(name="old"), BotRow(name="other"), BotRow(name="burst")
        session.add_all([old, other, burst])
        session.commit()
        keep = [version(session, old, 1), version(session, other, 2)]
        for row in keep:
            activate(session, alice, row, cap=2)
            session.commit()
        sent = [version(session, burst, number) for number in range(3, 9)]
        for row in sent:
            activate(session, alice, row, cap=2)
            session.commit()
    loop = ServeLoop(engine, ServeSettings(), StopSignals())
    playing = loop.schedulable()
    assert {row.id for row in keep} <= set(playing)  # her other bots still play
    assert {row.id for row in sent} & set(playing) == {sent[-2].id, sent[-1].id}  # burst's newest two
    assert loop._why_not(sent[0].id).startswith(
        "superseded by 2 newer versions of burst ("
    )  # and which: the pages' words
    loop.session.close()
    engine.dispose()
