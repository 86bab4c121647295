"""What the database-reading commands share: the ``--db`` option and how bots are named."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlmodel import Session, col, select

from cli.commands.options import DbOption as DbOption  # re-exported: the database commands take it from here
from cli.commands.tables import phrase_lines
from ladder.errors import UserError
from ladder.matches.statuses import FailureReason
from ladder.paths import as_db_url, default_db_url
from ladder.seats.botref import BotRef
from ladder.store.database import session_for
from ladder.store.tables import BotRow, BotVersionRow, MatchRow, TournamentRow
from ladder.text import clean_text


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


@dataclass(frozen=True)
class VersionName:
    """How a bot version is shown: its name, version label and short hash."""

    version_id: int
    bot: str
    version: str
    content_hash: str

    @property
    def version_label(self) -> str:
        return f"{self.version} {self.content_hash[:6]}"

    @property
    def label(self) -> str:
        return f"{self.bot}@{self.content_hash[:8]}"


def version_names(session: Session) -> dict[int, VersionName]:
    rows = session.exec(select(BotVersionRow, BotRow).join(BotRow, col(BotRow.id) == col(BotVersionRow.bot_id))).all()
    return {v.id: VersionName(v.id, b.name, v.version, v.content_hash) for v, b in rows if v.id is not None}


def distinct_labels(names: dict[int, VersionName]) -> dict[int, str]:
    """A label per version that tells two versions of one bot apart: ``dumper`` while it has one version,
    ``dumper@v2`` when the version labels differ, ``dumper@1a2b3c4d`` (its hash) when they do not."""
    by_bot: dict[str, list[VersionName]] = {}
    for name in names.values():
        by_bot.setdefault(name.bot, []).append(name)
    labels = {}
    for bot, versions in by_bot.items():
        tags = [v.version for v in versions]
        for v in versions:
            if len(versions) == 1:
                labels[v.version_id] = bot
            elif tags.count(v.version) == 1:
                labels[v.version_id] = f"{bot}@{v.version}" if v.version.startswith("v") else f"{bot}@v{v.version}"
            else:
                labels[v.version_id] = v.label
    return labels


def latest_version_ids(session: Session) -> set[int]:
    """The latest version of every bot (the highest version id of each)."""
    latest: dict[int, int] = {}
    for version_id, bot_id in session.exec(select(BotVersionRow.id, BotVersionRow.bot_id)).all():
        latest[bot_id] = max(latest.get(bot_id, 0), version_id or 0)
    return set(latest.values())


def versions_of(session: Session, ref: str) -> list[int]:
    """The version ids a user means by ``ref``: a bot name (every version), or ``name@hashprefix``."""
    wanted = BotRef.parse(ref)
    found = [v.version_id for v in version_names(session).values() if wanted.matches_version(v.bot, v.content_hash)]
    if not found:
        known = sorted({v.bot for v in version_names(session).values()})
        raise UserError(f"no bot {ref!r} in the database; bots: {', '.join(known) or 'none yet'}")
    return found


def find_match(session: Session, ref: str) -> MatchRow:
    """A match by id (``42``) or by key (``c0/elevenses/o0/2p/d3/...``; the latest tournament's if several)."""
    match = None
    if ref.isdigit():
        match = session.get(MatchRow, int(ref))
    else:
        match = session.exec(select(MatchRow).where(MatchRow.key == ref).order_by(MatchRow.id.desc())).first()  # type: ignore[union-attr]
    if match is None:
        last = session.exec(select(MatchRow.id).order_by(MatchRow.id.desc())).first()  # type: ignore[union-attr]
        hint = f"match ids run from 1 to {last}" if last else "the database has no match yet"
        raise UserError(f"no match {ref!r}; {hint} (see `ladder matches`)")
    return match


def tournament_names(session: Session) -> dict[int, str]:
    return {t.id: f"{t.name} #{t.id}" for t in session.exec(select(TournamentRow)).all() if t.id is not None}


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
