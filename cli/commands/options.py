"""Options many commands share, in a module that imports nothing heavy (a command's ``--help`` stays fast)."""

from __future__ import annotations

from typing import Annotated

import typer

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="DB",
        help="Database: an SQLAlchemy URL or an SQLite file's path (default: $LADDER_DB or results/ladder.db).",
    ),
]
