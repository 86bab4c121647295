"""`ladder play`: play N deals of a game (in this process, or shared out among `--workers`) and print a summary per bot."""

from __future__ import annotations

import itertools
import json
import multiprocessing
import multiprocessing.util
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing.queues import Queue
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from tqdm import tqdm

from cli.commands.dbview import compact_table
from engine import Game, get_game
from ladder.matches.match import MatchOutcome, MatchSpec, play_match
from ladder.ratings.summary import (
    APPROXIMATE_MIN_DEALS,
    CONFIDENCE,
    BotTally,
    Difference,
    paired_differences,
    score_histogram,
    tally,
)
from ladder.sandbox.host_load import usable_cores, worker_cpus
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.packages import allowed_packages
from ladder.sandbox.submission import Submission
from ladder.seats.players import PlayerPool, is_builtin


def short_label(ref: str) -> str:
    """How a bot is named in the tables: a file or folder by its name without the path and ``.py``."""
    if "/" in ref or ref.endswith(".py"):
        path = Path(ref.rstrip("/"))
        return path.stem if path.suffix == ".py" else (path.name or ref)
    return ref


def seat_labels(bots: list[str]) -> list[str]:
    """Short labels that tell apart the same bot named twice (``random#1``, ``random#2``); a bot file is
    named by its file name (``crashy`` for ``/home/me/bots/crashy.py``), unless another bot would then
    share its label (a file ``random.py`` beside the built-in ``random``): then by its path as given."""
    shorts = {ref: short_label(ref) for ref in bots}
    owners: dict[str, set[str]] = {}
    for ref, short in shorts.items():
        owners.setdefault(short, set()).add(ref)
    names = [shorts[ref] if len(owners[shorts[ref]]) == 1 else ref for ref in bots]
    counts = {name: names.count(name) for name in names}
    seen: dict[str, int] = {}
    labels = []
    for name in names:
        if counts[name] > 1:
            seen[name] = seen.get(name, 0) + 1
            labels.append(f"{name}#{seen[name]}")
        else:
            labels.append(name)
    return labels


MAX_PERMUTED_SEATS = 4  # up to 4 bots every order of the bots is a seating (24); above, the rotations


def seatings(count: int) -> list[tuple[int, ...]]:
    """The seatings of a table of ``count`` bots, as the index of the bot in each seat: every order of
    the bots up to MAX_PERMUTED_SEATS (each bot sits in every seat and follows every other bot equally
    often), else the rotations (each bot sits once in each seat)."""
    if count <= MAX_PERMUTED_SEATS:
        return list(itertools.permutations(range(count)))
    return [tuple((seat + shift) % count for seat in range(count)) for shift in range(count)]


Deal = list[tuple[MatchSpec, list[int]]]  # one deal's matches, each with the index into the bots of each seat's bot


def schedule(game: Game, bots: list[str], games: int, seed: int, options: dict) -> list[Deal]:
    """The matches to play, grouped by deal, each with the index into ``bots`` of the bot at each seat.

    Deal ``i`` uses seed ``seed + i``. In a solitaire every bot plays every
    deal (the same cards, side by side); at a table the deal is played in
    every seating (see :func:`seatings`), so neither the cards nor the seat
    favour a bot.
    """
    plan: list[Deal] = []
    for i in range(games):
        if game.facts.solitaire:
            plan.append([(MatchSpec(game.id, (name,), seed + i, options), [index]) for index, name in enumerate(bots)])
        else:
            plan.append(
                [
                    (MatchSpec(game.id, tuple(bots[j] for j in order), seed + i, options), list(order))
                    for order in seatings(len(bots))
                ]
            )
    return plan


