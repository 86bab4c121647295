"""Writes a 50 MB reply straight onto the channel to the ladder."""

import os
import struct
import sys

from ladder.bot import Bot


class HugeReply(Bot):
    name = "huge-reply"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        channel = sys.modules["__main__"]._OUT
        body = b'{"seq": 1, "index": 0, "padding": "' + b"x" * (50 * 1024 * 1024) + b'"}'
        os.write(channel, struct.pack(">I", len(body)))
        os.write(channel, body)
        return legal_actions[0]
