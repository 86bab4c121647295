"""Writes files until the disk is full (2 GB in 1 MB chunks, in its working folder)."""

import os

from ladder.bot import Bot


class FillDisk(Bot):
    name = "fill-disk"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        chunk = b"\0" * (1024 * 1024)
        for index in range(64):
            with open(os.path.join(os.getcwd(), f"fill-{index}"), "wb") as target:
                for _ in range(32):
                    target.write(chunk)
        return legal_actions[0]
