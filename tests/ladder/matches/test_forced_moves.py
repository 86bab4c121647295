"""Forced moves (ladder.matches.forced_moves): a decision with one legal action is not sent to a sandboxed bot.

The bot still sees every event its seat witnessed (the held events come in
front of its next observation's), a bot can ask for every call, and the
turns it is not asked give it no free CPU (stopped while another seat runs,
charged for the ladder's time between two decisions of its own).
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
from ladder.sandbox.move_clock import process_cpu_clock
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


def bot_state(process: Any) -> bytes:
    with open(f"/proc/{process.bot_pid}/stat", "rb") as stat:
        text = stat.read()
    return text[text.rfind(b")") + 2 :].split()[0]


def bot_cpu(process: Any) -> float:
    """The bot process's CPU time from the kernel's process clock (nanoseconds, not /proc's 10 ms ticks)."""
    return time.clock_gettime(process_cpu_clock(process.bot_pid))


class Watched(SandboxedPlayer):
    """A sandboxed seat that makes each forced move slow (30 ms of the ladder's time) and looks at the bot meanwhile.

    ``gaps``: per forced move, whether another seat ran since this seat's last decision, the bot's process state and
    the CPU it used meanwhile. ``charged``: per decision it was asked, the CPU it had used unasked since the one
    before (while left running) and the time its clock was charged for the decision (``think_seconds``: the larger
    of the decision's wall time and the CPU charged to it).
    """

    def __init__(self, inner: SandboxedPlayer) -> None:
        self.__dict__.update(inner.__dict__)
        self.gaps: list[tuple[bool, bytes, float]] = []
        self.charged: list[tuple[float, float]] = []
        self.other_ran = True
        self.unasked = 0.0

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        process = self.process
        assert process is not None and process.bot_pid is not None
        if len(legal_actions) == 1:
            before = bot_cpu(process)
            time.sleep(0.03)  # the ladder is slow: a spinning thread let run would use all of it
            used = bot_cpu(process) - before
            self.gaps.append((self.other_ran, bot_state(process), used))
            self.unasked += used
            return super().act(observation, legal_actions)
        think = process.think_seconds
        action = super().act(observation, legal_actions)
        self.charged.append((self.unasked, process.think_seconds - think))
        self.other_ran, self.unasked = False, 0.0
        return action


class Opponent:
    """An in-process seat that, each time it is asked, checks the sandboxed seat's bot is stopped and idle."""

    def __init__(self, inner: Any, watched: Watched) -> None:
        self.inner, self.watched = inner, watched
        self.seen: list[tuple[bytes, float]] = []

    def start(self, match: MatchStart) -> None:
        self.inner.start(match)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        self.watched.other_ran = True
        process = self.watched.process
        if process is not None and process.bot_pid is not None:
            deadline = time.monotonic() + 0.5  # a stop sent takes effect a moment later (and a loaded CPU later still)
            while bot_state(process) != b"T" and time.monotonic() < deadline:
                time.sleep(0.001)
            before = bot_cpu(process)
            time.sleep(0.03)  # a slow opponent: the spinner must not get any of it
            self.seen.append((bot_state(process), bot_cpu(process) - before))
        return self.inner.act(observation, legal_actions)

    def end(self, result: dict[str, Any]) -> None:
        self.inner.end(result)


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
def test_a_bot_never_runs_while_another_seat_does_and_pays_for_the_gaps_of_its_own_turns(tmp_path: Path) -> None:
    """Stopped whenever another seat runs (the opponent's turn and the forced moves after it); left running only
    while the ladder plays on between two decisions of its own, with the CPU it uses then charged to its clock."""
    path = tmp_path / "spinner.py"
    path.write_text(SPINNER)
    spec = MatchSpec(GAME, (str(path), "random"), seed=7)
    with PlayerPool(limits=LIMITS) as pool:
        seat = Watched(pool.player(str(path), GAME))  # type: ignore[arg-type]
        opponent = Opponent(pool.player("random", GAME), seat)
        outcome = play_match(spec, [seat, opponent])
    assert outcome.failures == {} or outcome.failures[0].reason == "timeout"
    # the opponent's every turn: the spinner stopped, and (nearly) no CPU: a stop signal's delivery at most
    assert len(opponent.seen) >= 5
    assert all(state == b"T" for state, _ in opponent.seen), opponent.seen
    # (a thread still running on another CPU as the stop is sent is counted up to a scheduler tick late)
    assert sum(cpu for _, cpu in opponent.seen) <= 0.1 * 0.03 * len(opponent.seen) + 0.02
    after_other = [(state, cpu) for other, state, cpu in seat.gaps if other]
    own_turn = [cpu for other, _, cpu in seat.gaps if not other]
    assert len(after_other) >= 3 and len(own_turn) >= 3, "the match had too few forced moves of each kind"
    # forced moves after another seat ran: stopped, as through the opponent's turns
    assert all(state == b"T" for state, _ in after_other), after_other
    assert sum(cpu for _, cpu in after_other) <= 0.1 * 0.03 * len(after_other) + 0.02
    # forced moves right after its own decision: it was left running, and its spinner used CPU in them (all of the
    # 30 ms on an idle machine; on a loaded one whatever share the scheduler gave it) ...
    assert any(state != b"T" for other, state, _ in seat.gaps if not other), seat.gaps
    assert sum(own_turn) > 0.01
    # ... and each decision it was asked next was charged at least what it used unasked before it (uncharged, a
    # decision's charge is its own wall time: a few ms here, well under the 30 ms it used unasked)
    paid = [(unasked, charged) for unasked, charged in seat.charged if unasked > 0]
    assert paid and all(charged >= unasked - 0.001 for unasked, charged in paid), paid


def test_an_executable_bot_asks_for_every_call_in_its_bot_toml() -> None:
    base = 'name = "x"\ngames = ["elfer-raus"]\ncommand = ["node", "bot.js"]\n'
    files = {"bot.js": b"", "bot.toml": base.encode()}
    assert read_manifest(files, "bot").every_decision is False
    files["bot.toml"] = (base + "every_decision = true\n").encode()
    assert read_manifest(files, "bot").every_decision is True
    files["bot.toml"] = (base + 'every_decision = "yes"\n').encode()
    with pytest.raises(UserError, match="every_decision must be true or false"):
        read_manifest(files, "bot")


DOUBLER = '''
import threading, time
from ladder.bot import Bot

_answered = threading.Event()


def _after_answer():
    """Woken as the bot answers: thinks 0.12 s while it is left running, before it is asked again."""
    while True:
        _answered.wait()
        _answered.clear()
        end = time.thread_time() + 0.12
        while time.thread_time() < end:
            pass


class Doubler(Bot):
    """Thinks 0.12 s of CPU between its decisions and 0.15 s in each of them: 0.27 s a decision, on a 0.2 s clock."""

    name = "doubler"
    games = ("bowling-solitaire",)

    def start(self, match):
        super().start(match)
        self.asked = 0
        threading.Thread(target=_after_answer, daemon=True).start()

    def act(self, observation, legal_actions):
        self.asked += 1
        if self.asked <= 3:
            end = time.thread_time() + 0.15
            while time.thread_time() < end:
                pass
            _answered.set()
        return legal_actions[0]
'''


class SlowLadder(SandboxedPlayer):
    """A sandboxed seat whose ladder is slow between the bot's first three decisions (a loaded host): before the
    second and the third it waits until the bot has used 0.11 s of CPU since its last answer (at most 5 s)."""

    def __init__(self, inner: SandboxedPlayer) -> None:
        self.__dict__.update(inner.__dict__)
        self.answered_at: float | None = None
        self.asked = 0

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        process = self.process
        assert process is not None and process.bot_pid is not None
        if self.answered_at is not None and len(legal_actions) > 1 and self.asked < 3:
            deadline = time.monotonic() + 5.0
            while bot_cpu(process) - self.answered_at < 0.11 and time.monotonic() < deadline:
                time.sleep(0.005)
        action = super().act(observation, legal_actions)
        if self.process is not None and len(legal_actions) > 1:
            self.asked += 1
            self.answered_at = bot_cpu(self.process)
        return action


@pytest.mark.needs_bot_sandbox
def test_cpu_used_between_decisions_counts_towards_the_next_decisions_limit(tmp_path: Path) -> None:
    """The CPU a bot uses while left running is part of its next decision: that decision may use only what is left
    of its limit, so 0.12 s between two decisions and 0.15 s in the second, on a 0.2 s clock without a bank, is a
    CPU loss at the second decision (not 0.27 s charged and nothing lost, with an empty bank to draw on)."""
    path = tmp_path / "doubler.py"
    path.write_text(DOUBLER)
    # a wide wall-clock cap: on a loaded machine the CPU limit, not the wall clock, must be what ends the move
    limits = SandboxLimits(
        move_seconds=0.2, bank_seconds=0.0, move_wall_seconds=30.0, match_seconds=120.0, memory_mb=512
    )
    with PlayerPool(limits=limits) as pool:
        seat = SlowLadder(pool.player(str(path), "bowling-solitaire"))  # type: ignore[arg-type]
        outcome = play_match(MatchSpec("bowling-solitaire", (str(path),), seed=3), [seat])
    assert 0 in outcome.failures, "0.27 s of CPU for one decision on a 0.2 s clock went unpunished"
    failure = outcome.failures[0]
    assert failure.reason == "timeout", failure
    assert "between its decisions (charged to this move)" in failure.detail, failure.detail
    used = float(failure.detail.split("used ", 1)[1].split(" s of CPU", 1)[0])
    assert used >= 0.2, failure.detail  # what it used, the unasked CPU included, reached the limit it is told
    assert "choosing its action #2" in failure.detail or "choosing its action #3" in failure.detail, failure.detail


class Raising(SandboxedPlayer):
    """A sandboxed seat whose ladder breaks (an exception that is not the bot's) right after the bot's first answer."""

    def __init__(self, inner: SandboxedPlayer) -> None:
        self.__dict__.update(inner.__dict__)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        action = super().act(observation, legal_actions)
        if len(legal_actions) > 1:
            raise RuntimeError("the ladder broke")
        return action


@pytest.mark.needs_bot_sandbox
def test_a_match_that_ends_in_an_exception_leaves_no_bot_running(tmp_path: Path) -> None:
    """The bot left running after its answer is stopped however the match ends, an exception of the ladder's
    included: it must not burn the worker's CPU until the pool is next used."""
    path = tmp_path / "spinner.py"
    path.write_text(SPINNER)
    with PlayerPool(limits=LIMITS) as pool:
        seat = Raising(pool.player(str(path), GAME))  # type: ignore[arg-type]
        with pytest.raises(RuntimeError, match="the ladder broke"):
            play_match(MatchSpec(GAME, (str(path), "random"), seed=7), [seat, pool.player("random", GAME)])
        process = seat.process
        assert process is not None and process.paused and pool._running is None
        time.sleep(0.05)
        assert bot_state(process) == b"T"


EARLY_THINKER = '''
import threading, time
from ladder.bot import Bot


def _spin(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class EarlyThinker(Bot):
    """Starts a thread at the start of the match that thinks 0.15 s of CPU; answers at once."""

    name = "early-thinker"
    games = ("bowling-solitaire",)

    def start(self, match):
        super().start(match)
        threading.Thread(target=_spin, args=(0.15,), daemon=True).start()

    def act(self, observation, legal_actions):
        return legal_actions[0]
'''


class SlowFirstDecision(SandboxedPlayer):
    """A sandboxed seat whose ladder is slow before the bot's first asked decision: it waits until the bot has used
    0.12 s of CPU since its start was answered (at most 5 s)."""

    def __init__(self, inner: SandboxedPlayer) -> None:
        self.__dict__.update(inner.__dict__)
        self.started_at: float | None = None

    def start(self, match: MatchStart) -> None:
        super().start(match)
        assert self.process is not None
        self.started_at = bot_cpu(self.process)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        process = self.process
        if self.started_at is not None and process is not None and len(legal_actions) > 1:
            deadline = time.monotonic() + 5.0
            while bot_cpu(process) - self.started_at < 0.12 and time.monotonic() < deadline:
                time.sleep(0.005)
            self.started_at = None
        return super().act(observation, legal_actions)


@pytest.mark.needs_bot_sandbox
def test_a_solitaire_bot_left_running_after_its_start_is_charged_at_its_first_decision(tmp_path: Path) -> None:
    """Alone at the table, a bot is left running after it answers ``start`` (its first decision comes next, with no
    other seat to run): the CPU it uses until then is charged to that decision, which may use only what is left of
    its limit. 0.12 s of it on a 0.1 s clock without a bank is a CPU loss before the bot is even asked."""
    path = tmp_path / "early_thinker.py"
    path.write_text(EARLY_THINKER)
    limits = SandboxLimits(
        move_seconds=0.1, bank_seconds=0.0, move_wall_seconds=30.0, match_seconds=120.0, memory_mb=512
    )
    with PlayerPool(limits=limits) as pool:
        seat = SlowFirstDecision(pool.player(str(path), "bowling-solitaire"))  # type: ignore[arg-type]
        outcome = play_match(MatchSpec("bowling-solitaire", (str(path),), seed=3), [seat])
    assert 0 in outcome.failures, "0.12 s of CPU after start, on a 0.1 s clock, went unpunished"
    failure = outcome.failures[0]
    assert failure.reason == "timeout", failure
    assert "between its decisions" in failure.detail, failure.detail
    used = float(failure.detail.split("used ", 1)[1].split(" s of CPU", 1)[0])
    assert used >= 0.1, failure.detail
