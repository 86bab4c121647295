"""Tries to overwrite its own code, another bot's code and the ladder's database."""

from ladder.bot import Bot

TARGETS: list = []  # filled in by the test


class WriteFiles(Bot):
    name = "write-files"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        errors = []
        for path in TARGETS + [__file__]:
            try:
                with open(path, "wb") as target:
                    target.write(b"owned")
            except OSError as error:
                errors.append(f"{path}: {type(error).__name__}")
        raise PermissionError("; ".join(errors))
