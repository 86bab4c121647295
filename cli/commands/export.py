"""`ladder export`: the matches (one row per seat) and the ratings, as CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from cli.commands.dbview import DbOption, VersionName, database, tournament_names, version_names
from cli.commands.rankings import rankings_json
from ladder.errors import UserError
from ladder.paths import results_dir
from ladder.store.action_log import unpack_actions
from ladder.store.tables import SeatResultRow
from ladder.views import match_lists

if TYPE_CHECKING:
    from sqlmodel import Session

    from ladder.ratings.trueskill_model import MatchFact, RatingSet
    from ladder.store.tables import SeatResultRow


class Format(StrEnum):
    csv = "csv"
    json = "json"


@dataclass(frozen=True)
class _Exported:
    """The columns of a match that the export shows (the action log only when asked for: it is the bulk)."""

    id: int
    tournament_id: int
    key: str
    game: str
    num_players: int
    options_json: str
    seed: int
    status: str
    finished_at: datetime
    seconds: float
    details_json: str
    actions_z: bytes | None = None


SEAT_COLUMNS = (
    "match_id",
    "tournament",
    "key",
    "game",
    "players",
    "options",
    "seed",
    "status",
    "finished_at",
    "seconds",
    "seat",
    "bot",
    "version",
    "hash",
    "score",
    "rank",
    "failure_reason",
    "failure_detail",
    "at_action",
    "traceback",
)


def export(
    format_: Annotated[
        Format,
        typer.Option(
            "--format", "-f", help="csv (one row per seat of each match) or json (matches, seats and ratings)."
        ),
    ] = Format.csv,
    out: Annotated[
        str | None,
        typer.Option(
            "--out", "-o", help="File to write; - for stdout (default: results/exports/ladder-<time>.<format>)."
        ),
    ] = None,
    actions: Annotated[bool, typer.Option("--actions", help="JSON only: include every match's action log.")] = False,
    db: DbOption = None,
) -> None:
    """Export every recorded match (and, in JSON, the ratings) for analysis elsewhere."""
    if actions and format_ is Format.csv:
        raise UserError("--actions needs --format json (an action log does not fit a CSV cell)")
    with database(db) as session:
        recorded = _Recorded.read(session, actions)
    text = recorded.csv() if format_ is Format.csv else recorded.json(actions)
    if out == "-":
        sys.stdout.write(text)
        return
    path = Path(out) if out else results_dir() / "exports" / f"ladder-{datetime.now():%Y%m%d-%H%M%S}.{format_.value}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {path}: {error.strerror or error}") from None
    Console(stderr=True).print(f"wrote {len(recorded.matches)} matches to {path}", highlight=False)


@dataclass(frozen=True)
class _Recorded:
    """Everything exported, read in one session: each match as a row of (id, tournament id, key, game, players,
    options, seed, status, finished, seconds, details[, packed action log]) and its seats in seat order."""

    names: dict[int, VersionName]
    tournaments: dict[int, str]
    matches: Sequence[Any]
    seats: dict[int, list[SeatResultRow]]
    rated: RatingSet
    facts: Sequence[MatchFact]  # what the verdicts are read from (the paired tests, docs/verdict.md)

    @classmethod
    def read(cls, session: Session, actions: bool) -> _Recorded:
        """Read the export from ``session`` (the packed action logs only with ``actions``: they are the bulk)."""
        from ladder.ratings import persistence as ratings

        names = version_names(session)
        tournaments = tournament_names(session)
        matches = match_lists.exported_matches(session, actions)
        seats = match_lists.seats_by_match(session)
        rated, _ = ratings.current(session)
        return cls(names, tournaments, matches, seats, rated, ratings.load_match_facts(session))

    def csv(self) -> str:
        """One row per seat of each match (see :data:`SEAT_COLUMNS`); empty cells for what is missing."""
        names, tournaments = self.names, self.tournaments
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(SEAT_COLUMNS)
        for m in self.matches:
            for s in self.seats.get(m[0], []):
                name = names.get(s.bot_version_id)
                writer.writerow(
                    [
                        m[0],
                        tournaments.get(m[1], m[1]),
                        m[2],
                        m[3],
                        m[4],
                        m[5],
                        m[6],
                        m[7],
                        m[8].isoformat(),
                        f"{m[9]:.4f}",
                        s.seat,
                        name.bot if name else "",
                        name.version if name else "",
                        name.content_hash if name else "",
                        "" if s.score is None else s.score,
                        "" if s.rank is None else s.rank,
                        s.failure_reason or "",
                        s.failure_detail,
                        "" if s.at_action is None else s.at_action,
                        s.stderr_tail,
                    ]
                )
        return buffer.getvalue()

    def json(self, actions: bool) -> str:
        """Every match with its seats (and, with ``actions``, its action log), then the ratings."""

        listed: list[dict[str, Any]] = []
        for m in self.matches:
            item = {
                "id": m[0],
                "tournament": self.tournaments.get(m[1], m[1]),
                "key": m[2],
                "game": m[3],
                "players": m[4],
                "options": json.loads(m[5]),
                "seed": m[6],
                "status": m[7],
                "finished_at": m[8].isoformat(),
                "seconds": m[9],
                "details": json.loads(m[10]),
                "seats": [self._seat_json(s) for s in self.seats.get(m[0], [])],
            }
            if actions:
                item["actions"] = unpack_actions(m[11])
            listed.append(item)
        ratings_ = rankings_json(self.rated, self.names, self.rated.pools(), facts=self.facts)
        return json.dumps({"matches": listed, "ratings": ratings_}, indent=1) + "\n"

    def _seat_json(self, s: SeatResultRow) -> dict[str, Any]:
        names = self.names
        return {
            "seat": s.seat,
            "bot": names[s.bot_version_id].bot if s.bot_version_id in names else None,
            "hash": names[s.bot_version_id].content_hash if s.bot_version_id in names else None,
            "score": s.score,
            "rank": s.rank,
            "failure_reason": s.failure_reason,
            "failure_detail": s.failure_detail,
            "at_action": s.at_action,
            "traceback": s.stderr_tail,
        }
