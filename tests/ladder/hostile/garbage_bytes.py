"""Writes random bytes onto the channel instead of a frame."""

import os
import sys
import time

from ladder.bot import Bot


class GarbageBytes(Bot):
    name = "garbage-bytes"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        os.write(sys.modules["__main__"]._OUT, b"\x00\x00\x00\x10" + b"\xff\xfe not json at all")
        time.sleep(3600)
