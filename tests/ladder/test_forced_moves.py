"""Forced moves (ladder.matches.forced_moves): a decision with one legal action is not sent to a sandboxed bot.

The bot still sees every event its seat witnessed (the held events come in
front of its next observation's), a bot can ask for every call, and the
turns it is not asked give it no free CPU (it stays stopped).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import pytest

from bots.base import MatchStart
from engine import get_game
from ladder.errors import UserError
from ladder.matches.forced_moves import ForcedMoves
from ladder.matches.match import MatchSpec, play_match
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.submission import read_manifest
from ladder.seats.players import PlayerPool, SandboxedPlayer

GAME = "elfer-raus"  # about half of its decisions have a single legal action
LIMITS = SandboxLimits(move_seconds=2.0, match_seconds=60.0, memory_mb=512)

WITNESS = '''
import hashlib, json, sys
from ladder.bot import Bot


class Witness(Bot):
    """Plays randomly and, at the end, says on stderr what it was asked and which events it was told."""

    name = "witness"
    games = ("elfer-raus",)
    every_decision = {every}

    def start(self, match):
        super().start(match)
        self.calls, self.fewest, self.events = 0, 99, []

    def act(self, observation, legal_actions):
        self.calls += 1
        self.fewest = min(self.fewest, len(legal_actions))
        self.events.extend(observation["events"])
        return self.rng.choice(legal_actions)

    def end(self, result):
        told = hashlib.sha256(json.dumps(self.events, sort_keys=True).encode()).hexdigest()
        sys.stderr.write("WITNESS" + json.dumps({{"calls": self.calls, "fewest": self.fewest, "count": len(self.events),
                                                 "events": told}}) + "\\n")
'''


@pytest.fixture(autouse=True)
def results(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path_factory.mktemp("results")))


def witness(folder: Path, every: bool) -> str:
    path = folder / "witness.py"
    path.write_text(WITNESS.format(every=every))
    return str(path)


def told(stderr: str) -> dict[str, Any]:
    line = next(line for line in stderr.splitlines() if line.startswith("WITNESS"))
    return json.loads(line.removeprefix("WITNESS"))


def seat_decisions(spec: MatchSpec, actions: tuple[dict[str, Any], ...], seat: int) -> list[tuple[int, list[Any]]]:
    """Replaying the match: for each decision of ``seat``, the number of legal actions and the observation's events."""
    state = get_game(spec.game).new_state(len(spec.seats), spec.seed, spec.options)
    decisions = []
    for action in actions:
        if state.current_player == seat:
            observation, legal = state.offer()
            decisions.append((len(legal), observation["events"]))
        state.apply(action)
    return decisions


def test_the_held_events_come_in_front_of_the_next_observations_and_only_then() -> None:
    forced = ForcedMoves()
    assert forced.answer({"events": [1, 2]}, [{"type": "draw"}]) == {"type": "draw"}
    assert forced.answer({"events": [3]}, [{"type": "end_turn"}]) == {"type": "end_turn"}
    observation: dict[str, Any] = {"events": [4]}
    assert forced.answer(observation, [{"type": "a"}, {"type": "b"}]) is None  # a choice: the bot is asked
    assert observation["events"] == [1, 2, 3, 4] and forced.skipped == 2
    observation = {"events": [5]}
    assert forced.answer(observation, [{"type": "a"}, {"type": "b"}]) is None
    assert observation["events"] == [5]  # given once, not again
    everything = ForcedMoves(every_decision=True)
    assert everything.answer({"events": [1]}, [{"type": "draw"}]) is None


