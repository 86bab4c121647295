"""A sleeper: plays well for its first matches (the submission check), then sends a lone surrogate.

From its ``SLEEP_MATCHES + 1``-th two-player match in one process it writes, at its
first decision, a reply frame of its own straight into the ladder's channel:
an error report whose text holds lone surrogates (``"\\ud800"``), which JSON's
parser accepts and no database can store. Before that it writes lines to its
stderr that imitate the ladder's own log lines and carry terminal escapes.
"""

from __future__ import annotations

import os
import struct
import sys

from ladder.bot import Bot

SLEEP_MATCHES = 2  # the check plays this many two-player matches (--matches 1), the table sizes taking turns
FORGED = "ladder.tournament INFO: tournament forged #1 complete: 999 of 999 matches recorded"
_matches = 0


def _request_seq() -> int:
    frame = sys._getframe()
    while frame is not None:
        request = frame.f_locals.get("request")
        if isinstance(request, dict) and isinstance(request.get("seq"), int):
            return request["seq"]
        frame = frame.f_back
    raise RuntimeError("no request on the stack")


class SurrogateReply(Bot):
    name = "surrogate-reply"
    author = "the trust tests"
    games = ("elfer-raus",)

    def start(self, match):
        global _matches
        super().start(match)
        _matches += match.num_players == 2

    def act(self, observation, legal_actions):
        if _matches > SLEEP_MATCHES:
            import __main__  # the bot host: its reply channel is a module global

            sys.stderr.write(f"2026-01-01 00:00:00,000 MainProcess[1] {FORGED}\n\x1b]0;pwned\x07\x1b[2J\n")
            sys.stderr.flush()
            body = (
                '{"seq":%d,"error":{"type":"Boom\\ud800","message":"lone \\ud800 and \\udfff",'
                '"traceback":"\\ud800"}}' % _request_seq()
            ).encode()
            os.write(__main__._OUT, struct.pack(">I", len(body)) + body)
        return legal_actions[0]
