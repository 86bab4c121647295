"""Hostile bots through the front door: `ladder validate`, `ladder submit` and a real `ladder run`.

Each test plays an attack the way a hostile bot author would, into a
temporary results folder and database, and checks afterwards: no process of
the test is left, every scheduled match is recorded with a reason, the other
bots' matches are unaffected, and the tournament is complete.

- a bot that imports the engine and tries every seed it could know recovers
  no deal (the deals come from a secret; its commitment and reveal are
  checked by re-deriving every stored deal);
- a sleeper that sends a lone surrogate (``"\\ud800"``) once past the
  submission check: a protocol error, the tournament completes intact, and
  its stderr in the run log is marked as its own;
- a lone surrogate and terminal escape sequences in a bot's description,
  exception and stderr: one clear line, no orphan folder, no escape sequence
  on the terminal;
- a sleeper that behaves only when it recognises the check by its seeds:
  it cannot, and the check catches it;
- ``--require-layer`` and the start-up refusal when bots cannot be sandboxed.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest

from engine.rng import derive_seed
from ladder.errors import UserError
from ladder.matches.deals import DealSecret, commitment_of, sealed_bot_seed
from ladder.sandbox.layers import default_layers
from tests.ladder.front_door import (
    TRUST_BOTS,
    LadderHome,
    assert_every_match_recorded,
    assert_no_terminal_controls,
    assert_one_clear_line,
)
from tournaments.formats.round_robin import deal_seed

GAME = "elfer-raus"
DEAL_ID = re.compile(r"^c(\d+)/([^/]+)/o(\d+)/(\d+)p/d(\d+)$")


def _sandbox_or_skip() -> None:
    try:
        default_layers()
    except UserError as error:
        pytest.skip(f"the sandbox cannot run here: {error}")


@pytest.fixture()
def home(tmp_path: Path) -> LadderHome:
    _sandbox_or_skip()
    made = LadderHome(tmp_path)
    yield made
    assert made.leftover_processes() == [], "processes of the test outlived it"


def good_bot(home: LadderHome) -> Path:
    path = home.root / "steady.py"
    path.write_text(
        (Path(__file__).parents[1] / "good_bot.py")
        .read_text()
        .replace('name = "first-legal"', 'name = "steady"')
        .replace('games = ("*",)', f'games = ("{GAME}",)')
    )
    return path


def only_tournament(home: LadderHome, name: str) -> dict:
    found = [t for t in home.tournaments() if t["name"] == name]
    assert len(found) == 1, found
    return found[0]


def check_revealed_deals(home: LadderHome, tournament: dict) -> DealSecret:
    """The revealed secret matches the commitment, and every stored deal re-derives from it."""
    assert tournament["deals"] == "revealed" and tournament["deal_secret"], tournament
    secret = DealSecret.from_hex(tournament["deal_secret"])
    assert hashlib.sha256(bytes.fromhex(tournament["deal_secret"])).hexdigest() == tournament["deal_commitment"]
    assert commitment_of(secret.value) == tournament["deal_commitment"]
    stored = home.matches(tournament["id"])
    assert stored
    for match in stored:
        cycle, game, variant, players, deal = DEAL_ID.match(match["deal"]).groups()  # type: ignore[union-attr]
        assert match["seed"] == deal_seed(secret.value, int(cycle), game, int(variant), int(players), int(deal)), match
    return secret


# ---- sealed deals ----------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.needs_bot_sandbox
def test_a_bot_that_imports_the_engine_cannot_reconstruct_any_deal(home: LadderHome) -> None:
    public_seed, gpp = 424242, 3
    bots = ["deal-cracker", "steady", "random"]
    replacements = {
        "PUBLIC_SEED = 0": f"PUBLIC_SEED = {public_seed}",
        "BOT_NAMES: list = []": f"BOT_NAMES: list = {bots!r}",
        "GAMES_PER_PAIRING = 0": f"GAMES_PER_PAIRING = {gpp}",
    }
    cracker = home.bot("deal_cracker", replacements, with_engine=True)
    home.ladder_ok(
        "submit", str(cracker), "--matches", "1"
    )  # the check's deals are secret too: nothing recovered there
    home.ladder_ok("submit", str(good_bot(home)), "--matches", "1")
    file = home.write_tournament(
        "sealed",
        {
            "seed": public_seed,
            "games": [GAME],
            "bots": bots,
            "players": [2],
            "games_per_pairing": gpp,
            "workers": 2,
            "limits": {"move_seconds": 10.0, "bench_after_failures": 1000},
        },
    )
    run = home.ladder_ok("run", str(file), "--no-progress", "--json")
    report = json.loads(run.stdout)
    assert report["state"] == "complete" and report["deal_secret"], report
    tournament = only_tournament(home, "sealed")
    assert tournament["state"] == "complete"
    stored = assert_every_match_recorded(home, tournament["id"], report["scheduled"])
    cracker_seats = [seat for match in stored for seat in match["seats"] if seat["bot"] == "deal-cracker"]
    assert len(cracker_seats) == 2 * 2 * gpp  # two opponents, both seats, every deal
    recovered = [seat["detail"] for seat in cracker_seats if seat["failure"]]
    assert recovered == [], f"the bot recovered deals: {recovered[:3]}"
    assert all(seat["failure"] is None for match in stored for seat in match["seats"])
    check_revealed_deals(home, tournament)


def test_the_cracker_would_have_recovered_deals_dealt_from_the_public_seed() -> None:
    """The attack above is real: against the old derivation (deal and bot seeds from the public seed) it wins."""
    sys.path.insert(0, str(TRUST_BOTS.parent.parent.parent))
    from tests.ladder.trust_bots import deal_cracker

    deal_cracker.PUBLIC_SEED, deal_cracker.BOT_NAMES, deal_cracker.GAMES_PER_PAIRING = 424242, ["a", "b"], 3
    from engine import get_game

    for deal in range(3):
        old_deal_seed = derive_seed(424242, "deal", 0, GAME, 0, 2, deal) >> 11
        state = get_game(GAME).new_state(2, old_deal_seed, {})
        for seat in range(2):
            old_bot_seed = derive_seed(old_deal_seed, "bot", seat)
            assert deal_cracker.recover(GAME, 2, seat, {}, old_bot_seed, state.observation(seat)) == old_deal_seed
            unrelated_bot_seed = sealed_bot_seed(DealSecret.fresh().value, "c0/x", seat)  # only the hand gives it away
            assert deal_cracker.recover(GAME, 2, seat, {}, unrelated_bot_seed, state.observation(seat)) == old_deal_seed


@pytest.mark.slow
def test_the_same_deal_secret_deals_the_same_matches_and_a_fresh_one_does_not(tmp_path: Path) -> None:
    secret = "c0ffee" * 10 + "c0de"
    seeds = []
    for run_number, given in enumerate([secret, secret, None]):
        home = LadderHome(tmp_path / f"run{run_number}")
        file = home.write_tournament(
            "twins",
            {
                "seed": 5,
                "games": [GAME],
                "bots": ["random", "thumb"],
                "players": [2],
                "games_per_pairing": 2,
                "workers": 1,
            },
        )
        args = ["run", str(file), "--no-progress", "--json"] + (["--deal-secret", given] if given else [])
        report = json.loads(home.ladder_ok(*args).stdout)
        assert report["state"] == "complete"
        tournament = only_tournament(home, "twins")
        if given:
            assert tournament["deal_secret"] == given
            assert tournament["deal_commitment"] == hashlib.sha256(bytes.fromhex(given)).hexdigest()
        check_revealed_deals(home, tournament)
        shown = " ".join(home.ladder_ok("tournaments").stdout.split())
        assert f"commitment {tournament['deal_commitment']} secret {tournament['deal_secret']}" in shown
        seeds.append({m["key"]: m["seed"] for m in home.matches()})
    assert seeds[0] == seeds[1]
    assert seeds[2].keys() == seeds[0].keys() and set(seeds[2].values()).isdisjoint(seeds[0].values())
    bad = LadderHome(tmp_path / "bad")
    file = bad.write_tournament("twins", {"seed": 5, "games": [GAME], "bots": ["random", "thumb"], "players": [2]})
    assert_one_clear_line(bad.ladder("run", str(file), "--deal-secret", "not-hex"), "--deal-secret", "64 hex digits")


@pytest.mark.needs_bot_sandbox
def test_the_check_deals_fresh_secret_seeds_every_time(home: LadderHome) -> None:
    path = str(good_bot(home))
    seen = []
    for _ in range(2):
        report = json.loads(home.ladder_ok("validate", path, "--json", "--matches", "2").stdout)
        seen.append([match["seed"] for match in report["matches"]])
    assert len(set(seen[0] + seen[1])) == len(seen[0]) + len(seen[1])
    assert not set(seen[0]) & {1000 * players + index for players in range(1, 7) for index in range(50)}


@pytest.mark.slow
@pytest.mark.needs_bot_sandbox
def test_a_sleeper_cannot_recognise_the_check_by_its_seeds(home: LadderHome) -> None:
    sys.path.insert(0, str(TRUST_BOTS.parent.parent.parent))
    from tests.ladder.trust_bots.seed_sleeper import looks_like_the_check

    # against the check's old fixed seeds the sleeper would have behaved in the check and nowhere else
    assert looks_like_the_check(derive_seed(1000 * 2 + 1, "bot", 0))
    sleeper = str(home.bot("seed_sleeper"))
    run = home.ladder("validate", sleeper, "--move-seconds", "1", "--matches", "1")
    assert_one_clear_line(run, "failed the check", "timeout")
    submitted = home.ladder("submit", sleeper, "--move-seconds", "1", "--matches", "1")
    assert_one_clear_line(submitted, "was not registered", "timeout")
    assert not (home.results / "bots").exists() or not any((home.results / "bots").iterdir())


# ---- nothing a bot sends corrupts anything ---------------------------------------------------------------


@pytest.mark.needs_bot_sandbox
def test_a_lone_surrogate_reply_is_a_protocol_error_and_the_tournament_completes(home: LadderHome) -> None:
    sleeper = home.bot("surrogate_reply")
    home.ladder_ok("submit", str(sleeper), "--matches", "1")  # it sleeps through the check
    home.ladder_ok("submit", str(good_bot(home)), "--matches", "1")
    bots = ["surrogate-reply", "steady", "random"]
    file = home.write_tournament(
        "surrogates",
        {
            "seed": 77,
            "games": [GAME],
            "bots": bots,
            "players": [2],
            "games_per_pairing": 8,
            "workers": 2,
            "limits": {"bench_after_failures": 1000},
        },
    )
    run = home.ladder("run", str(file), "--no-progress")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert_no_terminal_controls(run.stdout, run.stderr)
    tournament = only_tournament(home, "surrogates")
    assert tournament["state"] == "complete" and tournament["errors"] == 0
    stored = assert_every_match_recorded(home, tournament["id"], tournament["scheduled"])
    failed = [(match, seat) for match in stored for seat in match["seats"] if seat["failure"]]
    assert failed, "the sleeper never woke up: the test proves nothing"
    for match, seat in failed:
        assert seat["bot"] == "surrogate-reply", (match["key"], seat)
        assert seat["failure"] == "garbage" and "not valid Unicode" in seat["detail"], seat
        assert match["status"] == "played"
    for match in stored:  # every seat has its score and rank; the other bots never failed
        assert all(seat["score"] is not None and seat["rank"] is not None for seat in match["seats"])
    untouched = [m for m in stored if "surrogate-reply" not in {s["bot"] for s in m["seats"]}]
    assert untouched and all(m["status"] == "played" for m in untouched)
    log = home.run_log()
    forged = [line for line in log.splitlines() if "tournament forged #1" in line]
    assert forged, "the bot's stderr is not in the run log"
    assert all(line.startswith("    [seat ") and " bot stderr] | " in line for line in forged), forged
    assert_no_terminal_controls(log)
    check_revealed_deals(home, tournament)
    replay = home.ladder_ok("replay", str(failed[0][0]["id"]))
    assert_no_terminal_controls(replay.stdout)
    assert "not valid Unicode" in replay.stdout


@pytest.mark.needs_bot_sandbox
def test_a_lone_surrogate_in_the_author_is_one_clear_line_and_leaves_nothing_behind(home: LadderHome) -> None:
    bot = str(home.bot("surrogate_author"))
    for command, said in (("validate", "failed the check"), ("submit", "was not registered")):
        run = home.ladder(command, bot)
        assert_one_clear_line(run, said, "author is not valid Unicode")
        assert_no_terminal_controls(run.stdout, run.stderr)
    assert not (home.results / "bots").exists() or not any((home.results / "bots").iterdir()), "an orphan folder"
    assert json.loads(home.ladder_ok("bots", "--json").stdout)["registered"] == []


@pytest.mark.needs_bot_sandbox
def test_terminal_escapes_from_a_bot_never_reach_the_terminal(home: LadderHome) -> None:
    failing = home.bot("terminal_escapes")
    run = home.ladder("validate", str(failing))
    assert_one_clear_line(run, "failed the check", "boom")
    assert_no_terminal_controls(run.stdout, run.stderr)
    flat = " ".join(run.stdout.split())
    assert "mallory" in flat and "[link=http://evil/]click[/link]" in flat  # Rich markup printed as text
    assert "stderr line" in run.stdout  # the stderr tail is shown, cleaned
    passing = home.root / "polite_escapes.py"
    passing.write_text(
        failing.read_text()
        .replace('raise RuntimeError(f"boom{ESCAPES}")', "return legal_actions[0]")
        .replace('name = "terminal-escapes"', 'name = "polite-escapes"')
    )
    submitted = home.ladder_ok("submit", str(passing), "--matches", "1")
    assert_no_terminal_controls(submitted.stdout, submitted.stderr)
    listed = home.ladder_ok("bots")
    assert_no_terminal_controls(listed.stdout)
    [(author, version)] = home.query(
        "select b.author, v.version from bot b join bot_version v on v.bot_id = b.id where b.name = 'polite-escapes'"
    )
    assert_no_terminal_controls(author, version)
    assert author.startswith("mallory")


# ---- refusing to start ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_run_requires_the_layers_it_is_asked_for(home: LadderHome) -> None:
    file = home.write_tournament(
        "layers",
        {"seed": 1, "games": [GAME], "bots": ["random", "thumb"], "players": [2], "games_per_pairing": 1, "workers": 1},
    )
    assert_one_clear_line(home.ladder("run", str(file), "--require-layer", "moat"), "no sandbox layer 'moat'")
    for layer in default_layers():
        home.ladder_ok("run", str(file), "--no-progress", "--require-layer", layer)


@pytest.mark.needs_bot_sandbox
def test_run_refuses_to_start_when_submitted_bots_cannot_be_sandboxed(
    home: LadderHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root without bubblewrap (simulated): one line before anything is played, instead of a tournament of errors."""
    from typer.testing import CliRunner

    import ladder.seats.players
    from cli.app import app

    home.ladder_ok("submit", str(good_bot(home)), "--matches", "1")
    file = home.write_tournament(
        "rootless",
        {
            "seed": 1,
            "games": [GAME],
            "bots": ["steady", "random"],
            "players": [2],
            "games_per_pairing": 1,
            "workers": 1,
        },
    )
    for key in ("LADDER_RESULTS", "LADDER_DB"):
        monkeypatch.setenv(key, home.env[key])
    monkeypatch.setattr(ladder.seats.players, "is_root", lambda: True)
    monkeypatch.setattr(ladder.seats.players, "available_layers", lambda: ("process", "seccomp"))
    monkeypatch.setattr(ladder.seats.players, "process_layer_can_drop_root", lambda: False)
    result = CliRunner().invoke(app, ["run", str(file), "--no-progress"])
    assert isinstance(result.exception, UserError), result.output
    message = str(result.exception)
    assert "cannot be sandboxed here" in message and "install bubblewrap" in message and "steady" in message
    assert "\n" not in message
    assert home.query("select count(*) from match") == [(0,)]
