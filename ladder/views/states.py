"""A served bot's state and its versions' states, in one place: what the pages, the API, ``ladder bot``, the
leaderboards and the scheduler's skip reasons say of a bot, so that they cannot disagree.

They read what the scheduler reads to decide who plays (``service.scheduler``'s ``schedulable``): a version
plays when its own row is ``active`` (not past its author's cap of active versions: ``superseded``) and its
bot's row is ``active`` (the operator has not paused, benched or retired it). The operator's state of the bot
comes first: a paused bot's versions are ``paused``, whatever their own state.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict
from sqlalchemy import inspect
from sqlmodel import Session, col, select

from ladder.store.served_tables import BotState, ServedBotRow, ServedVersionRow, VersionState
from ladder.store.tables import BotRow, BotVersionRow


class ShownState(enum.StrEnum):
    """The state every reader shows of a bot or a version."""

    ACTIVE = "active"  # on the schedule
    SUPERSEDED = "superseded"  # past its author's cap of active versions: keeps its ratings, plays no more
    PAUSED = "paused"  # by the operator, for now
    BENCHED = "benched"  # by the operator, with a reason
    RETIRED = "retired"  # by the operator, for good
    HOUSE = "house"  # not the served ladder's (a built-in or a tournament's bot): no author, no served state

    @property
    def plays(self) -> bool:
        """Whether a version in this state is on the served schedule (a house bot: when the server names it)."""
        return self is ShownState.ACTIVE


class VersionStates(BaseModel):
    """The shown state of every version of the database (a version absent here is ``house``)."""

    model_config = ConfigDict(frozen=True)

    versions: dict[int, ShownState] = {}
    bots: dict[int, ShownState] = {}  # bot id -> the bot's shown state (:func:`bot_state`)
    reasons: dict[int, str] = {}  # bot id -> the operator's reason, where given

    def of(self, version_id: int) -> ShownState:
        return self.versions.get(version_id, ShownState.HOUSE)


def version_state(bot_state: str, version_state: str) -> ShownState:
    """A served version's state: the operator's state of its bot when that is not ``active``, else its own."""
    if bot_state != BotState.ACTIVE.value:
        return ShownState(bot_state)
    return ShownState.ACTIVE if version_state == VersionState.ACTIVE.value else ShownState.SUPERSEDED


def bot_state(bot_state: str, versions: Iterable[ShownState]) -> ShownState:
    """A served bot's state: the operator's when not ``active``; else ``active`` while one of its versions plays,
    ``superseded`` when every version is past its author's cap (so the page does not say "active" of a bot that
    plays no more)."""
    if bot_state != BotState.ACTIVE.value:
        return ShownState(bot_state)
    return ShownState.ACTIVE if any(v.plays for v in versions) else ShownState.SUPERSEDED


def states(session: Session) -> VersionStates:
    """Every served version's and bot's state (none in a database the service never opened)."""
    if not inspect(session.get_bind()).has_table(ServedVersionRow.__tablename__):
        return VersionStates()
    bots = {b.bot_id: b for b in session.exec(select(ServedBotRow)).all()}
    versions: dict[int, ShownState] = {}
    by_bot: dict[int, list[ShownState]] = defaultdict(list)
    for served in session.exec(select(ServedVersionRow)).all():
        bot = bots.get(served.bot_id)
        shown = version_state(bot.state if bot is not None else BotState.ACTIVE.value, served.state)
        versions[served.bot_version_id] = shown
        by_bot[served.bot_id].append(shown)
    return VersionStates(
        versions=versions,
        bots={bot_id: bot_state(b.state, by_bot.get(bot_id, [])) for bot_id, b in bots.items()},
        reasons={bot_id: b.reason for bot_id, b in bots.items() if b.reason},
    )


def why_not_playing(session: Session, version_id: int) -> str:
    """Why the version ``version_id`` is not on the served schedule, in the words its pages use (a skipped seat's
    reason): the operator's state with their reason, or the versions that superseded it."""
    version = session.get(BotVersionRow, version_id)
    served = session.get(ServedVersionRow, version_id)
    bot = session.get(ServedBotRow, version.bot_id) if version is not None else None
    if version is None or served is None or bot is None:
        return "not on this server's schedule (not one of its house bots)"
    shown = version_state(bot.state, served.state)
    if shown is not ShownState.SUPERSEDED:
        return f"{shown.value} by the operator" + (f": {bot.reason}" if bot.reason else "")
    newer = session.exec(
        select(BotVersionRow.version)
        .join(ServedVersionRow, col(ServedVersionRow.bot_version_id) == col(BotVersionRow.id))
        .where(
            ServedVersionRow.bot_id == served.bot_id,
            ServedVersionRow.state == VersionState.ACTIVE.value,
            col(ServedVersionRow.activated_at) > served.activated_at,
        )
    ).all()
    name = session.exec(select(BotRow.name).where(BotRow.id == served.bot_id)).first() or "?"
    if newer:
        return (
            f"superseded by {len(newer)} newer version{'s' if len(newer) != 1 else ''} of {name} ({', '.join(newer)})"
        )
    # the cap is per bot (service.background.check_job.activate): a version superseded with no newer one of its bot
    # active was superseded by an older ladder's cap over all an author's bots, or its newer versions left since
    return f"superseded, and {name} has none newer on the schedule (an older ladder capped an author's versions of all their bots together)"


def current_versions(session: Session) -> set[int]:
    """The versions a "latest versions" leaderboard keeps (``ladder rankings --latest-versions``, the served
    pages and ``/api/leaderboards`` by default): of a served bot, its versions neither superseded nor retired
    (those on the schedule, and those the operator paused or benched for now); of any other bot, its latest."""
    shown = states(session)
    latest: dict[int, int] = {}
    for version_id, bot_id in session.exec(select(BotVersionRow.id, BotVersionRow.bot_id)).all():
        if version_id is not None and version_id not in shown.versions:
            latest[bot_id] = max(latest.get(bot_id, 0), version_id)
    kept = {ShownState.ACTIVE, ShownState.PAUSED, ShownState.BENCHED}
    return set(latest.values()) | {v for v, state in shown.versions.items() if state in kept}
