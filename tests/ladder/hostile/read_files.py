"""Tries to read files it has no business reading: other bots' code, the ladder's database, /etc/shadow.

Prints whatever it manages to read to stderr (the tests check none of it
arrives) and raises if it read nothing.
"""

import sys

from ladder.bot import Bot

TARGETS: list = []  # filled in by the test


class ReadFiles(Bot):
    name = "read-files"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        failures = []
        for path in TARGETS + ["/etc/shadow", "/etc/passwd", "/root/.bash_history"]:
            try:
                with open(path, "rb") as stolen:
                    print(f"READ {path}: {stolen.read(4096)!r}", file=sys.stderr)
            except OSError as error:
                failures.append(f"{path}: {type(error).__name__}")
        raise PermissionError("could not read: " + "; ".join(failures))