def play(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id (see `ladder games`).")],
    bots: Annotated[
        list[str],
        typer.Argument(metavar="BOT...", help="One bot per seat (a solitaire: each bot plays the same deals)."),
    ],
    games: Annotated[
        int,
        typer.Option(
            "-n",
            "--games",
            min=1,
            help="How many deals; at a table each deal is played in every seating (2 bots: 2 matches a deal, 3 bots: 6); in a solitaire each bot plays each deal.",
        ),
    ] = 100,
    seed: Annotated[int, typer.Option("--seed", help="Deal i uses seed SEED+i.")] = 0,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Game option key=value; repeatable.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    require_layer: Annotated[
        list[str] | None,
        typer.Option(
            "--require-layer",
            metavar="LAYER",
            help="Refuse to run unless this sandbox layer (process, bubblewrap, seccomp) is available; repeatable.",
        ),
    ] = None,
    allow_package: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-package", metavar="PACKAGE", help="An installed package sandboxed bots may import; repeatable."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", "-w", min=1, help="Play the deals in this many processes (the results are the same as in one)."
        ),
    ] = 1,
) -> None:
    """Play N deals (every seating of each) and summarise them per bot, with each bot's difference from the first
    and its confidence interval (built-in bots in this process, bot files sandboxed)."""
    game = get_game(game_id)
    options = game.parse_options(option or [])
    if not game.facts.solitaire:
        game.check_num_players(len(bots))
        game.check_options_for_players(len(bots), options)
    labels = seat_labels(bots)
    plan = schedule(game, bots, games, seed, options)
    deals = play_deals(
        game,
        bots,
        plan,
        labels,
        SandboxLimits(packages=allowed_packages(allow_package or ())),
        require_layer or (),
        quiet=as_json,
        workers=workers,
    )
    outcomes = [match for deal in deals for match in deal]
    tallies = tally(outcomes)
    differences = paired_differences(deals, labels) if len(labels) > 1 else []
    failure = first_failure(outcomes)
    if as_json:
        print(
            json.dumps(
                {
                    "game": game.id,
                    "options": options,
                    "games": games,
                    "matches": len(outcomes),
                    "seed": seed,
                    "bots": [t.to_json() for t in tallies],
                    "differences": [d.to_json() for d in differences],
                    "first_failure": failure,
                },
                indent=2,
            )
        )
    else:
        print_summary(game, options, games, seed, tallies)
        print_differences(game, differences, len(outcomes))
        if failure is not None:
            print_first_failure(failure)


def play_deals(
    game: Game,
    bots: list[str],
    plan: list[Deal],
    labels: list[str],
    limits: SandboxLimits,
    require: Iterable[str],
    quiet: bool,
    workers: int = 1,
) -> list[list[tuple[MatchOutcome, list[str]]]]:
    """Play every match of ``plan``, deal by deal, each with its seats' labels; a progress bar on stderr
    unless ``quiet``. Each bot is checked once before the first match, and a sandboxed one is pinned to a core.

    With ``workers`` above 1 the deals are shared out among that many processes (each with its own
    players, playing the bot files checked and staged here; pinned one per CPU when a seat is sandboxed
    and there are CPUs enough); the matches and their results are the same as in one process, since a
    match depends only on its deal's seed and the bots' own seeds (unless a sandboxed bot carries
    something over from one match to the next in its process, or runs out of wall-clock time on a
    machine with fewer CPUs than workers: a warning says so).
    """
    require = tuple(require)
    sandboxed = any(not is_builtin(name) for name in bots)
    with PlayerPool(limits=limits, require=require, pin_cpu=sandboxed and workers == 1) as pool:
        for name in bots:
            pool.check(name, game.id)
        staged = {name: pool.submission(name) for name in bots if not is_builtin(name)}  # built and copied once
        with tqdm(
            total=sum(len(deal) for deal in plan), unit="match", delay=1.0, file=sys.stderr, disable=quiet or None
        ) as progress:
            if workers == 1:
                played = [_play_deal(pool, deal, progress.update) for deal in plan]
            else:
                pool.close()
                played = _play_in_workers(plan, workers, _WorkerSetup(limits, require, staged), progress.update)
    return [
        [(outcome, [labels[j] for j in order]) for outcome, (_, order) in zip(outcomes, deal)]
        for outcomes, deal in zip(played, plan)
    ]


