"""`ladder --help` stays fast: the budget, in modules (the wall time is measured by tests/bench/bench_help.py).

The budget: the top-level help imports no command module and none of the packages below the CLI, so none of
the heavy libraries the commands use (:data:`HEAVY`); a command's own ``--help`` imports that command's
module and no other command's (beyond the helpers it imports itself). Measured in a fresh interpreter, as a
user's shell would start one, by what is in ``sys.modules`` after the help is printed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cli.app import COMMANDS, CommandEntry, LazyGroup, app, command_from_function

HEAVY = (
    "sqlalchemy",
    "sqlmodel",
    "trueskill",
    "matplotlib",
    "dask",
    "distributed",
    "numpy",
    "jinja2",
    "pydantic",
    "tqdm",
    "orjson",
)

PROBE = """
import json, sys
sys.argv = ["ladder", *json.loads(sys.argv[1])]
from cli.app import main
try:
    main()
except SystemExit as stop:
    code = stop.code
print("MODULES=" + json.dumps(sorted(sys.modules)))
"""


def modules_loaded_by(*args: str) -> tuple[str, list[str]]:
    """Run ``ladder ARGS`` in a fresh interpreter: what it printed, and every module it had imported by the end."""
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True, timeout=120)
    assert "MODULES=" in done.stdout, done.stderr
    output, _, modules = done.stdout.rpartition("MODULES=")
    return output, json.loads(modules)


def top(name: str) -> str:
    return name.split(".")[0]


def test_top_level_help_imports_no_command_and_no_heavy_library() -> None:
    output, modules = modules_loaded_by("--help")
    assert "Usage: ladder" in output and "tournament" in output
    assert sorted({top(m) for m in modules if top(m) in HEAVY}) == []
    assert [m for m in modules if m.startswith("cli.commands")] == []
    assert sorted({top(m) for m in modules if top(m) in ("engine", "bots", "ladder", "tournaments")}) == []


def test_the_help_lists_every_command_in_order_with_its_summary() -> None:
    output, _ = modules_loaded_by("--help")
    panel = output.split("Commands")[1]
    listed = [line.split()[1] for line in panel.splitlines() if line.startswith("│ ") and line[2] != " "]
    assert listed == [entry.name for entry in COMMANDS]
    flat = " ".join(panel.replace("│", " ").split())
    assert "List recorded matches, newest first: seats with bot, rank and score, status and time." in flat


@pytest.mark.parametrize("command", ["games", "run", "rankings", "submit"])
def test_a_command_help_imports_that_command_only(command: str) -> None:
    output, modules = modules_loaded_by(command, "--help")
    assert f"Usage: ladder {command}" in output
    loaded = {m for m in modules if m.startswith("cli.commands.")}
    entry = next(e for e in COMMANDS if e.name == command)
    assert f"cli.commands.{entry.module}" in loaded
    helpers = {
        "cli.commands.dbview",
        "cli.commands.options",
        "cli.commands.tables",
        "cli.commands.rankings",
        "cli.commands.bench",
    }
    assert loaded - helpers - {f"cli.commands.{entry.module}"} == set()


def test_games_help_needs_no_database() -> None:
    """A command that reads no database does not load one to describe itself."""
    _, modules = modules_loaded_by("games", "--help")
    assert sorted({top(m) for m in modules if top(m) in ("sqlalchemy", "sqlmodel", "trueskill", "matplotlib")}) == []


@pytest.mark.parametrize("entry", COMMANDS, ids=[entry.name for entry in COMMANDS])
def test_each_summary_is_the_first_paragraph_of_the_command_docstring(entry: CommandEntry) -> None:
    """The listing is written down in cli/app.py so that it needs no import; this keeps it the docstring's."""
    command = command_from_function(entry.name, entry.load())
    first_paragraph = (command.help or "").strip().split("\n\n")[0]
    assert entry.summary == " ".join(first_paragraph.split())


def test_the_lazy_group_runs_the_real_command() -> None:
    """A stand-in is never what runs: asking for a command outside the help loads it, with its options."""
    group = typer_group()
    for entry in COMMANDS:
        command = group.get_command(None, entry.name)  # type: ignore[arg-type]
        assert command is not None and command.callback is not None, entry.name
    run = group.get_command(None, "run")  # type: ignore[arg-type]
    assert run is not None and any("--hours" in getattr(p, "opts", []) for p in run.params)


def typer_group() -> LazyGroup:
    import typer

    group = typer.main.get_command(app)
    assert isinstance(group, LazyGroup)
    return group
