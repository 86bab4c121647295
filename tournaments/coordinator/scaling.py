"""How a tournament scales with its workers, against what the machine itself allows.

Two measurements, taken in the same run so that they see the same machine:

- **the hardware baseline**: ``N`` independent processes, each playing the
  same fixed number of random Elevenses games (a CPU-bound engine loop, no
  I/O, no coordinator). Its efficiency at ``N`` is the speed of one copy
  among ``N`` against the speed of one copy alone: what the machine (its
  cores, caches, memory, thermal limits, hyper-threads, other tenants) lets
  ``N`` CPU-bound processes do. No runner can beat it.
- **the quick mix**: the quick tournament's schedule (``cycles`` times over,
  so that the tail does not dominate) at ``N`` workers into a fresh
  database: matches per second, the efficiency against one worker, and the
  workers' CPU time per match (which grows when something in the worker is
  sensitive to contention even though the hardware is not).

The figure that says whether the runner uses the machine is the ratio of
the two efficiencies (``vs baseline``): the issue's target is 90% at 8 and
16 workers. ``tests/bench/bench_tournament.py`` and ``ladder bench-sandbox
--workers`` print these tables.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine import get_game
from tournaments.coordinator.run_options import RunOptions
from tournaments.coordinator.runner import run_tournament
from tournaments.executors.local_pool import worker_context
from tournaments.formats.config import TournamentConfig, load_tournament, parse_tournament

BASELINE_GAME = "elevenses"
BASELINE_PLAYERS = 2
QUICK = Path(__file__).resolve().parent / "quick.toml"


@dataclass(frozen=True)
class BaselineFigures:
    """``copies`` processes each playing ``games`` random games: their mean wall time per copy."""

    copies: int
    games: int
    seconds_per_copy: float


@dataclass(frozen=True)
class MixFigures:
    """One run of the mix at ``workers`` workers."""

    workers: int
    matches: int
    run_seconds: float
    matches_per_second: float
    cpu_ms_per_match: float  # the workers' CPU time inside matches (sandboxed bots' own processes not included)
    wall_ms_per_match: float  # the workers' wall time inside matches
    busy: float  # share of the workers' time spent inside matches
    db_share: float  # share of the run's wall time spent writing the database
    load_before: float  # the machine's 1-minute load average before the run


@dataclass(frozen=True)
class ScalingRow:
    """One worker count: the mix and the hardware baseline side by side (efficiencies against 1 worker / copy)."""

    mix: MixFigures
    baseline: BaselineFigures
    efficiency: float
    baseline_efficiency: float

    @property
    def versus_baseline(self) -> float:
        """The runner's efficiency as a share of what the hardware allows at this count."""
        return self.efficiency / self.baseline_efficiency


def _playout_loop(games: int, seed: int) -> float:
    """Play ``games`` random games of the baseline game in this process; the wall time it took."""
    game = get_game(BASELINE_GAME)
    rng = random.Random(seed)
    tick = time.perf_counter()
    for number in range(games):
        state = game.new_state(BASELINE_PLAYERS, seed * 100_003 + number, {})
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
    return time.perf_counter() - tick


def _baseline_copy(games: int, seed: int, start: Any, results: Any) -> None:
    start.wait()
    results.put(_playout_loop(games, seed))


def hardware_baseline(copies: int, games: int = 40) -> BaselineFigures:
    """``copies`` independent processes running the same CPU-bound engine loop at once (started from a
    fork server, like the workers, and released together)."""
    context = worker_context()
    start = context.Event()
    results = context.Queue()
    processes = [
        context.Process(target=_baseline_copy, args=(games, copy, start, results), name=f"baseline-{copy}")
        for copy in range(copies)
    ]
    for process in processes:
        process.start()
    time.sleep(0.2)  # every copy started and waiting
    start.set()
    seconds = [results.get(timeout=600) for _ in processes]
    for process in processes:
        process.join()
    return BaselineFigures(copies, games, sum(seconds) / len(seconds))


def measure_mix(
    workers: int, cycles: int, config: TournamentConfig, setup: str | None = None, db_url: str | None = None
) -> MixFigures:
    """The schedule of ``config`` (``cycles`` times over) at ``workers`` workers.

    Into a fresh database in a temporary results folder, or, with ``db_url``,
    as a new tournament in that database with the results folder as it is
    (where submitted bots are registered and stored). ``setup``
    (``"module:function"``) runs in every worker (e.g. to register toy games).
    """
    config = replace(config, cycles=cycles, name=f"bench-{workers}-{uuid.uuid4().hex[:8]}")
    if db_url is not None:
        return _run_mix(workers, config, setup, db_url)
    saved = os.environ.get("LADDER_RESULTS")
    with tempfile.TemporaryDirectory() as folder:
        os.environ["LADDER_RESULTS"] = folder
        try:
            return _run_mix(workers, config, setup, f"sqlite:///{folder}/bench.db")
        finally:
            if saved is None:
                os.environ.pop("LADDER_RESULTS", None)
            else:
                os.environ["LADDER_RESULTS"] = saved


