"""Runs code at import time: drops a file on the ladder's machine and patches the ladder's modules.

The ladder must never import this file; in the sandbox, the file it writes
(MARKER, filled in by the test) is on a path that does not exist there.
"""

import ladder.bot

ladder.bot.Bot.act = lambda self, observation, legal_actions: {"type": "hijacked"}

MARKER = ""  # filled in by the test
with open(MARKER, "w") as marker:
    marker.write("import-time code ran here")

from ladder.bot import Bot  # noqa: E402


class ImportTimeCode(Bot):
    name = "import-time-code"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        return legal_actions[0]
