"""`ladder bench-sandbox`: what the sandbox costs, per decision and per match.

Three figures:

- the round trip of one trivial request (a small observation, ten legal
  actions, a bot answering at once) through a sandboxed process;
- the time per decision of a random bot in a real game, sandboxed and in
  this process, and their difference (the sandbox's overhead per decision);
- random-bot matches with every seat sandboxed against the same matches
  (same seeds, same choices) with every seat in this process: the baseline is
  :func:`~ladder.matches.match.play_match` with the built-in random bot, which
  computes the observation and the legal actions at every decision, exactly
  as for a sandboxed seat.

Targets: overhead under 100 microseconds per decision (median), sandboxed
matches no more than 3 times slower than in-process ones.

How the matches are timed, so that the comparison is fair on a shared
machine: the bot processes are started and warmed up (one match of each kind)
before any timing; the matches run in blocks (the same seeds both ways),
in-process and sandboxed blocks alternating and taking turns to go first; no
wrapper is timed around the players (the per-decision figures come from a
separate pass). Three slowdowns are reported: the ratio of the total wall
times; the median of the blocks' ratios (a burst of load from other programs
spoils a block or two, not the median); and the ratio of CPU time (the
ladder's thread plus the bot processes, from ``/proc``), which other programs
barely move: on an idle machine, where the ladder and its bots take turns on
one CPU, it is what the wall-clock ratio would be. Under load the wall-clock
ratio is worse than the CPU ratio for a reason that is not the sandbox's
cost: a sandboxed decision hands the CPU to the bot and back, and each
hand-over is a chance for another program to run first, while the in-process
match never gives the CPU away.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from bots.base import MatchStart
from cli.commands.bench import machine
from cli.commands.tables import fitted_table, number_column, print_table
from engine import Game, all_games, get_game
from ladder.matches.forced_moves import ForcedMoves
from ladder.matches.match import MatchSpec, Player, SeatPlayer, play_match
from ladder.sandbox.layers import check_layers, default_layers
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.process import BotProcess
from ladder.sandbox.submission import stage
from ladder.seats.builtin_players import builtin_player
from ladder.seats.players import PlayerPool, current_cpu

RANDOM_BOT_SOURCE = '''"""The built-in random bot, run sandboxed for the benchmark."""
from bots.random_bot import RandomBot


class SandboxedRandom(RandomBot):
    name = "random-sandboxed"
    every_decision = {every}
'''


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@dataclass(frozen=True)
class RoundTrip:
    layers: str
    requests: int
    median_us: float
    p90_us: float
    p99_us: float
    start_ms: float


@dataclass(frozen=True)
class GameFigures:
    game: str
    players: int
    matches: int
    actions: int
    in_process_seconds: float  # wall time of all the in-process matches
    sandboxed_seconds: float  # wall time of the same matches, every seat sandboxed
    in_process_cpu_seconds: float  # CPU time of the ladder's thread (the bots are in it)
    sandboxed_cpu_seconds: float  # CPU time of the ladder's thread and of the bot processes
    block_slowdowns: tuple[float, ...]  # sandboxed / in-process wall time, block by block
    decision_in_process_us: float  # median time of one act() call, in-process random bot
    decision_sandboxed_us: float  # median time of one act() call, sandboxed random bot
    processes_started: int
    pinned: bool  # the ladder and its bots on one CPU (what `ladder play` does)

    @property
    def slowdown(self) -> float:
        """Total sandboxed wall time over total in-process wall time."""
        return self.sandboxed_seconds / self.in_process_seconds

    @property
    def median_slowdown(self) -> float:
        """The median of the blocks' wall-time ratios."""
        return statistics.median(self.block_slowdowns)

    @property
    def cpu_slowdown(self) -> float:
        """Sandboxed CPU time (ladder and bots) over in-process CPU time."""
        return self.sandboxed_cpu_seconds / self.in_process_cpu_seconds

    @property
    def overhead_us(self) -> float:
        return self.decision_sandboxed_us - self.decision_in_process_us


def _random_bot_path(folder: Path, every_decision: bool = False) -> str:
    path = folder / "random_sandboxed.py"
    path.write_text(RANDOM_BOT_SOURCE.format(every=every_decision))
    return str(path)


