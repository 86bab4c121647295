"""Runs a shell command."""

import subprocess

from ladder.bot import Bot


class SubprocessShell(Bot):
    name = "subprocess-shell"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        subprocess.run(["/bin/sh", "-c", "cat /etc/shadow >&2; sleep 1000"], check=False)
        return legal_actions[0]
