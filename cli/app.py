"""The `ladder` command line. Each command lives in ``cli/commands/``, imported only when it is used.

``ladder --help`` must be fast (a user's first contact, and shell scripts call it): it imports no command
module at all, so none of the database, rating, plotting or cluster libraries behind the commands. The
commands are listed from :data:`COMMANDS` (name, where the function lives, the one line the listing shows)
and a command's module is imported when the command runs or prints its own ``--help``: click's documented
lazy-loading group (https://click.palletsprojects.com/en/stable/complex/#lazily-loading-subcommands),
built with Typer so that the help looks as the rest. ``tests/test_cli_speed.py`` keeps the budget: the
top-level help loads no heavy library and no command module; ``tests/bench/bench_help.py`` measures the time.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

HELP = "A ladder for card-game bots: play, submit, run tournaments, see who is best."


@dataclass(frozen=True)
class CommandEntry:
    """One command of the CLI, known without importing it.

    ``summary`` is what ``ladder --help`` lists: the first paragraph of the command's docstring on one line
    (``tests/test_cli_speed.py`` checks they agree, so a changed docstring fails a test, not the help).
    """

    name: str
    module: str  # under cli.commands
    function: str
    summary: str

    def load(self) -> Callable[..., Any]:
        """The command's function, importing its module (and whatever that module needs) now."""
        function: Callable[..., Any] = getattr(importlib.import_module(f"cli.commands.{self.module}"), self.function)
        return function


COMMANDS: tuple[CommandEntry, ...] = (
    CommandEntry(
        "games",
        "games",
        "games",
        "List every game with its player range, its declared facts (score order, how a match is won), "
        "options and the built-in bots that play it.",
    ),
    CommandEntry(
        "play",
        "play",
        "play",
        "Play N deals (every seating of each) and summarise them per bot, with each bot's difference from "
        "the first and its confidence interval (built-in bots in this process, bot files sandboxed).",
    ),
    CommandEntry(
        "bench",
        "bench",
        "bench",
        "Measure random-playout actions per second and games per second, per game and player count, on one core.",
    ),
    CommandEntry(
        "run", "run", "run", "Run a tournament file; run it again to resume (only the missing matches are played)."
    ),
    CommandEntry(
        "rankings",
        "rankings",
        "rankings",
        "The leaderboard of each game (rank, bot, version, mu, sigma, mu - 3 sigma, 95% rank interval, "
        "the confidence of being better than the next bot, matches, win rate), its verdict (settled / not yet, "
        "and why), and the overall table with intervals.",
    ),
    CommandEntry(
        "matches",
        "matches",
        "matches",
        "List recorded matches, newest first: seats with bot, rank and score, status and time.",
    ),
    CommandEntry(
        "replay",
        "replay",
        "replay",
        "Replay a recorded match move by move: game + seed + options + the action log, through the engine.",
    ),
    CommandEntry(
        "analyse",
        "analyse",
        "analyse",
        "Which decisions of a seat cost it the most in a match: every action valued over worlds drawn from what it saw.",
    ),
    CommandEntry(
        "blunders",
        "analyse",
        "blunders",
        "A bot's mean loss per decision over its latest matches, and the decisions it gets most wrong, by situation.",
    ),
    CommandEntry(
        "h2h",
        "h2h",
        "h2h",
        "Head to head: at the same table, who finished ahead; in solitaires, who scored better on the same deals.",
    ),
    CommandEntry(
        "export", "export", "export", "Export every recorded match (and, in JSON, the ratings) for analysis elsewhere."
    ),
    CommandEntry(
        "tournaments",
        "tournament_list",
        "tournaments",
        "List tournament runs: state (running, stopped, interrupted, complete, budget spent), progress "
        "and sealed deals.",
    ),
    CommandEntry(
        "rerate",
        "rerate",
        "rerate",
        "Recompute every TrueSkill rating from the matches (the source of truth) and store them, with their history.",
    ),
    CommandEntry(
        "doctor",
        "doctor",
        "doctor",
        "Say which sandbox layers are active here (probed by starting a bot), and why any is missing.",
    ),
    CommandEntry(
        "submit",
        "submit",
        "submit",
        "Check a bot in the sandbox, copy it into the bot store and register it (a changed file is a new version).",
    ),
    CommandEntry(
        "validate",
        "submit",
        "validate",
        "Check a bot in the sandbox (it loads, claims real games, plays a few matches of each within the "
        "limits); register nothing.",
    ),
    CommandEntry(
        "bots",
        "bots",
        "bots",
        "List the built-in bots, the bots registered with `ladder submit`, and bots offered by installed packages.",
    ),
    CommandEntry(
        "bench-sandbox",
        "bench_sandbox",
        "bench_sandbox",
        "Measure the sandbox's cost: request round trip, overhead per decision, sandboxed vs in-process matches.",
    ),
    CommandEntry(
        "report",
        "report",
        "report",
        "Write a static website from the database: every leaderboard, a page per bot, head-to-head "
        "matrices, tournaments, and a replay viewer for every match. Plain files: open index.html from "
        "disk or serve the folder.",
    ),
    CommandEntry(
        "bot",
        "bot_and_logs",
        "bot",
        "One bot: its ratings per pool with their uncertainty, its record, its latest failures with the "
        "end of its stderr, and where to watch them (the report's replay pages, `ladder replay ID`).",
    ),
    CommandEntry(
        "logs",
        "bot_and_logs",
        "logs",
        "The bot's own stderr (the end of it, per match) from its latest matches, newest last.",
    ),
    # ---- the served ladder (service/, `ladder serve`)
    CommandEntry(
        "serve",
        "serve",
        "serve",
        "Serve the ladder: authors submit bots over HTTP, a scheduler plays them all the time, live pages "
        "and a JSON API show the results.",
    ),
    CommandEntry(
        "author",
        "serve",
        "author",
        "Add an author of the served ladder (their token is printed once, stored only as a hash), revoke "
        "one, or list them.",
    ),
    CommandEntry(
        "login",
        "serve",
        "login",
        "Store your token for a ladder server (asked without echo; kept in your config folder, readable by you only).",
    ),
    CommandEntry(
        "submissions",
        "serve",
        "submissions",
        "Your submissions to a ladder server, newest first: state (queued, checking, active, failed) and why "
        "one failed.",
    ),
    CommandEntry(
        "admin",
        "serve",
        "admin",
        "The operator's hand on the served ladder's schedule: pause, bench, retire or resume a bot (ratings are kept).",
    ),
)


