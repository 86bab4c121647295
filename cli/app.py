"""The `ladder` command line. Each command lives in ``cli/commands/``."""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape

from bots.registry import UnknownBotError
from engine import GameError
from cli.commands.bench import bench
from cli.commands.games import games
from cli.commands.play import play
from cli.commands.run import run
from cli.commands.rankings import rankings
from cli.commands.matches import matches
from cli.commands.replay import replay
from cli.commands.h2h import h2h
from cli.commands.export import export
from cli.commands.tournament_list import tournaments
from cli.commands.rerate import rerate
from cli.commands.doctor import doctor
from cli.commands.submit import submit, validate
from cli.commands.bots import bots
from cli.commands.bench_sandbox import bench_sandbox
from cli.commands.report import report
from cli.commands.author import bot, logs
from ladder.errors import UserError
from ladder.text import clean_text

app = typer.Typer(
    name="ladder",
    help="A ladder for card-game bots: play, submit, run tournaments, see who is best.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(games)
app.command()(play)
app.command()(bench)
app.command()(run)
app.command()(rankings)
app.command()(matches)
app.command()(replay)
app.command()(h2h)
app.command()(export)
app.command()(tournaments)
app.command()(rerate)
app.command()(doctor)
app.command()(submit)
app.command()(validate)
app.command()(bots)
app.command(name="bench-sandbox")(bench_sandbox)
app.command()(report)
app.command()(bot)
app.command()(logs)

USER_ERRORS: tuple[type[BaseException], ...] = (UserError, GameError, UnknownBotError)


def main() -> None:
    """Run the CLI; a user's mistake ends in one red line and exit status 2, never a traceback."""
    try:
        app()
    except USER_ERRORS as error:
        Console(stderr=True, soft_wrap=True).print(f"[red]error:[/red] {escape(clean_text(str(error)))}", highlight=False)
        sys.exit(2)


if __name__ == "__main__":
    main()
