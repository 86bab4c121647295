"""A match's replay as the served viewer loads it: the report's own bytes (:func:`ladder.report.replay.replay_bytes`),
with the stderr of every seat the requester may not see taken out first.

A seat's stderr belongs to its bot's author: only that author and the operator see it, here as on the bot's
stderr page. Everything else in a replay (moves, scores, the failure's reason and one-line detail) is public, as
in the static report. The bytes differ by requester, so they are sent ``Cache-Control: private``.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable
from urllib.parse import quote

from sqlmodel import Session, col, select

from ladder.report import data as report_data
from ladder.report.replay import SeatLabel, replay_bytes, replay_input_hash
from ladder.store.action_log import unpack_actions
from ladder.store.served_tables import AuthorRow, ServedBotRow
from ladder.store.tables import BotRow, BotVersionRow, MatchRow
from service.views import may_see_private

REPLAY_MEDIA_TYPE = "application/gzip"
"""The replay is gzip'd JSON sent as it is (no ``Content-Encoding``): the viewer inflates it itself."""


def seat_owners(session: Session, version_ids: list[int]) -> dict[int, int | None]:
    """version id -> the author id owning its bot on the served ladder (None: a house bot, no author's)."""
    rows = session.exec(
        select(BotVersionRow.id, ServedBotRow.author_id)
        .join(ServedBotRow, col(ServedBotRow.bot_id) == col(BotVersionRow.bot_id), isouter=True)
        .where(col(BotVersionRow.id).in_(version_ids))
    ).all()
    return {version_id: author_id for version_id, author_id in rows if version_id is not None}


def visible_record(
    session: Session, match: report_data.MatchRecord, viewer: AuthorRow | None
) -> report_data.MatchRecord:
    """``match`` with the stderr of each seat ``viewer`` may not see emptied (the operator sees every seat's)."""
    owners = seat_owners(session, [s.version_id for s in match.seats])
    seats = tuple(
        s if may_see_private(viewer, owners.get(s.version_id)) else dataclasses.replace(s, stderr_tail="")
        for s in match.seats
    )
    return dataclasses.replace(match, seats=seats)


def served_labels(session: Session, match: report_data.MatchRecord) -> list[SeatLabel]:
    """Each seat's bot name and its page on this server (relative to the site's root, ``/``)."""
    names = dict(
        session.exec(
            select(BotVersionRow.id, BotRow.name)
            .join(BotRow, col(BotRow.id) == col(BotVersionRow.bot_id))
            .where(col(BotVersionRow.id).in_([s.version_id for s in match.seats]))
        ).all()
    )
    labels = []
    for seat in match.seats:
        name = names.get(seat.version_id)
        labels.append(SeatLabel(name, f"bots/{quote(name, safe='')}") if name else SeatLabel(f"#{seat.version_id}"))
    return labels


class ReplayCache:
    """The latest replays served, by a hash of everything they are made of (:func:`replay_input_hash`: the match
    as this requester may see it, its moves, the seats' labels, the engine's source): replaying a long match
    through the engine takes a good part of a second, and many people open the same match."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.found: OrderedDict[str, bytes] = OrderedDict()

    def get(self, key: str, make: Callable[[], bytes]) -> bytes:
        with self.lock:
            if key in self.found:
                self.found.move_to_end(key)
                return self.found[key]
        content = make()
        with self.lock:
            self.found[key] = content
            while len(self.found) > self.size:
                self.found.popitem(last=False)
        return content


REPLAYS = ReplayCache()


def served_replay(session: Session, match_id: int, viewer: AuthorRow | None) -> bytes | None:
    """The viewer's data for match ``match_id`` as ``viewer`` may see it (None: no such match).

    The tournament is left out of the header: its link points at the static report's tournament pages, which a
    server does not have (the served ladder plays one never-ending tournament anyway)."""
    match = report_data.load_match(session, match_id)
    if match is None:
        return None
    row = session.exec(select(MatchRow.actions_z, MatchRow.move_us_z).where(MatchRow.id == match_id)).first()
    actions_z, move_us_z = row if row is not None else (b"", b"")
    visible = visible_record(session, match, viewer)
    labels = served_labels(session, match)
    key = replay_input_hash(visible, actions_z or b"", labels, "", move_us_z or b"")
    return REPLAYS.get(
        key,
        lambda: replay_bytes(
            visible, unpack_actions(actions_z or b""), labels, "", report_data.unpack_move_us(move_us_z or b"")
        ),
    )
