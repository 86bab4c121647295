"""A bot for the author's-view tests: plays Elfer raus with the default rules at every table size (so it passes
`ladder validate`, which plays the default options), writes a line to stderr in every match, and gives up at a table
of three when Number swap is on (as the test tournament plays it), with markup in its stderr and author (hostile
text the report must escape)."""

import sys

from ladder.bot import Bot


class Crowd(Bot):
    name = "crowd"
    author = "<script>alert('author')</script>"
    version = "1"
    games = ("elfer-raus",)

    def start(self, match):
        super().start(match)
        print(f"crowd: seat {match.seat} of {match.num_players}", file=sys.stderr)

    def act(self, observation, legal_actions):
        if self.match.num_players == 3 and self.match.options.get("number_swap"):
            print("<b>crowd gives up</b> <script>alert('stderr')</script>", file=sys.stderr)
            raise RuntimeError("three is a crowd")
        return legal_actions[0]
