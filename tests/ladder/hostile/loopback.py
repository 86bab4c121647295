"""Connects to a service on the ladder's machine (127.0.0.1:PORT, filled in by the test)."""

import socket

from ladder.bot import Bot

PORT = 0  # filled in by the test


class Loopback(Bot):
    name = "loopback"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        with socket.create_connection(("127.0.0.1", PORT), timeout=2) as connection:
            connection.sendall(b"hello from the bot")
        return legal_actions[0]