def command_from_function(name: str, function: Callable[..., Any]) -> TyperCommand:
    """The click command Typer makes of ``function`` (its options from the signature, its help from the
    docstring), exactly as ``app.command(name=...)`` would."""
    single = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    single.command(name=name)(function)
    command = typer.main.get_command(single)
    assert isinstance(command, TyperCommand)
    return command


class LazyGroup(TyperGroup):
    """A Typer group whose commands are imported on first use; listing them imports nothing.

    ``self.commands`` holds a stand-in per command (its name and summary, no parameters), so that the
    listing, the "no such command, did you mean" suggestions and the order of :data:`COMMANDS` work as in
    an ordinary group; :meth:`get_command` swaps a stand-in for the real command when one is asked for,
    except while the group prints its own help.
    """

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.entries = {entry.name: entry for entry in COMMANDS}
        for entry in COMMANDS:
            self.commands[entry.name] = TyperCommand(entry.name, help=entry.summary)
        self.loaded: set[str] = set()
        self.listing = False

    @contextmanager
    def _listing(self) -> Iterator[None]:
        self.listing = True
        try:
            yield
        finally:
            self.listing = False

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The top-level help, from the stand-ins: no command module is imported to print it."""
        with self._listing():
            super().format_help(ctx, formatter)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        entry = self.entries.get(cmd_name)
        if entry is not None and not self.listing and cmd_name not in self.loaded:
            self.commands[cmd_name] = command_from_function(cmd_name, entry.load())
            self.loaded.add(cmd_name)
        return super().get_command(ctx, cmd_name)


app = typer.Typer(
    name="ladder",
    help=HELP,
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _ladder() -> None:
    """A ladder for card-game bots: play, submit, run tournaments, see who is best."""


def user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that mean the user's input was wrong: one red line, exit status 2, no traceback.

    Imported when one is being handled, not before: they live in the packages below, which ``--help`` must
    not load (their modules are light, but the engine and the bot registry are not needed to print help)."""
    from bots.registry import UnknownBotError
    from engine import GameError
    from ladder.errors import UserError

    return (UserError, GameError, UnknownBotError)


def main() -> None:
    """Run the CLI; a user's mistake ends in one red line and exit status 2, never a traceback."""
    # The interpreter's last garbage collection walks every object the command made and imported (SQLAlchemy's,
    # pydantic's, a tournament's schedule): 0.1-0.3 s of a short command's wall time, for memory the process hands
    # back to the system anyway. Frozen objects are left out of it. At exit only, so a program that calls main()
    # and goes on is not left with frozen objects; the other exit handlers still run.
    atexit.register(gc.freeze)
    try:
        app()
    except Exception as error:
        if not isinstance(error, user_errors()):
            raise
        from rich.console import Console
        from rich.markup import escape

        from ladder.text import clean_text

        Console(stderr=True, soft_wrap=True).print(
            f"[red]error:[/red] {escape(clean_text(str(error)))}", highlight=False
        )
        sys.exit(2)


if __name__ == "__main__":
    main()
