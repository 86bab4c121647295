"""`ladder submit` and `ladder validate`: check a bot in the sandbox, then register it (submit only)."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from cli.commands.options import DbOption
from ladder.errors import UserError
from ladder.sandbox.build import BuildLimits
from ladder.sandbox.layers import default_layers, require_layers
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.packages import allowed_packages
from ladder.sandbox.submission import read_files
from ladder.seats.botstore import CheckReport, check_submitted_bot, register
from ladder.seats.check_cache import Reused, check_key, recall, remember
from ladder.text import clean_text

PathArgument = Annotated[
    str, typer.Argument(metavar="PATH", help="The bot: a .py file, or a folder with bot.py or bot.toml.")
]
NameOption = Annotated[
    str | None,
    typer.Option(
        "--name", help="Use this name instead of the bot's own (its class's or bot.toml's `name`); submit registers it."
    ),
]
MoveOption = Annotated[
    float,
    typer.Option(
        "--move-seconds", min=0.01, help="CPU time limit per move during the check (the wall-clock cap is 5 times it)."
    ),
]
MatchOption = Annotated[
    float, typer.Option("--match-seconds", min=0.01, help="Wall-clock time limit per match during the check.")
]
MemoryOption = Annotated[int, typer.Option("--memory-mb", min=64, help="Memory limit of the bot's process.")]
MatchesOption = Annotated[int, typer.Option("--matches", min=1, max=50, help="Matches per game and table size.")]
LayerOption = Annotated[
    list[str] | None,
    typer.Option(
        "--require-layer", metavar="LAYER", help="Refuse to run unless this sandbox layer is available; repeatable."
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]
BuildOption = Annotated[
    float,
    typer.Option(
        "--build-seconds",
        min=1,
        help="Time limit of the bot's build (bot.toml's build), which runs once in the build sandbox.",
    ),
]
AllowOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-package",
        metavar="PACKAGE",
        help="An installed package the bot may import (as a tournament's limits.packages); repeatable.",
    ),
]

DEFAULTS = SandboxLimits()
BUILD_DEFAULTS = BuildLimits()


def _run_check(
    path: str,
    name: str | None,
    move_seconds: float,
    match_seconds: float,
    memory_mb: int,
    matches: int,
    require_layer: list[str] | None,
    as_json: bool,
    packages: list[str] | None = None,
    build_seconds: float = BUILD_DEFAULTS.seconds,
    reuse: bool = False,
) -> tuple[CheckReport, Reused | None]:
    """The check of the bot at ``path``: a passed one of the same files and limits when ``reuse``, else played now.

    A check that passes is remembered either way (:mod:`ladder.seats.check_cache`), so `validate` then `submit` plays once.
    """
    layers = require_layers(require_layer) if require_layer else default_layers()
    limits = SandboxLimits(
        move_seconds=move_seconds,
        match_seconds=match_seconds,
        memory_mb=memory_mb,
        packages=allowed_packages(packages or ()),
    )
    key = check_key(read_files(path), limits, layers, matches)
    if reuse:
        found = recall(key, path, name)
        if found is not None:
            return found.report, found
    out = Console()
    progress = None if as_json else (lambda message: out.print(f"[dim]  {escape(message)}[/dim]", highlight=False))
    report = check_submitted_bot(
        path,
        name=name,
        limits=limits,
        matches_per_table=matches,
        progress=progress,
        build_limits=BuildLimits(seconds=build_seconds),
    )
    remember(key, report)
    return report, None


def _shown(text: str) -> str:
    """Text from the bot, as it may reach the terminal: no escape sequences or controls, no Rich markup."""
    return escape(clean_text(text, one_line=True))


def _show(report: CheckReport) -> None:
    console = Console()
    if report.info is not None:
        info = report.info
        console.print(
            f"[green]✓[/green] loads: {_shown(repr(info.name))} by {_shown(info.author or '(no author)')}, "
            f"version {_shown(info.version)}, class {_shown(info.class_name)}, content hash "
            f"{report.content_hash[:12]}",
            highlight=False,
        )
    if report.games:
        console.print(f"[green]✓[/green] claims: {', '.join(report.games)}", highlight=False)
    played = [m for m in report.matches if "failure" not in m]
    if played:
        _show_played(console, played)
    if not report.ok:
        _show_problem(console, report)


def _show_played(console: Console, played: list[dict[str, Any]]) -> None:
    """A line per game: the check's matches played within the limits, their scores and the longest thinking."""
    per_game: dict[str, list[dict]] = {}
    for match in played:
        per_game.setdefault(match["game"], []).append(match)
    for game_id, rows in per_game.items():
        think = max(row["think_seconds"] for row in rows)
        scores = ", ".join(f"{row['score']:g}" for row in rows)
        sizes = ", ".join(str(n) for n in sorted({row["players"] for row in rows}))
        console.print(
            f"[green]✓[/green] {game_id}: {len(rows)} matches played within the limits at {sizes} "
            f"player{'s' if sizes != '1' else ''} "
            f"(scores {scores}; longest thinking per match {think:.3f} s)",
            highlight=False,
        )


