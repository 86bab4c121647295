"""Sends a stale reply (an old sequence number) before its real answer: the stale one must be ignored."""

import os
import struct
import sys

from ladder.bot import Bot


class StaleReply(Bot):
    name = "stale-reply"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        body = b'{"seq": 0, "index": 99}'
        os.write(sys.modules["__main__"]._OUT, struct.pack(">I", len(body)) + body)
        return legal_actions[-1]
