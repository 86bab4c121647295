"""What the database-reading commands share: the ``--db`` option and how bots are named."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlmodel import Session

from cli.commands.options import DbOption as DbOption  # re-exported: the database commands take it from here
from cli.commands.tables import phrase_lines
from ladder.errors import UserError
from ladder.matches.statuses import FailureReason
from ladder.paths import as_db_url, default_db_url
from ladder.store.database import session_for
from ladder.text import clean_text
from ladder.views.catalog import VersionName as VersionName  # re-exported: the commands name bots by these
from ladder.views.catalog import distinct_labels as distinct_labels
from ladder.views.catalog import find_match as find_match
from ladder.views.catalog import latest_version_ids as latest_version_ids
from ladder.views.catalog import tournament_names as tournament_names
from ladder.views.catalog import version_names as version_names
from ladder.views.catalog import versions_of as versions_of


def check_database_exists(url: str | None) -> None:
    """A read-only command never creates a database: a SQLite file that is not there is one clear line."""
    shown = as_db_url(url) if url else default_db_url()
    try:
        parsed = make_url(shown)
    except (ArgumentError, ValueError):
        return  # the opening reports a malformed URL in its own words
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return
    if not Path(parsed.database).is_file():
        where = "" if url else " (the default; choose another with --db or $LADDER_DB)"
        raise UserError(
            f"the database {parsed.database} does not exist{where}; check the path, or run a tournament "
            f"first: `ladder run quick`"
        )


@contextmanager
def database(url: str | None, must_exist: bool = True) -> Iterator[Session]:
    """A session on the ladder's database; by default one that exists (reading never creates files)."""
    if must_exist:
        check_database_exists(url)
    with session_for(url) as session:
        yield session


def failure_lines(
    match_id: int | None,
    seat: int,
    bot: str | None,
    reason: str,
    detail: str,
    traceback: str,
    at_action: int | None = None,
) -> Text:
    """A failed seat told in full: who, why, after how many actions, then the bot's traceback (indented).
    The detail and traceback come from the bot: escape sequences and control characters are removed."""
    where = f"match {match_id} " if match_id is not None else ""
    after = f" after {at_action} actions" if at_action is not None else ""
    text = Text(f"{where}seat {seat} {bot or '?'}: {reason}{after}", style="bold")
    if detail:
        text.append(f": {clean_text(detail, one_line=True)}", style="default")
    for line in clean_text(traceback).strip().splitlines():
        text.append(f"\n    | {line}", style="dim")
    return text


def failure_blocks(failed: list[tuple[int, dict[str, Any]]]) -> list[Text]:
    """The failed seats of listed matches; a benching is told once per bot, not once per skipped match."""
    blocks = []
    benched_told: set[str | None] = set()
    for match_id, seat in failed:
        if seat["failure"] == FailureReason.BENCHED:
            if seat["bot"] in benched_told:
                continue
            benched_told.add(seat["bot"])
        blocks.append(
            failure_lines(
                match_id,
                seat["seat"],
                seat["bot"],
                seat["failure"],
                seat.get("detail") or "",
                seat.get("traceback") or "",
                seat.get("at_action"),
            )
        )
    return blocks


def compact_table(title: str, caption: str | None = None) -> Table:
    """A table with a rule under the header, two spaces between columns, its caption broken between phrases
    (so that it fits 80 columns). New tables use :mod:`cli.commands.tables`, which also keeps numbers whole."""
    shown = "\n".join(phrase_lines(caption, 78)) if caption else None
    return Table(title=title, caption=shown, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
