"""`ladder tournaments`: every tournament run with its state, progress and sealed deals.

Each tournament's deals come from a secret (:mod:`ladder.deals`): its
commitment (the secret's SHA-256) is shown from the start, the secret itself
once the tournament ended. ``--reveal ID`` ends a stopped or incomplete
tournament on purpose: its secret is shown and no match of it is played again
(a later run of its file starts a new tournament).
"""

from __future__ import annotations

import json
import os
import socket
from collections import Counter
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.text import Text

from ladder.commands.dbview import DbOption, compact_table, database, latest_version_ids
from ladder.errors import UserError

if TYPE_CHECKING:
    from sqlmodel import Session

    from ladder.storage import TournamentRow


def _state(row: TournamentRow) -> str:
    if row.state != "running":
        return row.state
    if row.host == socket.gethostname() and row.pid:
        try:
            os.kill(row.pid, 0)
            return "running"
        except ProcessLookupError:
            return "interrupted"
        except PermissionError:
            return "running"
    return "running?"


def _deals(row: TournamentRow) -> str:
    if row.deal_secret is None:
        return "public (made before sealed deals)"
    return "revealed" if row.secret_revealed_at is not None else "sealed"


def reveal_secret(session: Session, tournament_id: int) -> TournamentRow:
    """End tournament ``tournament_id`` on purpose and reveal its secret (refused while it is running)."""
    from ladder.storage import TournamentRow, utcnow

    row = session.get(TournamentRow, tournament_id)
    if row is None:
        raise UserError(f"no tournament #{tournament_id}; `ladder tournaments` lists them")
    if row.deal_secret is None:
        raise UserError(f"tournament #{tournament_id} was made before sealed deals: it has no secret to reveal")
    if _state(row) in ("running", "running?"):
        raise UserError(f"tournament #{tournament_id} is running (process {row.pid} on {row.host}): stop it first; "
                        "its secret stays sealed while matches can still be played")
    if row.secret_revealed_at is None:
        row.secret_revealed_at = utcnow()
        session.add(row)
        session.commit()
    return row


def tournaments(
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
    reveal: Annotated[int | None, typer.Option("--reveal", metavar="ID", help="End this stopped or incomplete tournament and reveal its deal secret (no match of it is played again; running its file again starts a new tournament).")] = None,
) -> None:
    """List tournament runs: state (running, stopped, interrupted, complete, budget spent), progress and sealed deals."""
    from sqlalchemy import func
    from sqlmodel import select

    from ladder.storage import BenchRow, MatchRow, SeatResultRow, TournamentRow

    with database(db) as session:
        if reveal is not None:
            revealed = reveal_secret(session, reveal)
            Console().print(f"tournament {revealed.name} #{revealed.id}: deal secret {revealed.deal_secret} "
                            f"(sha256 {revealed.deal_commitment})", highlight=False, markup=False)
            return
        rows = session.exec(select(TournamentRow).order_by(TournamentRow.id)).all()
        latest = latest_version_ids(session)
        outdated = {match_id for match_id, version in session.exec(
            select(SeatResultRow.match_id, SeatResultRow.bot_version_id)).all() if version not in latest}
        counts: dict[int, Counter[str]] = {}
        for match_id, tid, status in session.exec(select(MatchRow.id, MatchRow.tournament_id, MatchRow.status)).all():
            # the matches of a bot's older versions stay recorded, but a new version has its own matches to play
            counts.setdefault(tid, Counter())["older versions" if match_id in outdated else status] += 1
        benched = Counter(b.tournament_id for b in session.exec(select(BenchRow)).all())
    listed = [
        {
            "id": row.id, "name": row.name, "file": row.file, "seed": row.seed, "state": _state(row),
            "scheduled": row.scheduled, "cycles": row.cycles, "played": counts.get(row.id, Counter())["played"],
            "skipped": counts.get(row.id, Counter())["skipped"], "errors": counts.get(row.id, Counter())["error"],
            "older_versions": counts.get(row.id, Counter())["older versions"],
            "benched": benched[row.id], "created": row.created_at.isoformat(timespec="seconds"),
            "updated": row.updated_at.isoformat(timespec="seconds"),
            "deals": _deals(row), "deal_commitment": row.deal_commitment or None, "deal_secret": row.shown_secret(),
            "secret_revealed": row.secret_revealed_at.isoformat(timespec="seconds") if row.secret_revealed_at else None,
        }
        for row in rows
    ]
    if as_json:
        print(json.dumps(listed, indent=2))
        return
    if not listed:
        Console().print("no tournament yet; run one: `ladder run tournaments/quick.toml`", highlight=False)
        return
    table = compact_table("Tournaments")
    for column in ("id", "name", "state", "done", "cycles", "skipped", "errors", "benched", "older versions", "deals",
                   "last activity"):
        table.add_column(column, justify="left" if column in ("name", "state", "deals", "last activity") else "right")
    for item in listed:
        table.add_row(
            str(item["id"]), Text(item["name"]), item["state"], f"{item['played'] + item['skipped']} of {item['scheduled']}",
            str(item["cycles"]), str(item["skipped"] or "-"), str(item["errors"] or "-"), str(item["benched"] or "-"),
            str(item["older_versions"] or "-"), item["deals"].split(" ")[0],
            item["updated"][:19].replace("T", " "),
        )
    console = Console()
    console.print(table)
    for item in listed:
        if item["deal_commitment"]:
            secret = f"secret {item['deal_secret']}" if item["deal_secret"] else "secret sealed until it ends"
            console.print(f"#{item['id']} {item['name']}: commitment {item['deal_commitment']}; {secret}",
                          highlight=False, markup=False, soft_wrap=True)
