"""Answers with JSON nested 100,000 levels deep, straight onto the channel."""

import os
import struct
import sys

from ladder.bot import Bot


class NestedJson(Bot):
    name = "nested-json"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        body = b'{"seq": 2, "index": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        os.write(sys.modules["__main__"]._OUT, struct.pack(">I", len(body)) + body)
        import time

        time.sleep(3600)
