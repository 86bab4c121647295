"""The toy games and bots of :mod:`tests.tournaments.toygames`, plus a bot that kills every worker it plays on.

:func:`install` is what the Dask tests pass as ``worker_setup``.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from bots.base import Bot
from tests.tournaments import toygames


class KillerBot(Bot):
    """Kills the worker process it plays in, every time: a match no worker survives."""

    name = "killer"
    author = "tests"
    games = ("toy-solo",)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        os.kill(os.getpid(), signal.SIGKILL)
        return legal_actions[0]


def install() -> None:
    """Register the toy games and bots, and the killer, in this process (idempotent)."""
    import bots.registry as bot_registry

    toygames.install()
    bot_registry.register_bot(KillerBot)


def uninstall() -> None:
    import bots.registry as bot_registry

    toygames.uninstall()
    bot_registry.unregister_bot(KillerBot.name)
