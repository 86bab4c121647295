"""Sealed deals and atomic storing in the runner: secret kept, resumed, revealed; a refused write never corrupts.

Toy games in worker processes, a temporary database. The front-door tests
(tests/ladder/sandbox/test_front_door_trust.py) play the same through `ladder run`.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from cli.commands.tournament_list import reveal_secret
from cli.commands.tournament_list import tournaments as list_tournaments
from ladder.errors import UserError
from ladder.matches.deals import DealSecret
from ladder.store.database import open_database
from ladder.store.tables import MatchRow, SeatResultRow, TournamentRow
from tests.ladder.store.legacy import made_before_alembic
from tests.tournaments.test_runner import config, options
from tournaments.coordinator.recorder import Recorder
from tournaments.coordinator.runner import TournamentRun, run_tournament
from tournaments.formats.round_robin import deal_seed

DEAL_ID = re.compile(r"^c(\d+)/([^/]+)/o(\d+)/(\d+)p/d(\d+)$")


def tournaments(db_url: str) -> list[TournamentRow]:
    engine = open_database(db_url)
    with Session(engine) as session:
        rows = list(session.exec(select(TournamentRow).order_by(TournamentRow.id)).all())
    engine.dispose()
    return rows


def stored(db_url: str, tournament_id: int) -> list[tuple[MatchRow, list[SeatResultRow]]]:
    engine = open_database(db_url)
    with Session(engine) as session:
        matches = session.exec(select(MatchRow).where(MatchRow.tournament_id == tournament_id)).all()
        found = [
            (m, list(session.exec(select(SeatResultRow).where(SeatResultRow.match_id == m.id)).all())) for m in matches
        ]
    engine.dispose()
    return found


def assert_dealt_from(secret_hex: str, matches: list[tuple[MatchRow, list[SeatResultRow]]]) -> None:
    secret = bytes.fromhex(secret_hex)
    for match, _ in matches:
        cycle, game, variant, players, deal = DEAL_ID.match(match.deal).groups()  # type: ignore[union-attr]
        assert match.seed == deal_seed(secret, int(cycle), game, int(variant), int(players), int(deal)), match.key


def stop_after_first_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    original = TournamentRun._on_batch  # the first results to arrive (they are written in batches, after)

    def arrive_then_stop(self: TournamentRun, *arrived: Any) -> None:
        original(self, *arrived)
        self.stop.requested = True  # as the first Ctrl-C does

    monkeypatch.setattr(TournamentRun, "_on_batch", arrive_then_stop)


def test_the_secret_stays_sealed_while_stopped_is_reused_on_resume_and_revealed_at_the_end(
    toy, db_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = config()
    with monkeypatch.context() as patch:
        stop_after_first_batch(patch)
        first = run_tournament(cfg, options(db_url))
    assert first.state == "stopped" and 0 < first.played_now < first.scheduled
    assert first.deal_secret is None and len(first.deal_commitment) == 64
    [row] = tournaments(db_url)
    assert row.deal_secret and row.secret_revealed_at is None and row.shown_secret() is None
    assert row.deal_commitment == hashlib.sha256(bytes.fromhex(row.deal_secret)).hexdigest()
    capsys.readouterr()
    list_tournaments(db=db_url, as_json=True)
    list_tournaments(db=db_url)
    shown = capsys.readouterr().out
    assert row.deal_commitment in shown and row.deal_secret not in shown and '"deal_secret": null' in shown
    second = run_tournament(cfg, options(db_url))
    assert second.tournament_id == first.tournament_id and second.state == "complete"
    assert second.played_now == second.scheduled - first.played_now
    [row] = tournaments(db_url)
    assert row.secret_revealed_at is not None and second.deal_secret == row.deal_secret
    assert second.deal_commitment == first.deal_commitment
    assert_dealt_from(row.deal_secret, stored(db_url, row.id))  # both runs dealt from the one secret


def test_a_revealed_secret_never_deals_again(toy, db_url: str) -> None:
    """More to play after the reveal (more cycles here; a new bot version alike): the same tournament goes on,
    dealt from a new secret, and the revealed secret stays published beside it."""
    cfg = config()
    first = run_tournament(cfg, options(db_url))
    again = run_tournament(cfg, options(db_url))  # nothing to play: the same tournament, as it was
    assert (
        again.tournament_id == first.tournament_id and again.played_now == 0 and again.deal_secret == first.deal_secret
    )
    old_matches = {match.key for match, _ in stored(db_url, first.tournament_id)}
    more = run_tournament(config(cycles=2), options(db_url))  # more cycles: the same tournament, a new secret
    assert more.tournament_id == first.tournament_id and 0 < more.played_now == more.scheduled - len(old_matches)
    assert any("dealt from a new secret" in note for note in more.notes)
    (row,) = tournaments(db_url)
    assert (
        row.deal_secret != first.deal_secret and row.secret_revealed_at is not None
    )  # the new one, revealed at its end
    previous = json.loads(row.previous_deals)
    assert [entry["secret"] for entry in previous] == [first.deal_secret]
    assert previous[0]["commitment"] == first.deal_commitment
    matches = stored(db_url, row.id)
    assert_dealt_from(first.deal_secret, [m for m in matches if m[0].key in old_matches])
    assert_dealt_from(row.deal_secret, [m for m in matches if m[0].key not in old_matches])
    with pytest.raises(UserError, match="was revealed"):  # an operator cannot deal again from a public secret
        run_tournament(config(cycles=3), options(db_url, deal_secret=row.deal_secret))


def test_an_operator_reveals_a_stopped_tournament_and_its_file_then_starts_a_new_one(
    toy, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        stop_after_first_batch(patch)
        first = run_tournament(config(), options(db_url))
    engine = open_database(db_url)
    with Session(engine) as session:
        revealed = reveal_secret(session, first.tournament_id)
        assert revealed.shown_secret() == revealed.deal_secret
        with pytest.raises(UserError, match="no tournament #99"):
            reveal_secret(session, 99)
    engine.dispose()
    second = run_tournament(config(), options(db_url))  # the rest, dealt from a new secret
    assert second.tournament_id == first.tournament_id and second.played_now == second.scheduled - first.played_now
    assert second.deal_secret and second.deal_secret != revealed.deal_secret


def test_a_given_secret_deals_a_new_tournament_and_may_not_hijack_an_unfinished_one(
    toy, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        stop_after_first_batch(patch)
        run_tournament(config(), options(db_url))
    with pytest.raises(UserError, match="dealt from another secret"):
        run_tournament(config(), options(db_url, deal_secret="ab" * 32))
    given = run_tournament(config(seed=8), options(db_url, deal_secret="ab" * 32))
    assert given.deal_secret == "ab" * 32
    with pytest.raises(UserError, match="64 hex digits"):
        run_tournament(config(), options(db_url, deal_secret="xyz"))


def test_a_result_the_database_refuses_is_an_error_with_the_reason_and_nothing_half_written(
    toy, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = config()
    probe = TournamentRun(cfg, options(db_url))
    victim = sorted(m.key for m in probe.cycle(0))[3]
    probe.close()
    original = Recorder.seat_values

    def poisoned(self: Recorder, item, match_id: int) -> list[dict]:
        values = original(self, item, match_id)
        if item.match.key == victim and item.record is not None:
            values[-1]["stderr_tail"] = "lone \ud800"  # what a ladder without cleaning would have tried to store
        return values

    with monkeypatch.context() as patch:
        patch.setattr(Recorder, "seat_values", poisoned)
        first = run_tournament(cfg, options(db_url))
    assert first.state == "incomplete" and first.unstored == 1 and first.errors_now == 1
    assert first.deal_secret is None  # a new run would still play the failed match: sealed
    matches = stored(db_url, first.tournament_id)
    assert len(matches) == first.scheduled
    for match, seats in matches:
        assert len(seats) == match.num_players  # never a match without all its seat rows
        if match.key == victim:
            assert (
                match.status == "error" and "could not be stored" in match.error and "UnicodeEncodeError" in match.error
            )
        else:
            assert match.status == "played"
    second = run_tournament(cfg, options(db_url))
    assert second.state == "complete" and second.played_now == 1 and second.tournament_id == first.tournament_id


def test_a_match_stored_without_its_seat_rows_by_an_older_ladder_is_played_again(
    toy, db_url: str, tmp_path: Path
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        stop_after_first_batch(patch)
        first = run_tournament(config(), options(db_url))
    with sqlite3.connect(tmp_path / "ladder.db") as connection:
        match_id, key = connection.execute("select id, key from match order by id limit 1").fetchone()
        connection.execute("delete from seat_result where match_id = ?", (match_id,))
    second = run_tournament(config(), options(db_url))
    assert second.state == "complete" and any("without all their seat rows" in note for note in second.notes)
    assert second.played_now == second.scheduled - first.played_now + 1
    assert all(len(seats) == match.num_players for match, seats in stored(db_url, second.tournament_id))


def test_a_database_of_the_previous_schema_is_upgraded_and_its_public_tournaments_are_not_continued(
    toy, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        stop_after_first_batch(patch)
        first = run_tournament(config(), options(db_url))
    with sqlite3.connect(tmp_path / "ladder.db") as connection:  # as schema version 2 left it
        for column in ("deal_secret", "deal_commitment", "secret_revealed_at", "previous_deals"):
            connection.execute(f"alter table tournament drop column {column}")
        connection.execute("update schemainfo set version = 2")
        made_before_alembic(connection)  # version 2 was before Alembic
    [legacy] = tournaments(db_url)  # opening upgrades it
    assert legacy.deal_secret is None and legacy.deals_public
    second = run_tournament(config(), options(db_url))
    assert second.tournament_id != first.tournament_id and second.played_now == second.scheduled
    assert any("made before sealed deals" in note for note in second.notes)
    assert DealSecret.from_hex(second.deal_secret or "").commitment == second.deal_commitment


@pytest.mark.needs_bot_sandbox
def test_a_bot_process_never_plays_the_same_deal_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seatings of a table share a deal: a process that played it from one seat could remember the cards."""
    from bots.base import MatchStart
    from ladder.sandbox.layers import default_layers
    from ladder.seats.players import PlayerPool

    try:
        default_layers()
    except UserError as error:
        pytest.skip(f"the sandbox cannot run here: {error}")
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    bot = tmp_path / "steady.py"
    bot.write_text((Path(__file__).parents[1] / "ladder" / "good_bot.py").read_text())

    def play_once(pool: PlayerPool, deal: str) -> str:
        player = pool.player(str(bot), "elfer-raus", deal=deal)
        player.start(MatchStart("elfer-raus", 0, 2, {}, 1))
        tag = player.process.tag  # type: ignore[attr-defined]
        player.end({"scores": [0, 0], "ranks": [1, 1], "details": {}})  # the process goes back to the pool
        return tag

    with PlayerPool() as pool:
        first = play_once(pool, "c0/elfer-raus/o0/2p/d0")
        assert play_once(pool, "c0/elfer-raus/o0/2p/d1") == first  # another deal: the process is reused
        second = play_once(pool, "c0/elfer-raus/o0/2p/d0")  # the same deal again: another process
        assert second != first
        assert play_once(pool, "c0/elfer-raus/o0/2p/d2") in (first, second)  # both stay in use
        assert play_once(pool, "") in (first, second)  # no deal named (ladder play): any process
