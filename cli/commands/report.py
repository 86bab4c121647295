"""`ladder report`: write the database as a static website (leaderboards, bot pages, head-to-head, replays)."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from cli.commands.dbview import DbOption, database
from ladder.errors import UserError
from ladder.paths import results_dir
from ladder.report.site import MATCHES_PER_PAGE, write_site


def report(
    out: Annotated[
        Path | None, typer.Option("--out", metavar="DIR", help="Where to write the site (default: results/report).")
    ] = None,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the site's front page in a web browser when written.")
    ] = False,
    matches_per_page: Annotated[
        int,
        typer.Option(
            "--matches-per-page", min=1, metavar="N", help="A tournament's match list is split into pages of N matches."
        ),
    ] = MATCHES_PER_PAGE,
    db: DbOption = None,
    include_private: Annotated[
        bool,
        typer.Option(
            "--include-private",
            help="Show every author's stderr, tracebacks and exception messages (left out of the report of a served "
            "ladder's database by default: they are private to each bot's author).",
        ),
    ] = False,
) -> None:
    """Write a static website from the database: every leaderboard, a page per bot, head-to-head matrices,
    tournaments, and a replay viewer for every match. Plain files: open index.html from disk or serve the folder."""
    target = out if out is not None else results_dir() / "report"
    if target.exists() and not target.is_dir():
        raise UserError(f"--out {target}: that is a file; give a folder (it is created if missing)")
    console = Console(stderr=True)
    with database(db) as session:
        try:
            summary = write_site(
                session,
                target,
                progress=lambda message: console.print(f"[dim]  {escape(message)}[/dim]", highlight=False),
                matches_per_page=matches_per_page,
                include_private=include_private,
            )
        except OSError as error:
            raise UserError(f"cannot write the report into {target}: {error.strerror or error}") from None
    Console().print(
        f"report written: {summary.pages} pages ({summary.bots} bots, {summary.pools} pools, {summary.tournaments} "
        f"tournaments, {summary.replays} replays; {summary.bytes / 1e6:.1f} MB) in {escape(str(target))}: "
        f"{summary.written} files written, {summary.unchanged} unchanged, {summary.removed} removed; "
        f"{summary.replayed} matches replayed\n"
        f"private data: {escape(summary.privacy)}\n"
        f"open {escape(str(summary.index.resolve()))}",
        highlight=False,
        soft_wrap=True,
    )
    if open_browser and not webbrowser.open(summary.index.resolve().as_uri()):
        Console(stderr=True).print("no web browser found here; open the file above yourself", highlight=False)
