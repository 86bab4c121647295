"""`ladder run FILE`: run (or resume) a tournament, then print its rankings."""

from __future__ import annotations

import json
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from cli.commands.dbview import DbOption, database
from cli.commands.rankings import print_rankings
from ladder.errors import UserError
from ladder.text import clean_text
from tournaments.coordinator.dry_run import plan_tournament
from tournaments.coordinator.run_options import RunOptions
from tournaments.coordinator.runner import run_tournament
from tournaments.executors.backends import check_backend
from tournaments.formats.config import check_scheduler_address

if TYPE_CHECKING:
    from sqlmodel import Session

    from tournaments.coordinator.run_options import RunReport


def run(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="A tournament file (a path), or the name of a ready-made one shipped with the ladder: quick, showcase, overnight, known-order.",
        ),
    ],
    hours: Annotated[
        float | None, typer.Option("--hours", help="Time budget: play cycles of the schedule until it is spent.")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Worker processes (default: the file's, else one per core); with --backend dask and no --scheduler, the workers of the local cluster it starts.",
        ),
    ] = None,
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            metavar="local|dask",
            help='Where the matches are played: worker processes on this machine (local, the default) or a Dask cluster (dask; pip install "card-ladder\\[dask]").',
        ),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="tcp://HOST:PORT",
            help="A running Dask scheduler to play on (implies --backend dask); without it --backend dask starts a local cluster.",
        ),
    ] = None,
    db: DbOption = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show the progress bar.")] = True,
    show_rankings: Annotated[
        bool, typer.Option("--rankings/--no-rankings", help="Print the rankings at the end.")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print what the run did as JSON (no rankings).")] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Only show what would be played (matches per game and table size) and how long it should take; "
            "with --hours, under that budget.",
        ),
    ] = False,
    deal_secret: Annotated[
        str | None,
        typer.Option(
            "--deal-secret",
            metavar="HEX",
            help="Deal a new tournament from this secret (64 hex digits, as `ladder tournaments` shows a revealed one) instead of a fresh one: two runs with the same secret get the same deals. Deals from a revealed secret are public: use it to reproduce, not for a tournament that counts.",
        ),
    ] = None,
    require_layer: Annotated[
        list[str] | None,
        typer.Option(
            "--require-layer",
            metavar="LAYER",
            help="Refuse to start unless this sandbox layer (process, bubblewrap, seccomp) is available; repeatable.",
        ),
    ] = None,
) -> None:
    """Run a tournament file; run it again to resume (only the missing matches are played).

    Ctrl-C stops cleanly (the matches in flight finish and are kept; a second
    Ctrl-C abandons them). Logs of every worker go to results/logs/.
    With --backend dask the matches are played on a Dask cluster (see docs/dask.md).
    """

    scheduler = _checked_options(hours, backend, scheduler)
    if dry_run:
        plan = plan_tournament(file, db, workers, hours)
        if as_json:
            print(json.dumps(plan, indent=2))
            return
        print_plan(plan)
        return
    report = run_tournament(
        file,
        RunOptions(
            hours=hours,
            workers=workers,
            db_url=db,
            progress=progress and not as_json,
            backend=backend,
            scheduler=scheduler,
            deal_secret=deal_secret,
            require_layers=tuple(require_layer or ()),
        ),
    )
    if as_json:
        print(json.dumps(report.to_json(), indent=2))
        if report.state == "stopped":
            raise typer.Exit(130)
        return
    console = Console()
    _print_report(console, report)
    if show_rankings and report.recorded:
        from tournaments.formats.config import load_tournament

        games = [entry.game for entry in load_tournament(file).games]
        with database(db) as session:
            _print_final_rankings(session, games, console, report)
    if report.state == "stopped":
        raise typer.Exit(130)  # stopped by Ctrl-C: what was played is kept; run again to resume


def _print_final_rankings(session: Session, games: list[str], console: Console, report: RunReport) -> None:
    """The run's games' leaderboards: of this tournament's matches when the database holds others too, so that they
    say what the run's own notes say (a pool settled here is not unsettled by another tournament's bots)."""
    from ladder.ratings import persistence, trueskill_model

    facts = persistence.load_match_facts(session, report.tournament_id)
    if len(facts) == persistence.played_matches_marker(session)[0]:  # its matches are all there are
        print_rankings(session, games, console, overall=True, facts=facts)
        return
    scope = f"in tournament {report.name} #{report.tournament_id}; `ladder rankings` for the whole database"
    rated = trueskill_model.compute(facts, history=False)
    print_rankings(session, games, console, overall=True, rated=rated, scope=scope, facts=facts)


def _checked_options(hours: float | None, backend: str | None, scheduler: str | None) -> str | None:
    """Refuse options that cannot work together before anything starts; return the scheduler's address
    in its checked form."""

    if hours is not None and hours <= 0:
        raise UserError(f"--hours must be more than 0, not {hours:g}")
    if backend is not None:
        check_backend(backend)
    if scheduler is not None:
        if backend not in (None, "dask"):
            raise UserError(f"--scheduler names a Dask scheduler: it needs --backend dask, not --backend {backend}")
        scheduler = check_scheduler_address(scheduler)
    return scheduler


