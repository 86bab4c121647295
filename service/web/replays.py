"""A match's replay as the served viewer loads it: the report's own bytes (:func:`ladder.report.replay.replay_bytes`),
with the stderr of every seat the requester may not see taken out first.

A seat's stderr and its failure's detail (the bot's exception message) belong to its bot's author: only that
author and the operator see them, here as on the bot's stderr page (:func:`ladder.views.served.seat_failure`,
the privacy model of docs/serve.md). Everything else in a replay (moves, scores, thinking times, the failure's
kind) is public. The bytes differ by requester, so they are sent ``Cache-Control: private``.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable
from urllib.parse import quote

from sqlmodel import Session

from ladder.errors import NotFound
from ladder.report.replay import SeatLabel, replay_bytes, replay_input_hash
from ladder.store.action_log import unpack_actions
from ladder.store.served_tables import AuthorRow
from ladder.views import records, served

REPLAY_MEDIA_TYPE = "application/gzip"
"""The replay is gzip'd JSON sent as it is (no ``Content-Encoding``): the viewer inflates it itself."""


def visible_record(session: Session, match: records.MatchRecord, viewer: AuthorRow | None) -> records.MatchRecord:
    """``match`` with the private data of each seat ``viewer`` may not see withheld (the operator sees every
    seat's)."""
    owners = served.seat_owners(session, [s.version_id for s in match.seats])
    seats = tuple(served.visible_seat(s, served.may_see_private(viewer, owners.get(s.version_id))) for s in match.seats)
    return dataclasses.replace(match, seats=seats)


def served_labels(session: Session, match: records.MatchRecord) -> list[SeatLabel]:
    """Each seat's bot name and its page on this server (relative to the site's root, ``/``)."""
    names = served.bot_names(session, [s.version_id for s in match.seats])
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


def served_replay(session: Session, match_id: int, viewer: AuthorRow | None) -> bytes:
    """The viewer's data for match ``match_id`` as ``viewer`` may see it (:class:`~ladder.errors.NotFound`: no
    such match).

    The tournament is left out of the header: its link points at the static report's tournament pages, which a
    server does not have (the served ladder plays one never-ending tournament anyway)."""
    match = records.load_match(session, match_id)
    if match is None:
        raise NotFound(f"there is no match #{match_id}")
    actions_z, move_us_z = records.match_blobs(session, match_id)
    visible = visible_record(session, match, viewer)
    labels = served_labels(session, match)
    key = replay_input_hash(visible, actions_z or b"", labels, "", move_us_z or b"")
    return REPLAYS.get(
        key,
        lambda: replay_bytes(
            visible, unpack_actions(actions_z or b""), labels, "", records.unpack_move_us(move_us_z or b"")
        ),
    )
