"""The clocks of issue 13 piece by piece: the one limits type, the bank, typed timeouts, built-in bots under
clocks, the host-fault rule and the host's pressure. The front-door tests (`test_front_door_clocks.py`) play
them through `ladder submit` and `ladder run`."""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

import pytest

from bots.base import Bot, Clock, MatchStart
from ladder.matches.match import BotTimeout, MatchSpec, TimeoutKind, play_match
from ladder.sandbox import host_load
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.move_clock import HOST_FAULT_SHARE, MoveUsage, longest_delay
from ladder.seats.builtin_players import ClockedInProcessPlayer, InProcessPlayer
from ladder.seats.players import PlayerPool
from tests.ladder.toy_game import GAME_ID, toy_game_registered


@pytest.fixture(autouse=True)
def toy_game(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path_factory.mktemp("results")
    monkeypatch.setenv("LADDER_RESULTS", str(home))
    monkeypatch.setenv("LADDER_DB", f"sqlite:///{home / 'ladder.db'}")
    with toy_game_registered():
        yield


# ---- one limits type -----------------------------------------------------------------------------


def test_there_is_one_limits_type_and_it_reads_plain_values_by_their_declared_types() -> None:
    import dataclasses

    import tournaments.formats.config

    assert not hasattr(tournaments.formats.config, "Limits")  # one name for the one type
    assert {f.name: f.type for f in dataclasses.fields(tournaments.formats.config.TournamentConfig)}[
        "limits"
    ] == "SandboxLimits"
    limits = SandboxLimits.from_mapping(
        {
            "move_seconds": "2",
            "bank_seconds": 3,
            "move_wall_seconds": 7,
            "clock_builtin_bots": True,
            "memory_mb": 512.0,
            "max_attempts": "4",
            "start_seconds": None,
            "unknown": 1,
        }
    )
    assert limits.move_seconds == 2.0 and isinstance(limits.move_seconds, float)
    assert limits.bank_seconds == 3.0 and isinstance(limits.bank_seconds, float)
    assert limits.move_wall_seconds == 7.0 and isinstance(limits.move_wall_seconds, float)
    assert limits.clock_builtin_bots is True
    assert limits.memory_mb == 512 and isinstance(limits.memory_mb, int)
    assert limits.max_attempts == 4 and limits.start_seconds == SandboxLimits().start_seconds
    assert SandboxLimits.from_mapping(asdict(limits)) == limits  # what a task carries comes back the same


def test_the_wall_cap_is_five_cpu_limits_by_default_and_grows_with_the_bank() -> None:
    assert SandboxLimits(move_seconds=1.0).wall_seconds(0.0) == 5.0
    assert SandboxLimits(move_seconds=1.0).wall_seconds(1.0) == 10.0
    assert SandboxLimits(move_seconds=1.0, move_wall_seconds=2.0).wall_seconds(0.0) == 2.0
    assert SandboxLimits(move_seconds=1.0, move_wall_seconds=2.0).wall_seconds(3.0) == 8.0


def test_a_tournament_file_checks_the_clock_keys(tmp_path: Path) -> None:
    from ladder.errors import UserError
    from tournaments.formats.config import load_tournament

    def load(limits: str):
        path = tmp_path / "t.toml"
        path.write_text(f'seed = 1\ngames = ["elfer-raus"]\nbots = ["random"]\n[limits]\n{limits}\n')
        return load_tournament(path)

    config = load("move_seconds = 1\nbank_seconds = 4\nmove_wall_seconds = 3\nclock_builtin_bots = true")
    assert (config.limits.move_seconds, config.limits.bank_seconds, config.limits.move_wall_seconds) == (1.0, 4.0, 3.0)
    assert config.limits.clock_builtin_bots is True
    with pytest.raises(UserError, match="move_wall_seconds: must be at least move_seconds"):
        load("move_seconds = 2\nmove_wall_seconds = 1")
    with pytest.raises(UserError, match="bank_seconds: must be 0 or more"):
        load("bank_seconds = -1")
    with pytest.raises(UserError, match="clock_builtin_bots: must be true or false"):
        load('clock_builtin_bots = "yes"')


# ---- the host-fault rule ---------------------------------------------------------------------------


def test_a_timeout_is_the_hosts_fault_only_on_evidence_the_bot_cannot_make_for_half_the_move() -> None:
    """Issue 23: CPU taken by processes outside the match, or a stop the bot could not make; never its own threads'
    run-queue delay, nor a stop it may have sent itself."""
    asleep = MoveUsage(wall_seconds=2.0, cpu_seconds=0.01, run_delay_seconds=0.003, outside_cpu_seconds=0.1)
    assert not asleep.host_fault  # not runnable, and nobody else took its CPU
    storm = MoveUsage(wall_seconds=2.0, cpu_seconds=0.4, run_delay_seconds=1.6, outside_cpu_seconds=0.0)
    assert not storm.host_fault  # its own threads kept it waiting: that is no evidence
    crowded = MoveUsage(wall_seconds=2.0, cpu_seconds=0.4, run_delay_seconds=1.6, outside_cpu_seconds=1.6)
    assert crowded.host_fault and "outside the match took 1.60 s of CPU on its 1 CPU" in crowded.describe()
    busy_host_asleep = MoveUsage(wall_seconds=2.0, cpu_seconds=0.01, run_delay_seconds=0.003, outside_cpu_seconds=2.0)
    assert not busy_host_asleep.host_fault  # others used the CPU, but the bot never waited for it
    two_cpus = MoveUsage(wall_seconds=2.0, cpu_seconds=0.4, run_delay_seconds=1.6, outside_cpu_seconds=1.6, cpus=2)
    assert not two_cpus.host_fault  # 0.8 s per CPU of 2 s: it had most of a CPU
    stopped = MoveUsage(wall_seconds=2.0, cpu_seconds=0.2, stopped_seconds=1.5, stop_trusted=True)
    assert stopped.host_fault and "stopped by someone else for 1.50 s" in stopped.describe()
    self_stopped = MoveUsage(wall_seconds=2.0, cpu_seconds=0.2, stopped_seconds=1.5, stop_trusted=False)
    assert not self_stopped.host_fault and "by someone else" not in self_stopped.describe()
    edge = MoveUsage(wall_seconds=2.0, run_delay_seconds=2.0, outside_cpu_seconds=HOST_FAULT_SHARE * 2.0 - 0.01)
    assert not edge.host_fault
    assert not MoveUsage(wall_seconds=2.0, run_delay_seconds=None).host_fault  # no evidence: the bot's
    huge = MoveUsage(wall_seconds=2.0, outside_cpu_seconds=50.0, stopped_seconds=9.0, stop_trusted=True)
    assert huge.starved_seconds == 2.0  # evidence is bounded by the wall time


def test_the_longest_thread_wait_is_bounded_by_the_wall_time() -> None:
    before = {str(tid): 0 for tid in range(450)}
    after = {str(tid): 400_000_000 for tid in range(450)}  # 450 threads each waited 0.4 s: 180 s summed
    assert longest_delay(before, after, wall=3.0) == pytest.approx(0.4)
    assert longest_delay({}, {"1": 9_000_000_000}, wall=3.0) == 3.0
    assert longest_delay({}, {}, wall=3.0) is None


# ---- built-in bots under the clocks -------------------------------------------------------------------


class _Burner(Bot):
    name = "burner"
    burn = 0.0
    seen: list[Clock | None] = []

    def act(self, observation, legal_actions):
        type(self).seen.append(self.clock)
        start = time.thread_time()
        while time.thread_time() - start < self.burn:
            pass
        return legal_actions[0]


def test_a_builtin_bot_under_clocks_draws_on_its_bank_then_loses_for_cpu_time() -> None:
    class Slow(_Burner):
        burn = 0.25
        seen: list[Clock | None] = []

    player = ClockedInProcessPlayer(Slow(), SandboxLimits(move_seconds=0.2, bank_seconds=0.08, move_wall_seconds=60))
    player.start(MatchStart(GAME_ID, 0, 1))
    legal = [{"type": "x"}]
    assert player.act({}, legal) == legal[0]  # 0.25 s: 0.05 s drawn from the bank
    assert 0.0 < player.bank < 0.04
    with pytest.raises(BotTimeout) as caught:
        player.act({}, legal)  # 0.25 s again: more than 0.2 s plus the little left
    assert caught.value.kind is TimeoutKind.CPU and caught.value.reason == "timeout" and not caught.value.host_fault
    assert "of CPU time on one move" in caught.value.detail
    assert Slow.seen[0] == Clock(0.2, 0.08) and Slow.seen[1] is not None and Slow.seen[1].bank_seconds < 0.04


def test_builtin_bots_run_under_clocks_only_when_the_limits_ask() -> None:
    with PlayerPool(limits=SandboxLimits(clock_builtin_bots=True)) as pool:
        assert isinstance(pool.player("random", GAME_ID), ClockedInProcessPlayer)
    with PlayerPool() as pool:
        player = pool.player("random", GAME_ID)
        assert isinstance(player, InProcessPlayer) and not isinstance(player, ClockedInProcessPlayer)


# ---- a sandboxed bot's bank and typed timeouts ---------------------------------------------------------

BANKER = """
import sys, time
from ladder.bot import Bot

class Banker(Bot):
    name = "banker"
    games = ("toy-count",)

    def start(self, match):
        super().start(match)
        self.moves = 0

    def act(self, observation, legal_actions):
        self.moves += 1
        print(f"move {self.moves}: {self.clock}", file=sys.stderr, flush=True)
        if self.moves <= 2:
            start = time.process_time()
            while time.process_time() - start < 0.6:
                pass
        return legal_actions[0]
"""


@pytest.mark.needs_bot_sandbox
def test_a_sandboxed_bot_is_told_its_bank_draws_on_it_and_loses_for_cpu_time_when_it_is_spent(tmp_path: Path) -> None:
    path = tmp_path / "banker.py"
    path.write_text(BANKER)
    limits = SandboxLimits(move_seconds=0.4, bank_seconds=0.3, move_wall_seconds=30.0, match_seconds=120.0)
    with PlayerPool(limits=limits) as pool:
        outcome = play_match(MatchSpec(GAME_ID, (str(path),), 1), [pool.player(str(path), GAME_ID)])
    failure = outcome.failures[0]
    assert failure.reason == "timeout" and failure.at_action == 1, failure  # the second move: the bank was spent
    assert "of CPU time on one move" in failure.detail and not failure.host_fault, failure
    assert "move 1: Clock(move_seconds=0.4, bank_seconds=0.3)" in failure.stderr_tail
    second = next(line for line in failure.stderr_tail.splitlines() if line.startswith("move 2:"))
    bank_left = float(second.rsplit("bank_seconds=", 1)[1].rstrip(")"))
    assert 0.0 <= bank_left < 0.2, second  # about 0.6 - 0.4 = 0.2 s drawn by the first move


SLEEPER = """
import time
from ladder.bot import Bot

class Sleeper(Bot):
    name = "sleeper"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        time.sleep(5)
        return legal_actions[0]
"""


@pytest.mark.needs_bot_sandbox
def test_a_sleeping_bot_times_out_on_the_wall_clock_and_it_is_its_own_fault(tmp_path: Path) -> None:
    path = tmp_path / "sleeper.py"
    path.write_text(SLEEPER)
    with PlayerPool(limits=SandboxLimits(move_seconds=0.3, move_wall_seconds=0.6)) as pool:
        player = pool.player(str(path), GAME_ID)
        player.start(MatchStart(GAME_ID, 0, 1))
        with pytest.raises(BotTimeout) as caught:
            player.act({}, [{"n": 1}, {"n": 2}])  # a choice: a single legal action is not sent to the bot
    assert caught.value.kind is TimeoutKind.WALL and caught.value.host_fault == ""
    assert "wall-clock limit of 0.6 s" in caught.value.detail


# ---- the host's pressure ------------------------------------------------------------------------------


def test_host_pressure_is_the_rate_between_two_samples() -> None:
    before = host_load.HostSample(at=10.0, psi_some_us=1_000_000, steal_ticks=100, total_ticks=10_000, load1=1.0)
    after = host_load.HostSample(at=12.0, psi_some_us=2_000_000, steal_ticks=150, total_ticks=10_500, load1=3.5)
    pressure = host_load.pressure_between(before, after)
    assert pressure.seconds == 2.0 and pressure.cpu_waiting == 0.5 and pressure.steal == 0.1 and pressure.load1 == 3.5
    assert "waited for a CPU 50% of the time" in pressure.describe()
    unknown = host_load.HostSample(at=12.0, psi_some_us=None, steal_ticks=None, total_ticks=None, load1=None)
    assert host_load.pressure_between(before, unknown).cpu_waiting is None
    live = host_load.pressure_between(host_load.sample(), host_load.sample())
    assert live.cores == host_load.usable_cores() >= 1 and set(live.to_json()) >= {"cpu_waiting", "steal", "load1"}


def test_more_workers_than_usable_cores_is_warned_about() -> None:
    cores = host_load.usable_cores()
    assert host_load.workers_warning(cores) is None
    warning = host_load.workers_warning(cores + 1)
    assert warning is not None and f"{cores + 1} workers on {cores} usable core" in warning
