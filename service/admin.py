"""The operator's hand on the schedule: pause, bench, retire or resume a served bot (CLI and web share this)."""

from __future__ import annotations

import enum

from sqlmodel import Session, select

from ladder.errors import UserError
from ladder.store.served_tables import BotState, ServedBotRow
from ladder.store.tables import BotRow, utcnow


class Action(enum.StrEnum):
    PAUSE = "pause"  # sits out until resumed
    BENCH = "bench"  # sits out until resumed, with the reason shown on its page (a misbehaving bot)
    RETIRE = "retire"  # leaves the schedule for good; keeps its ratings; takes no new version
    RESUME = "resume"  # plays again (after a pause or a bench)


TARGET = {
    Action.PAUSE: BotState.PAUSED,
    Action.BENCH: BotState.BENCHED,
    Action.RETIRE: BotState.RETIRED,
    Action.RESUME: BotState.ACTIVE,
}


def set_bot_state(session: Session, name: str, action: Action, reason: str = "") -> BotState:
    """Apply ``action`` to the served bot ``name``; its new state (one sentence when it cannot be done)."""
    bot = session.exec(select(BotRow).where(BotRow.name == name)).first()
    served = session.get(ServedBotRow, bot.id) if bot is not None and bot.id is not None else None
    if served is None:
        raise UserError(f"there is no bot {name!r} on the served ladder")
    if served.state == BotState.RETIRED.value and action is not Action.RETIRE:
        raise UserError(f"the bot {name!r} is retired; a retired bot stays retired")
    served.state, served.reason, served.updated_at = TARGET[action].value, reason.strip()[:300], utcnow()
    session.add(served)
    session.commit()
    return TARGET[action]