def _play_deal(pool: PlayerPool, deal: Deal, done: Callable[[int], object] = lambda _: None) -> list[MatchOutcome]:
    outcomes = []
    for spec, _ in deal:
        outcomes.append(play_match(spec, [pool.player(name, spec.game) for name in spec.seats]))
        done(1)
    return outcomes


@dataclass(frozen=True)
class _WorkerSetup:
    """What a `ladder play --workers` process needs to play: the limits, the sandbox layers required,
    and the bot files checked and staged by the main process (not staged or built again per worker)."""

    limits: SandboxLimits
    require: tuple[str, ...]
    staged: dict[str, Submission]


def _play_in_workers(
    plan: list[Deal], workers: int, setup: _WorkerSetup, done: Callable[[int], object]
) -> list[list[MatchOutcome]]:
    context = multiprocessing.get_context("forkserver")
    cpus = None
    if setup.staged:
        cpus = worker_cpus(workers)
        if workers > usable_cores():
            print(
                f"warning: {workers} workers on {usable_cores()} usable cores: sandboxed bots will wait for a CPU "
                f"and may run out of wall-clock time; use --workers {usable_cores()} or fewer",
                file=sys.stderr,
            )
    cpu_queue = context.Queue() if cpus else None
    for cpu in cpus or ():
        assert cpu_queue is not None
        cpu_queue.put(cpu)
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(setup, cpu_queue)
    ) as executor:
        played = []
        for outcomes in executor.map(_play_deal_in_worker, plan):
            played.append(outcomes)
            done(len(outcomes))
    return played


_worker_pool: PlayerPool | None = None  # the players of this worker process (see _start_worker)


def _start_worker(setup: _WorkerSetup, cpus: Queue[int] | None) -> None:
    """Set up a `ladder play --workers` process: its own players, pinned to a CPU of its own if given one."""
    global _worker_pool
    _worker_pool = PlayerPool(
        limits=setup.limits,
        require=setup.require,
        submissions=setup.staged,
        pin_cpu=cpus.get() if cpus is not None else False,
    )
    multiprocessing.util.Finalize(_worker_pool, _worker_pool.close, exitpriority=10)


def _play_deal_in_worker(deal: Deal) -> list[MatchOutcome]:
    assert _worker_pool is not None, "a worker plays only after _start_worker"
    return _play_deal(_worker_pool, deal)


def first_failure(outcomes: list[tuple[MatchOutcome, list[str]]]) -> dict[str, Any] | None:
    """The first failed seat of the batch: which bot, in which match, why, and its traceback."""
    for outcome, labels in outcomes:
        for seat, failure in sorted(outcome.failures.items()):
            return {"bot": labels[seat], "seat": seat, "seed": outcome.spec.seed, "seats": labels} | failure.to_json()
    return None


def print_first_failure(failure: dict[str, Any]) -> None:
    console = Console()
    console.print(
        Text(
            f"first failure: {failure['bot']} in seat {failure['seat']} (seats {', '.join(failure['seats'])}; "
            f"seed {failure['seed']}), after {failure['at_action']} actions: {failure['reason']}: "
            f"{failure['detail']}",
            style="yellow",
        )
    )
    for line in failure["stderr_tail"].strip().splitlines():
        console.print(Text(f"  | {line}", style="dim"))