class _ForcedInProcess(SeatPlayer):
    """The built-in random bot in this process, its forced moves played by the ladder as for a sandboxed seat
    (:mod:`ladder.matches.forced_moves`): the in-process matches then make the same choices as the sandboxed ones."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.forced = ForcedMoves()

    def start(self, match: MatchStart) -> None:
        self.player.start(match)

    def act(self, observation: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        forced = self.forced.answer(observation, legal)
        return self.player.act(observation, legal) if forced is None else forced

    def end(self, result: dict[str, Any]) -> None:
        self.player.end(result)


def measure_round_trip(path: str, layers: tuple[str, ...], requests: int = 3000) -> RoundTrip:
    """Median/p90/p99 of a trivial act request through one sandboxed process (it and this thread on one CPU)."""
    saved = os.sched_getaffinity(0)
    cpu = current_cpu()
    if cpu is not None and cpu in saved:
        os.sched_setaffinity(0, {cpu})
    else:
        cpu = None
    # the benchmark's own random bot is trusted: it may run as root where bubblewrap is left out
    process = BotProcess(stage(path), SandboxLimits(), layers, allow_root=True, cpu=cpu)
    tick = time.perf_counter()
    try:
        process.start()
        start_ms = (time.perf_counter() - tick) * 1000
        process.request(
            {"op": "start", "match": {"game": "bench", "seat": 0, "num_players": 1, "options": {}, "seed": 0}},
            5.0,
            "starting",
        )
        legal = [{"type": "play", "card": i} for i in range(10)]
        observation = {"hand": list(range(8)), "table": [1, 2, 3], "events": []}
        times = []
        for _ in range(requests):
            tick = time.perf_counter()
            process.request({"op": "act", "observation": observation, "legal": legal}, 5.0, "deciding")
            times.append(time.perf_counter() - tick)
    finally:
        process.close()
        os.sched_setaffinity(0, saved)
    return RoundTrip(
        "+".join(layers),
        requests,
        statistics.median(times) * 1e6,
        _percentile(times, 0.9) * 1e6,
        _percentile(times, 0.99) * 1e6,
        start_ms,
    )


class _Timed(SeatPlayer):
    """Wraps a player and records how long each act() takes."""

    def __init__(self, player: Player, times: list[float]) -> None:
        self.player = player
        self.times = times

    def start(self, match: MatchStart) -> None:
        self.player.start(match)

    def act(self, observation: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        tick = time.perf_counter()
        action = self.player.act(observation, legal)
        self.times.append(time.perf_counter() - tick)
        return action

    def end(self, result: dict[str, Any]) -> None:
        self.player.end(result)

    # the wrapped seat's capabilities: play_match's hooks must reach a sandboxed seat as in a tournament
    @property
    def plays_forced_moves(self) -> bool:
        return self.player.plays_forced_moves

    def pause_between_turns(self) -> None:
        self.player.pause_between_turns()

    @property
    def stderr_text(self) -> str:  # type: ignore[override]
        return self.player.stderr_text


def _bot_cpu_seconds(processes: list[BotProcess]) -> float:
    """CPU time used so far by ``processes`` (nanosecond-precise from ``/proc/<pid>/schedstat`` when it exists)."""
    total = 0.0
    for process in processes:
        try:
            with open(f"/proc/{process.bot_pid}/schedstat", "rb") as schedstat:
                total += int(schedstat.read().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            total += process.cpu_seconds_used() or 0.0
    return total


def measure_game(
    game: Game,
    num_players: int,
    path: str,
    layers: tuple[str, ...],
    matches: int,
    pin: bool = True,
    block: int = 20,
    timed_matches: int = 40,
    every_decision: bool = False,
) -> GameFigures:
    """The same ``matches`` random-bot matches in-process and with every seat sandboxed.

    The ladder plays forced moves (one legal action) itself for both kinds, unless ``every_decision`` (the
    bot at ``path`` must then ask for every call): the in-process bot then makes the same choices as the
    sandboxed one.

    The two kinds run in alternating blocks of ``block`` matches (taking turns
    to go first), so that a change in the machine's load hits both alike;
    then ``timed_matches`` more of each give the per-decision times.
    """
    in_process = sandboxed = in_cpu = out_cpu = 0.0
    actions = sandboxed_actions = 0
    ratios: list[float] = []

    def run(seeds: range, sandbox: bool, pool: PlayerPool, wrap: list[float] | None = None) -> int:
        count = 0
        for seed in seeds:
            if sandbox:
                spec = MatchSpec(game.id, (path,) * num_players, seed)
                players: list[Any] = [pool.player(path, game.id) for _ in range(num_players)]
            else:
                spec = MatchSpec(game.id, ("random",) * num_players, seed)
                players = [builtin_player("random", game.id) for _ in range(num_players)]
                if not every_decision:
                    players = [_ForcedInProcess(player) for player in players]
            if wrap is not None:
                players = [_Timed(player, wrap) for player in players]
            outcome = play_match(spec, players)
            if outcome.failures:
                raise RuntimeError(
                    f"a random bot failed ({'sandboxed' if sandbox else 'in-process'}): {dict(outcome.failures)}"
                )
            count += len(outcome.actions)
        return count

    with PlayerPool(layers=layers, pin_cpu=pin) as pool:
        pool.warm(path, num_players)  # start-up is paid once per seat, not per match
        run(range(matches, matches + 1), False, pool)  # warm-up (imports, caches), not timed
        run(range(matches, matches + 1), True, pool)
        for number, first in enumerate(range(0, matches, block)):
            seeds = range(first, min(matches, first + block))
            times: dict[bool, float] = {}
            for sandbox in (False, True) if number % 2 == 0 else (True, False):
                bots = pool.processes()
                cpu_before, bot_before, tick = time.thread_time(), _bot_cpu_seconds(bots), time.perf_counter()
                count = run(seeds, sandbox, pool)
                wall, cpu = time.perf_counter() - tick, time.thread_time() - cpu_before
                times[sandbox] = wall
                if sandbox:
                    sandboxed, sandboxed_actions = sandboxed + wall, sandboxed_actions + count
                    out_cpu += cpu + _bot_cpu_seconds(bots) - bot_before
                else:
                    in_process, actions, in_cpu = in_process + wall, actions + count, in_cpu + cpu
            ratios.append(times[True] / times[False])
        in_times: list[float] = []
        out_times: list[float] = []
        timed = range(matches + 1, matches + 1 + timed_matches)
        run(timed, False, pool, in_times)
        run(timed, True, pool, out_times)
        started = pool.started
    if sandboxed_actions != actions:
        raise RuntimeError("the sandboxed matches differ from the in-process ones")
    return GameFigures(
        game.id,
        num_players,
        matches,
        actions,
        in_process,
        sandboxed,
        in_cpu,
        out_cpu,
        tuple(ratios),
        statistics.median(in_times) * 1e6,
        statistics.median(out_times) * 1e6,
        started,
        pin,
    )


def run_benchmark(
    game_ids: list[str] | None = None,
    matches: int = 200,
    requests: int = 3000,
    layers: tuple[str, ...] | None = None,
    pinning: tuple[bool, ...] = (True, False),
    every_decision: bool = False,
) -> dict[str, Any]:
    """Every figure as plain data (what the command prints and docs/benchmarks.md quotes); ``every_decision``:
    the sandboxed bot is asked every decision (as before forced moves were played by the ladder)."""
    chosen = check_layers(layers) if layers else default_layers()
    games = [get_game(g) for g in game_ids] if game_ids else all_games()
    with tempfile.TemporaryDirectory(prefix="ladder-bench-") as folder:
        path = _random_bot_path(Path(folder), every_decision)
        trips = [measure_round_trip(path, chosen, requests)]
        if chosen != ("process",) and "process" in chosen and "bubblewrap" in chosen:
            trips.append(measure_round_trip(path, tuple(layer for layer in chosen if layer != "bubblewrap"), requests))
        figures = [
            measure_game(
                game,
                2 if game.min_players <= 2 <= game.max_players else game.min_players,
                path,
                chosen,
                matches,
                pin,
                every_decision=every_decision,
            )
            for pin in pinning
            for game in games
        ]
    return {
        "machine": machine(),
        "layers": list(chosen),
        "every_decision": every_decision,
        "round_trips": [asdict(t) for t in trips],
        "games": [
            asdict(f)
            | {
                "slowdown": f.slowdown,
                "median_slowdown": f.median_slowdown,
                "cpu_slowdown": f.cpu_slowdown,
                "overhead_us": f.overhead_us,
            }
            for f in figures
        ],
    }


def _worker_counts(text: str | None) -> list[int]:
    """The ``--workers`` list; a one-line error for anything else."""
    if not text:
        return []
    from tournaments.coordinator.scaling import parse_counts

    try:
        return parse_counts(text)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--workers") from None


def _scaling(counts: list[int], cycles: int) -> dict[str, Any]:
    """The scaling figures of sandboxed random bots at ``counts`` workers, as data and as table lines."""
    from tournaments.coordinator.scaling import measure_scaling, scaling_lines

    rows = measure_scaling(counts, cycles, sandboxed=True)
    return {
        "rows": [
            asdict(r.mix)
            | {
                "efficiency": r.efficiency,
                "baseline_efficiency": r.baseline_efficiency,
                "versus_baseline": r.versus_baseline,
            }
            for r in rows
        ],
        "lines": scaling_lines(rows),
    }


def bench_sandbox(
    game_ids: Annotated[
        list[str] | None, typer.Argument(metavar="[GAME]...", help="Games to measure (default: all).")
    ] = None,
    matches: Annotated[int, typer.Option("--matches", min=1, help="Random-bot matches per game.")] = 200,
    requests: Annotated[
        int, typer.Option("--requests", min=10, help="Trivial requests for the round-trip figure.")
    ] = 3000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    workers: Annotated[
        str | None,
        typer.Option(
            "--workers",
            metavar="N,N,...",
            help="Also run a tournament of sandboxed random bots at these worker counts (e.g. 1,2,4,8,16) beside the "
            "hardware baseline (N copies of a CPU-bound engine loop).",
        ),
    ] = None,
    cycles: Annotated[int, typer.Option("--cycles", min=1, help="Cycles of that tournament per worker count.")] = 3,
    every_decision: Annotated[
        bool,
        typer.Option(
            "--every-decision",
            help="Ask the sandboxed bot every decision, forced moves (one legal action) included, "
            "as a bot with every_decision = True is.",
        ),
    ] = False,
    pinned_only: Annotated[
        bool,
        typer.Option(
            "--pinned-only",
            help="Only the pinned runs (the ladder and its bots "
            "on one CPU, as tournament workers and "
            "`ladder play` run them).",
        ),
    ] = False,
) -> None:
    """Measure the sandbox's cost: request round trip, overhead per decision, sandboxed vs in-process matches."""
    counts = _worker_counts(workers)
    data = run_benchmark(
        game_ids, matches, requests, pinning=(True,) if pinned_only else (True, False), every_decision=every_decision
    )
    if counts:
        data["scaling"] = _scaling(counts, cycles)
    if as_json:
        print(json.dumps(data, indent=2))
        return
    console = Console()
    trips = fitted_table(f"Round trip of a trivial request ({data['machine']})")
    for column in ("layers", "requests", "median µs", "p90 µs", "p99 µs", "process start ms"):
        number_column(trips, column, left=column == "layers")
    for t in data["round_trips"]:
        trips.add_row(
            t["layers"],
            str(t["requests"]),
            f"{t['median_us']:.0f}",
            f"{t['p90_us']:.0f}",
            f"{t['p99_us']:.0f}",
            f"{t['start_ms']:.0f}",
        )
    print_table(console, trips)
    games = fitted_table(f"Random-bot matches, sandboxed ({'+'.join(data['layers'])}) vs in-process")
    for column in (
        "game",
        "seats",
        "pinned",
        "actions",
        "in-process s",
        "sandboxed s",
        "slowdown",
        "by blocks",
        "by CPU",
        "µs/decision added",
    ):
        number_column(games, column, left=column == "game")
    for g in data["games"]:
        games.add_row(
            g["game"],
            str(g["players"]),
            "yes" if g["pinned"] else "no",
            str(g["actions"]),
            f"{g['in_process_seconds']:.2f}",
            f"{g['sandboxed_seconds']:.2f}",
            f"{g['slowdown']:.2f}x",
            f"{g['median_slowdown']:.2f}x",
            f"{g['cpu_slowdown']:.2f}x",
            f"{g['overhead_us']:.0f}",
        )
    print_table(console, games)
    if counts:
        console.print(
            f"Sandboxed random bots, every game, {cycles} cycle(s), at N workers (each pinned with its bots to "
            "a CPU of its own), beside N copies of a CPU-bound engine loop (baseline):",
            highlight=False,
        )
        console.print("\n".join(data["scaling"]["lines"]), highlight=False, markup=False)
    console.print(
        f"{matches} matches per game, in alternating blocks; slowdown: total wall time sandboxed / in-process; "
        "by blocks: the median of the blocks' ratios; by CPU: CPU time of the ladder and the bots / "
        "in-process (what the wall-clock ratio is on an idle machine). µs/decision added: median time of a "
        "sandboxed act() minus an in-process one. Pinned: the ladder and its bots on one CPU, as `ladder play` "
        "does with a sandboxed seat.",
        highlight=False,
    )