def _print_report(console: Console, report: RunReport) -> None:
    """What the run did: its notes and benchings, what it played, the state of its deal secret, its log."""
    for note in report.notes:
        console.print(f"note: {note}", style="yellow", highlight=False, markup=False)
    for label, reason in report.benched.items():
        console.print(
            f"benched {label}: {clean_text(reason, one_line=True)}", style="yellow", highlight=False, markup=False
        )
    rate = report.played_now / report.seconds if report.seconds else 0.0
    finished = (
        report.played_now + report.skipped_now + report.errors_now + report.voided_now + report.unplayable_now
    )  # the progress bar's count: every match this run recorded
    console.print(
        f"tournament {report.name} #{report.tournament_id}: {report.state}, {report.recorded} of {report.scheduled} "
        f"matches recorded; this run finished {finished} in {report.seconds:.0f} s ({rate:.1f} played/s, "
        f"{report.workers} worker{'s' if report.workers != 1 else ''}"
        + (f" on Dask at {report.scheduler}" if report.backend == "dask" else "")
        + ")"
        + f": played {report.played_now}"
        + (f", skipped {report.skipped_now}" if report.skipped_now else "")
        + (f", {report.errors_now} errors" if report.errors_now else "")
        + (f", {report.voided_now} voided for a host fault (run again to replay them)" if report.voided_now else "")
        + (
            f", {report.unplayable_now} unplayable (voided again for a host fault: not played again, counted for "
            "nothing; see `ladder matches --status unplayable`)"
            if report.unplayable_now
            else ""
        )
        + (f", {report.abandoned} abandoned" if report.abandoned else ""),
        highlight=False,
    )
    if report.deal_secret:
        console.print(
            f"deal secret revealed: {report.deal_secret} (its sha256 {report.deal_commitment[:16]}... "
            "is the commitment published at the start)",
            highlight=False,
        )
    elif report.deal_commitment:
        console.print(
            f"deals sealed: commitment {report.deal_commitment[:16]}...; the secret is revealed when the "
            "tournament ends",
            style="dim",
            highlight=False,
        )
    console.print(f"log: {report.log_path}", style="dim", highlight=False, markup=False)


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def print_plan(plan: dict[str, Any]) -> None:
    """What `run --dry-run` says: the schedule, whether the run resumes, what is left and how long it should take."""
    console = Console()
    say = partial(console.print, highlight=False, markup=False)
    for note in plan["notes"]:
        console.print(f"note: {note}", style="yellow", highlight=False, markup=False)
    for game, bots in plan["bots"].items():
        say(f"{game}: {', '.join(bots) or 'no bot'}")
    for table, count in plan["matches"].items():
        say(f"  {table}: {count} matches per cycle")
    budget = f", or cycles until {plan['hours']:g} h are spent" if plan["hours"] else ""
    adaptive = plan["adaptive"]
    if adaptive:
        budget = f"; the run stops at {plan['hours']:g} h" if plan["hours"] else ""
        say(
            f"{plan['name']}: adaptive: a warm-up of {plan['per_cycle']} matches, then rounds where each pool is "
            f"least sure until it is settled at {adaptive['confidence']:.0%} or has played "
            f"{adaptive['max_matches']} matches{budget}; the counts and the estimate below are the warm-up's only"
        )
    else:
        say(f"{plan['name']}: {plan['per_cycle']} matches per cycle, {plan['cycles']} cycle(s){budget}")
    resumes = plan["resumes"]
    if resumes is None:
        say(f"starts a new tournament: no tournament {plan['name']!r} with this seed and these games in the database")
    else:
        say(
            f"resumes tournament {plan['name']} #{resumes['tournament']} ({resumes['state']}): {resumes['recorded']} matches "
            f"already recorded, {plan['to_play']} to play"
        )
    estimate = plan["estimate"]
    if plan["to_play"] == 0:
        say("nothing left to play" + (" (the time budget would start new cycles)" if plan["hours"] else ""))
    else:
        say(_estimate_line(estimate))


def _estimate_line(estimate: dict[str, Any]) -> str:
    """The dry run's time estimate, with what it rests on (:mod:`tournaments.formats.estimate`)."""
    workers = estimate["workers"]
    line = (
        f"estimated time: about {duration(estimate['seconds'])} with {workers} worker{'s' if workers != 1 else ''} "
        f"({duration(estimate['match_seconds'])} of matches, {duration(estimate['startup_seconds'])} to start and rate)"
    )
    sources = []
    if estimate["by_history"]:
        sources.append(
            f"{estimate['by_history']} matches from the mean time of {estimate['from_matches']} stored matches "
            "of the same bots at the same table"
        )
    if estimate["by_built_in_costs"]:
        sources.append(
            f"{estimate['by_built_in_costs']} from the built-in bots' measured CPU costs on an idle machine "
            f"({', '.join(estimate['tables_from_costs'])}; a submitted bot not played here is assumed to "
            "think as long as the search bot)"
        )
    return line + ": " + "; ".join(sources)
