"""What the database-reading commands share: the ``--db`` option and how bots are named."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table

from ladder.errors import UserError
from ladder.summary import ordinal

if TYPE_CHECKING:  # the database modules are imported when a command runs: `ladder --help` stays fast
    from sqlmodel import Session

    from ladder.storage import MatchRow

DbOption = Annotated[
    str | None,
    typer.Option("--db", metavar="URL", help="Database URL (default: $LADDER_DB or sqlite:///results/ladder.db)."),
]


@contextmanager
def database(url: str | None) -> Iterator[Session]:
    from ladder.storage import session_for

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
    from sqlmodel import select

    from ladder.storage import BotRow, BotVersionRow

    rows = session.exec(select(BotVersionRow, BotRow).join(BotRow, BotRow.id == BotVersionRow.bot_id)).all()
    return {v.id: VersionName(v.id, b.name, v.version, v.content_hash) for v, b in rows if v.id is not None}


def versions_of(session: Session, ref: str) -> list[int]:
    """The version ids a user means by ``ref``: a bot name (every version), or ``name@hashprefix``."""
    name, _, prefix = ref.partition("@")
    found = [v.version_id for v in version_names(session).values() if v.bot == name and v.content_hash.startswith(prefix)]
    if not found:
        known = sorted({v.bot for v in version_names(session).values()})
        raise UserError(f"no bot {ref!r} in the database; bots: {', '.join(known) or 'none yet'}")
    return found


def find_match(session: Session, ref: str) -> MatchRow:
    """A match by id (``42``) or by key (``c0/elevenses/o0/2p/d3/...``; the latest tournament's if several)."""
    from sqlmodel import select

    from ladder.storage import MatchRow

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
    from sqlmodel import select

    from ladder.storage import TournamentRow

    return {t.id: f"{t.name} #{t.id}" for t in session.exec(select(TournamentRow)).all() if t.id is not None}


def compact_table(title: str, caption: str | None = None) -> Table:
    """A table with a rule under the header, two spaces between columns, its caption broken between phrases
    (so that it fits 80 columns). New tables use :mod:`ladder.commands.tables`, which also keeps numbers whole."""
    from ladder.commands.tables import phrase_lines

    shown = "\n".join(phrase_lines(caption, 78)) if caption else None
    return Table(title=title, caption=shown, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
