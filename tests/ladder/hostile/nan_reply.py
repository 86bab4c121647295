"""Answers with NaN (not JSON, though Python's json module would write it)."""

import os
import struct
import sys
import time

from ladder.bot import Bot


class NanReply(Bot):
    name = "nan-reply"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        body = b'{"seq": 2, "index": NaN}'
        os.write(sys.modules["__main__"]._OUT, struct.pack(">I", len(body)) + body)
        time.sleep(3600)