def _run_mix(workers: int, config: TournamentConfig, setup: str | None, db_url: str) -> MixFigures:
    load_before = os.getloadavg()[0]
    report = run_tournament(config, RunOptions(db_url=db_url, workers=workers, progress=False, worker_setup=setup))
    played = max(1, report.played_now)
    return MixFigures(
        workers=workers,
        matches=report.played_now,
        run_seconds=report.seconds,
        matches_per_second=report.played_now / report.seconds,
        cpu_ms_per_match=1000 * report.cpu_seconds / played,
        wall_ms_per_match=1000 * report.busy_seconds / played,
        busy=report.busy_seconds / (workers * report.seconds),
        db_share=report.db_seconds / report.seconds,
        load_before=load_before,
    )


SANDBOXED_BOT = '''"""The built-in random bot, entered as a submitted bot so that it runs sandboxed (the scaling benchmark)."""
from bots.random_bot import RandomBot


class SandboxedRandom(RandomBot):
    name = "{name}"
'''
SANDBOXED_NAMES = ("sandboxed-random-a", "sandboxed-random-b")


def sandboxed_mix(folder: Path) -> tuple[TournamentConfig, str]:
    """A tournament of two sandboxed random bots (every game, two seats) and the database they are registered in.

    The bots are checked and registered as ``ladder submit`` would (their
    files go to the bot store of the results folder, which must be
    ``folder``: set ``LADDER_RESULTS``). Random bots decide at once, so the
    matches are nearly all sandbox round trips: the mix that shows what the
    channel and the placement of bot processes cost at each worker count.
    """
    from ladder.seats.botstore import check_submitted_bot, register

    db_url = f"sqlite:///{folder}/sandboxed.db"
    for name in SANDBOXED_NAMES:
        path = folder / f"{name}.py"
        path.write_text(SANDBOXED_BOT.format(name=name), encoding="utf-8")
        report = check_submitted_bot(str(path), name, allow_root=True)  # the benchmark's own bot: trusted
        if not report.ok:
            raise RuntimeError(f"the benchmark's sandboxed bot fails its check: {report.problem}")
        register(report, db_url)
    config = parse_tournament(
        {"seed": 13, "games": "all", "bots": list(SANDBOXED_NAMES), "players": [2], "games_per_pairing": 6},
        "sandboxed.toml",
        "sandboxed",
    )
    return config, db_url


def measure_scaling(
    worker_counts: Sequence[int],
    cycles: int = 3,
    tournament: Path = QUICK,
    baseline_games: int = 40,
    sandboxed: bool = False,
) -> list[ScalingRow]:
    """For each worker count (1 is measured first whether asked or not): the baseline, then the mix.

    The mix is the ``tournament`` file's, or with ``sandboxed`` the
    :func:`sandboxed_mix` (in a temporary results folder).
    """
    if sandboxed:
        saved = os.environ.get("LADDER_RESULTS")
        with tempfile.TemporaryDirectory(prefix="ladder-scaling-") as folder:
            os.environ["LADDER_RESULTS"] = folder
            try:
                config, db_url = sandboxed_mix(Path(folder))
                return _scaling(worker_counts, cycles, config, baseline_games, db_url)
            finally:
                if saved is None:
                    os.environ.pop("LADDER_RESULTS", None)
                else:
                    os.environ["LADDER_RESULTS"] = saved
    return _scaling(worker_counts, cycles, load_tournament(tournament), baseline_games, None)


def _scaling(
    worker_counts: Sequence[int], cycles: int, config: TournamentConfig, baseline_games: int, db_url: str | None
) -> list[ScalingRow]:
    counts = sorted(set(worker_counts) | {1})
    measured: list[tuple[MixFigures, BaselineFigures]] = []
    for count in counts:
        baseline = hardware_baseline(count, baseline_games)
        measured.append((measure_mix(count, cycles, config, db_url=db_url), baseline))
    one_mix, one_baseline = measured[0]
    rows = []
    for mix, baseline in measured:
        efficiency = mix.matches_per_second / (one_mix.matches_per_second * mix.workers)
        baseline_efficiency = one_baseline.seconds_per_copy / baseline.seconds_per_copy
        rows.append(ScalingRow(mix, baseline, efficiency, baseline_efficiency))
    return [row for row in rows if row.mix.workers in worker_counts]


def scaling_lines(rows: Sequence[ScalingRow]) -> list[str]:
    """The table as plain text lines (what the benchmark prints and docs/benchmarks.md quotes)."""
    lines = [
        f"{'workers':>7} {'matches':>7} {'seconds':>8} {'matches/s':>9} {'efficiency':>10} {'cpu ms/match':>12} "
        f"{'baseline':>8} {'vs baseline':>11} {'busy':>5} {'db share':>8} {'load':>5}"
    ]
    for row in rows:
        mix = row.mix
        lines.append(
            f"{mix.workers:>7} {mix.matches:>7} {mix.run_seconds:>8.1f} {mix.matches_per_second:>9.2f} "
            f"{row.efficiency:>10.0%} {mix.cpu_ms_per_match:>12.0f} {row.baseline_efficiency:>8.0%} "
            f"{row.versus_baseline:>11.0%} {mix.busy:>5.0%} {mix.db_share:>8.1%} {mix.load_before:>5.2f}"
        )
    return lines


def parse_counts(text: str) -> list[int]:
    """``"1,2,4"`` as ``[1, 2, 4]``; ValueError (one sentence) for anything but positive integers."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(
            f"worker counts must be whole numbers separated by commas (e.g. 1,2,4,8), not {text!r}"
        ) from None
    if not counts or any(count < 1 for count in counts):
        raise ValueError(f"worker counts must be 1 or more (e.g. 1,2,4,8), not {text!r}")
    return counts
