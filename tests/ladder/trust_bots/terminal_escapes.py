"""A bot whose description, exception and stderr carry terminal escape sequences and Rich markup."""

from __future__ import annotations

import sys

from ladder.bot import Bot

ESCAPES = "\x1b[2J\x1b[H\x1b]0;pwned-title\x07\x1b]52;c;ZXZpbA==\x07\x9b31m\x1b]8;;http://evil/\x1b\\"


class TerminalEscapes(Bot):
    name = "terminal-escapes"
    author = f"mallory{ESCAPES} [link=http://evil/]click[/link]"
    version = f"1{ESCAPES}"
    games = ("elfer-raus",)

    def act(self, observation, legal_actions):
        sys.stderr.write(f"stderr line{ESCAPES}\n")
        sys.stderr.flush()
        raise RuntimeError(f"boom{ESCAPES}")
