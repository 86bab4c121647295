"""The `ladder` command line. Each command lives in ``ladder/commands/``."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from bots.registry import UnknownBotError
from engine import GameError
from ladder.commands.bench import bench
from ladder.commands.games import games
from ladder.commands.play import play
from ladder.errors import UserError

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

USER_ERRORS: tuple[type[BaseException], ...] = (UserError, GameError, UnknownBotError)


def main() -> None:
    """Run the CLI; a user's mistake ends in one red line and exit status 2, never a traceback."""
    try:
        app()
    except USER_ERRORS as error:
        Console(stderr=True, soft_wrap=True).print(f"[red]error:[/red] {error}", highlight=False)
        sys.exit(2)


if __name__ == "__main__":
    main()
