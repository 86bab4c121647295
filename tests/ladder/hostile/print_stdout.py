"""Prints to stdout (every way it can) on every move: this must not disturb the channel."""

import os
import sys

from ladder.bot import Bot

print('PRINTED-AT-IMPORT {"seq": 1, "index": 0}')


class PrintStdout(Bot):
    name = "print-stdout"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        print("PRINTED-BY-ACT", observation)
        sys.stdout.write("\x00\x00\x00\x05hello")
        sys.stdout.flush()
        os.write(1, b"\x00\x00\x00\x02{}")
        return legal_actions[0]