def _show_problem(console: Console, report: CheckReport) -> None:
    """The one sentence of a failed check, then what the bot (or its build) printed."""
    console.print(f"[red]✗[/red] {_shown(report.problem)}", highlight=False)
    if report.explanation.strip():
        said = (
            "What the build printed (the end of it):"
            if report.build_failed
            else "What the bot said (its traceback / the end of its stderr):"
        )
        console.print(f"  {said}", highlight=False)
        for line in clean_text(report.explanation).strip().splitlines():
            console.print(f"  [dim]|[/dim] {_shown(line)}", highlight=False)


def _json(report: CheckReport, extra: dict | None = None) -> None:
    data = {
        "path": report.path,
        "ok": report.ok,
        "content_hash": report.content_hash,
        "bot": report.info.to_json() if report.info else None,
        "name": report.name,
        "games": report.games,
        "matches": report.matches,
        "problem": report.problem,
        "explanation": report.explanation,
    }
    print(json.dumps(data | (extra or {}), indent=2))


def validate(
    path: PathArgument,
    name: NameOption = None,
    move_seconds: MoveOption = DEFAULTS.move_seconds,
    match_seconds: MatchOption = DEFAULTS.match_seconds,
    memory_mb: MemoryOption = DEFAULTS.memory_mb,
    matches: MatchesOption = 2,
    require_layer: LayerOption = None,
    as_json: JsonOption = False,
    allow_package: AllowOption = None,
    build_seconds: BuildOption = BUILD_DEFAULTS.seconds,
) -> None:
    """Check a bot in the sandbox (it loads, claims real games, plays a few matches of each within the limits); register nothing."""
    report, _ = _run_check(
        path,
        name,
        move_seconds,
        match_seconds,
        memory_mb,
        matches,
        require_layer,
        as_json,
        allow_package,
        build_seconds,
    )
    if as_json:
        _json(report)
        if not report.ok:
            sys.exit(1)
        return
    _show(report)
    if not report.ok:
        raise UserError(f"{path} failed the check: {report.problem}")
    Console().print(
        f"[green]{escape(path)} passed the check[/green]; `ladder submit {escape(path)}` registers it.", highlight=False
    )


def submit(
    path: PathArgument,
    name: NameOption = None,
    db: DbOption = None,
    move_seconds: MoveOption = DEFAULTS.move_seconds,
    match_seconds: MatchOption = DEFAULTS.match_seconds,
    memory_mb: MemoryOption = DEFAULTS.memory_mb,
    matches: MatchesOption = 2,
    require_layer: LayerOption = None,
    as_json: JsonOption = False,
    allow_package: AllowOption = None,
    build_seconds: BuildOption = BUILD_DEFAULTS.seconds,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            metavar="URL",
            help="Submit to a ladder server (`ladder serve`) instead: it runs the same check and answers with the verdict. Token from LADDER_TOKEN or `ladder login URL`.",
        ),
    ] = None,
    no_wait: Annotated[
        bool,
        typer.Option(
            "--no-wait", help="With --server: print the submission's id and return without waiting for the verdict."
        ),
    ] = False,
) -> None:
    """Check a bot in the sandbox, copy it into the bot store and register it (a changed file is a new version)."""
    if server is not None:
        from cli.commands.serve import submit_to_server

        submit_to_server(path, name, server, as_json, wait=not no_wait)
        return
    report, reused = _run_check(
        path,
        name,
        move_seconds,
        match_seconds,
        memory_mb,
        matches,
        require_layer,
        as_json,
        allow_package,
        build_seconds,
        reuse=True,
    )
    if not report.ok:
        if as_json:
            _json(report)
            sys.exit(1)
        _show(report)
        raise UserError(f"{path} was not registered: {report.problem}")
    registration = register(report, db)
    if as_json:
        _json(
            report,
            {
                "check_reused": reused is not None,
                "registered": {
                    "name": registration.name,
                    "version": registration.version,
                    "content_hash": registration.content_hash,
                    "store_path": registration.store_path,
                    "new": registration.created,
                    "versions": registration.version_count,
                },
            },
        )
        return
    _show(report)
    console = Console()
    if reused is not None:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(reused.checked_at))
        console.print(
            f"[green]✓[/green] these files passed this check at {when} (same content hash, ladder and "
            "limits): not played again",
            highlight=False,
        )
    if registration.created:
        console.print(
            f"[green]registered[/green] {escape(registration.name)} version {escape(registration.version)} "
            f"({registration.content_hash[:12]}, version #{registration.version_count} of this bot), stored in "
            f"{escape(registration.store_path)}",
            highlight=False,
        )
    else:
        console.print(
            f"[yellow]unchanged[/yellow]: these files are already registered as {escape(registration.name)} version "
            f"{escape(registration.version)} ({registration.content_hash[:12]}); nothing added",
            highlight=False,
        )
