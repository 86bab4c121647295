"""`ladder bots`: the built-in bots, the registered (submitted) bots and installed packages' bots."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from bots.registry import bot_classes, games_of
from cli.commands.options import DbOption
from cli.commands.tables import fitted_table, label_column, number_column, print_table
from ladder.sandbox.submission import entry_point_bots
from ladder.store.bot_index import registered_bots
from ladder.text import clean_text


def bots(
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List the built-in bots, the bots registered with `ladder submit`, and bots offered by installed packages."""
    builtin: list[dict[str, Any]] = [
        {"name": name, "author": classes[0].author, "games": games_of(name), "source": "built-in"}
        for name, classes in bot_classes().items()
    ]
    registered = registered_bots(db)
    packaged: list[dict[str, str]] = [
        {"name": bot.name, "entry_point": bot.value, "distribution": bot.distribution} for bot in entry_point_bots()
    ]
    if as_json:
        print(json.dumps({"builtin": builtin, "registered": registered, "entry_points": packaged}, indent=2))
        return
    table = fitted_table("Bots")
    for column in ("name", "source", "version"):
        label_column(table, column)
    number_column(table, "hash", left=True)
    number_column(table, "games", left=True)
    label_column(table, "author")
    for row in builtin:
        table.add_row(
            row["name"], "built-in", "", "", "\n".join(row["games"]), escape(clean_text(row["author"], one_line=True))
        )
    for row in registered:
        latest = row["versions"][-1]
        versions = len(row["versions"])
        table.add_row(
            escape(row["name"]),
            f"submitted, {versions} version{'s' if versions > 1 else ''}",
            escape(clean_text(latest["version"], one_line=True)),
            latest["hash"][:8],
            "\n".join(latest["games"]),
            escape(clean_text(row["author"], one_line=True)),
        )
    for row in packaged:
        table.add_row(
            escape(row["name"]),
            f"package {escape(row['distribution'])}",
            "",
            "",
            "(asks the bot)",
            escape(row["entry_point"]),
        )
    print_table(Console(), table, "hash: the start of the latest version's content hash; `--json` lists every version")
