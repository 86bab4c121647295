"""Answers correctly, but a little after the deadline (the tests use a 0.5 s move limit)."""

import time

from ladder.bot import Bot


class LateReply(Bot):
    name = "late-reply"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        time.sleep(0.9)
        return legal_actions[0]