def print_differences(game: Game, differences: list[Difference], matches: int) -> None:
    """Each bot against the first, paired by deal, with its interval and whether it is significant."""
    if not differences:
        return
    console = Console()
    seated = "" if game.facts.solitaire else f", each deal played in every seating ({matches} matches)"
    table = compact_table(
        f"difference from {differences[0].baseline}, paired by deal{seated}",
        f"{CONFIDENCE:.0%} confidence interval; paired: the ladder's verdict statistic (rank and score "
        f"margin per deal, docs/verdict.md), its interval valid however many deals are played; the "
        f"others: Student's t over the deals, a verdict from {APPROXIMATE_MIN_DEALS} deals on",
    )
    for column in ("bot", "measure", "deals", "difference", "interval", "verdict"):
        table.add_column(
            column, justify="left" if column in ("bot", "measure", "verdict") else "right", no_wrap=column != "verdict"
        )
    for d in differences:
        # + 0.0: a mean of -0.0 (no difference, signed by the float) is shown as +0.0
        shown = (lambda x: f"{x + 0.0:+.1%}") if d.measure == "win rate" else (lambda x: f"{x + 0.0:+.2f}")  # noqa: E731
        interval = "-" if d.deals < 2 else f"{shown(d.low)} to {shown(d.high)}"
        if d.deals < 2:
            verdict = "one deal: no interval"
        elif d.significant:
            verdict = (
                f"{d.bot} "
                + {
                    "paired": ("is better", "is worse"),
                    "score": ("scores higher", "scores lower"),
                    "win rate": ("wins more", "wins less"),
                    "rank": ("ranks behind", "ranks ahead"),
                }[d.measure][0 if d.mean > 0 else 1]
            )
        elif d.measure != "paired" and d.deals < APPROXIMATE_MIN_DEALS:
            verdict = f"too few deals for a verdict ({APPROXIMATE_MIN_DEALS} at least)"
        else:
            verdict = "not significant (more deals: -n)"
        table.add_row(Text(d.bot), d.measure, str(d.deals), shown(d.mean), interval, verdict)
    console.print(table)


def _wins_cell(row: dict[str, Any]) -> str:
    """``12 (40.0%)``, or ``-`` for a game with no notion of winning (its facts say so)."""
    return "-" if row["win_rate"] is None else f"{row['wins']} ({row['win_rate']:.1%})"


def print_summary(game: Game, options: dict, games: int, seed: int, tallies: list[BotTally]) -> None:
    """A compact table per bot, then the game's own details side by side (one column per bot)."""
    console = Console()
    solitaire = game.facts.solitaire
    rows = [t.to_json() for t in tallies]
    console.print(_bot_table(_summary_title(game, options, games, seed), rows, solitaire))
    details = _details_table(rows)
    if details is not None:
        console.print(details)
    listed = print_listed_details(console, game, rows)
    for tally_ in tallies:
        counts = {
            key: value for key, value in tally_.to_json().items() if key.endswith("_counts") and key not in listed
        }
        if not solitaire and not counts:
            continue
        console.print(Text(tally_.label, style="bold"))
        if solitaire:
            _print_score_histogram(console, tally_.scores)
        _print_shares(console, counts)


def _summary_title(game: Game, options: dict, games: int, seed: int) -> str:
    """The deals played and any option that is not the game's default."""
    title = f"{game.id}: {games} deals, seeds {seed}..{seed + games - 1}"
    non_default = {k: v for k, v in options.items() if game.default_options().get(k) != v}
    if non_default:
        title += "  options " + " ".join(f"{k}={v}" for k, v in non_default.items())
    return title


def _bot_table(title: str, rows: list[dict[str, Any]], solitaire: bool) -> Table:
    """A row per bot: games, wins, score and rank (at a table) or the score's spread (in a solitaire), failures."""
    table = Table(title=title)
    table.add_column("bot", overflow="fold")  # the only column that gives way at 80 columns: numbers stay whole
    table.add_column("games", justify="right", no_wrap=True)
    table.add_column("win rate" if solitaire else "wins", justify="right", no_wrap=True)
    table.add_column("mean score", justify="right", no_wrap=True)
    if solitaire:
        table.add_column("sd", justify="right", no_wrap=True)
        table.add_column("min/median/max", justify="right", no_wrap=True)
    else:
        table.add_column("mean rank", justify="right", no_wrap=True)
    table.add_column("failures", no_wrap=True)
    for row in rows:
        table.add_row(*_bot_cells(row, solitaire))
    return table


