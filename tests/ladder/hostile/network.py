"""Opens a TCP connection to the internet (a DNS server) to leak or fetch something."""

import socket

from ladder.bot import Bot


class Network(Bot):
    name = "network"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        with socket.create_connection(("1.1.1.1", 53), timeout=2) as connection:
            connection.sendall(b"leak")
        return legal_actions[0]
