"""Who and what the database holds, by the names users give them: bot versions and their labels, tournaments,
matches by id or key, the served ladder's authors.

The lookups raise :class:`~ladder.errors.NotFound` with a sentence that says what there is instead, so the CLI
prints it as one line and the web app answers 404 with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from ladder.errors import NotFound
from ladder.seats.botref import BotRef
from ladder.store.served_tables import AuthorRow
from ladder.store.tables import BotRow, BotVersionRow, MatchRow, TournamentRow


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
        raise NotFound(f"no bot {ref!r} in the database; bots: {', '.join(known) or 'none yet'}")
    return found


def find_match(session: Session, ref: str) -> MatchRow:
    """A match by id (``42``) or by key (``c0/elevenses/o0/2p/d3/...``; the latest tournament's if several)."""
    match = None
    if ref.isdigit():
        match = session.get(MatchRow, int(ref))
    else:
        match = session.exec(select(MatchRow).where(MatchRow.key == ref).order_by(col(MatchRow.id).desc())).first()
    if match is None:
        last = session.exec(select(MatchRow.id).order_by(col(MatchRow.id).desc())).first()
        hint = f"match ids run from 1 to {last}" if last else "the database has no match yet"
        raise NotFound(f"no match {ref!r}; {hint} (see `ladder matches`)")
    return match


def tournament_names(session: Session) -> dict[int, str]:
    return {t.id: f"{t.name} #{t.id}" for t in session.exec(select(TournamentRow)).all() if t.id is not None}


def tournament_rows(session: Session) -> list[TournamentRow]:
    """Every tournament, oldest first."""
    return list(session.exec(select(TournamentRow).order_by(col(TournamentRow.id))).all())


def tournament_id(session: Session, ref: str) -> int:
    """A tournament by id (``3``) or by name (the latest of that name)."""
    rows = tournament_rows(session)
    found = [row.id for row in rows if str(row.id) == ref or row.name == ref]
    if not found:
        known = ", ".join(f"{row.name} #{row.id}" for row in rows) or "none yet"
        raise NotFound(f"no tournament {ref!r} in the database; tournaments: {known}")
    return found[-1] or 0


def authors(session: Session) -> list[AuthorRow]:
    """The served ladder's authors, by name."""
    return list(session.exec(select(AuthorRow).order_by(col(AuthorRow.name))).all())