def _bot_cells(row: dict[str, Any], solitaire: bool) -> list[str]:
    cells = [row["bot"], str(row["games"])]
    if solitaire:
        win_rate = "-" if row["win_rate"] is None else f"{row['win_rate']:.1%}"
        cells += [
            win_rate,
            f"{row['mean_score']:.2f}",
            f"{row['score_stdev']:.2f}",
            f"{row['score_min']:g}/{row['score_median']:g}/{row['score_max']:g}",
        ]
    else:
        cells += [_wins_cell(row), f"{row['mean_score']:.2f}", f"{row['mean_rank']:.2f}"]
    cells.append(", ".join(f"{reason} {count}" for reason, count in row["failures"].items()) or "-")
    return cells


def _details_table(rows: list[dict[str, Any]]) -> Table | None:
    """The game's own yes/no and number details (rates and means), a column per bot; None when it has none."""
    detail_keys = [
        k
        for k in rows[0]
        if (k.endswith("_rate") and k != "win_rate") or (k.startswith("mean_") and k not in ("mean_score", "mean_rank"))
    ]
    if not detail_keys:
        return None
    details = Table(title="details (per match)")
    details.add_column("", no_wrap=True)
    for row in rows:
        details.add_column(row["bot"], justify="right", no_wrap=True)
    for key in detail_keys:
        label = key.removeprefix("mean_").removesuffix("_rate").replace("_", " ")
        label = f"{label} (rate)" if key.endswith("_rate") else f"{label} (mean)"
        details.add_row(
            label,
            *[
                (f"{row[key]:.1%}" if key.endswith("_rate") else f"{row[key]:.2f}") if key in row else ""
                for row in rows
            ],
        )
    return details


def _print_score_histogram(console: Console, scores: list[float]) -> None:
    """A solitaire bot's final scores as a bar chart of at most 30 characters."""
    histogram = score_histogram(scores)
    peak = max(count for _, count in histogram) or 1
    console.print("  final scores", highlight=False)
    for label, count in histogram:
        bar = "#" * (max(1, round(30 * count / peak)) if count else 0)
        console.print(f"  {label:>8} | {bar:<30} {count}", highlight=False, markup=False)


def _print_shares(console: Console, counts: dict[str, dict[str, int]]) -> None:
    """Each text detail's values as shares of the bot's matches, most common first."""
    for key, value in counts.items():
        total = sum(value.values())
        parts = ", ".join(f"{name} {count / total:.1%}" for name, count in value.items())
        console.print(f"  {key.removesuffix('_counts').replace('_', ' ')}: {parts}", highlight=False, markup=False)


def print_listed_details(console: Console, game: Game, rows: list[dict]) -> set[str]:
    """A table per text detail whose every value the game lists (e.g. Elevenses for One's rating
    bands): a row per value, even one that never occurred, with the game's note saying why; each
    bot's share per value. Returns the ``*_counts`` keys it printed."""
    printed: set[str] = set()
    keys = dict.fromkeys(key for row in rows for key in row if key.endswith("_counts"))
    for key in keys:
        detail = key.removesuffix("_counts")
        values = game.detail_values(detail)
        if not values:
            continue
        table = Table(title=f"{detail.replace('_', ' ')} (share of {'deals' if game.facts.solitaire else 'matches'})")
        table.add_column(detail.replace("_", " "), no_wrap=True)
        for row in rows:
            table.add_column(row["bot"], justify="right", no_wrap=True)
        table.add_column("note")
        for value in values:
            cells = []
            for row in rows:
                counts = row.get(key, {})
                total = sum(counts.values())
                cells.append(f"{counts.get(value.value, 0) / total:.1%}" if total else "-")
            table.add_row(value.value, *cells, value.note)
        console.print(table)
        printed.add(key)
    return printed