@pytest.mark.needs_bot_sandbox
@pytest.mark.parametrize("every", [False, True])
def test_a_sandboxed_bot_is_asked_only_when_it_has_a_choice_and_still_sees_every_event(
    tmp_path: Path, every: bool
) -> None:
    path = witness(tmp_path, every)
    spec = MatchSpec(GAME, (path, "random"), seed=5)
    with PlayerPool(limits=LIMITS) as pool:
        outcome = play_match(spec, [pool.player(path, GAME), pool.player("random", GAME)])
        assert not outcome.failures, outcome.failures
        (process,) = pool.processes()  # its stderr, read once the drain has caught up (a busy machine lags)
        deadline = time.monotonic() + 10
        while "WITNESS" not in process.stderr.since(0) and time.monotonic() < deadline:  # type: ignore[union-attr]
            time.sleep(0.05)
        report = told(process.stderr.since(0))  # type: ignore[union-attr]
    decisions = seat_decisions(spec, outcome.actions, 0)
    asked = decisions if every else [d for d in decisions if d[0] > 1]
    assert any(count == 1 for count, _ in decisions)  # the match had forced moves
    assert report["calls"] == len(asked)
    assert report["fewest"] == (1 if every else min(count for count, _ in asked))
    # every event the seat witnessed up to its last call, in order, each once
    last = max(i for i, decision in enumerate(decisions) if decision in asked)
    expected = [event for _, events in decisions[: last + 1] for event in events]
    assert report["count"] == len(expected) > 0
    assert report["events"] == hashlib.sha256(json.dumps(expected, sort_keys=True).encode()).hexdigest()


class Watched(SandboxedPlayer):
    """A sandboxed seat that, at each forced move, looks at the bot's process while the turn passes."""

    def __init__(self, inner: SandboxedPlayer) -> None:
        self.__dict__.update(inner.__dict__)
        self.seen: list[tuple[bytes, float]] = []  # per forced move: process state, CPU used meanwhile

    def start(self, match: MatchStart) -> None:
        super().start(match)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        process = self.process
        if len(legal_actions) == 1 and process is not None and process.bot_pid is not None:
            before = process.cpu_seconds_used() or 0.0
            time.sleep(0.03)  # a turn the bot is not asked: its spinning thread would use all of it
            with open(f"/proc/{process.bot_pid}/stat", "rb") as stat:
                text = stat.read()
            self.seen.append((text[text.rfind(b")") + 2 :].split()[0], (process.cpu_seconds_used() or 0.0) - before))
        return super().act(observation, legal_actions)


SPINNER = '''
import threading
from ladder.bot import Bot


class Spinner(Bot):
    """Works in a background thread all the time: between its turns too, if it could."""

    name = "spinner"
    games = ("elfer-raus",)

    def start(self, match):
        super().start(match)
        threading.Thread(target=self.spin, daemon=True).start()

    def spin(self):
        while True:
            pass

    def act(self, observation, legal_actions):
        return self.rng.choice(legal_actions)
'''


@pytest.mark.needs_bot_sandbox
@pytest.mark.slow
def test_the_turns_a_bot_is_not_asked_give_it_no_cpu(tmp_path: Path) -> None:
    path = tmp_path / "spinner.py"
    path.write_text(SPINNER)
    spec = MatchSpec(GAME, (str(path), "random"), seed=7)
    with PlayerPool(limits=LIMITS) as pool:
        seat = Watched(pool.player(str(path), GAME))  # type: ignore[arg-type]
        outcome = play_match(spec, [seat, pool.player("random", GAME)])
    assert len(seat.seen) >= 5, "the match had too few forced moves to say anything"
    assert all(state == b"T" for state, _ in seat.seen)  # stopped through every turn it was not asked
    # and it used (nearly) no CPU in them: a spinning thread let run would use all of their 30 ms each; what shows
    # is a stop signal's delivery, a tick (10 ms) here and there
    assert sum(cpu for _, cpu in seat.seen) <= 0.1 * 0.03 * len(seat.seen) + 0.02
    assert outcome.failures == {} or outcome.failures[0].reason == "timeout"


def test_an_executable_bot_asks_for_every_call_in_its_bot_toml() -> None:
    base = 'name = "x"\ngames = ["elfer-raus"]\ncommand = ["node", "bot.js"]\n'
    files = {"bot.js": b"", "bot.toml": base.encode()}
    assert read_manifest(files, "bot").every_decision is False
    files["bot.toml"] = (base + "every_decision = true\n").encode()
    assert read_manifest(files, "bot").every_decision is True
    files["bot.toml"] = (base + 'every_decision = "yes"\n').encode()
    with pytest.raises(UserError, match="every_decision must be true or false"):
        read_manifest(files, "bot")
