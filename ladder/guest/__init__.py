"""The guest side: the files mounted into every bot's sandbox (the bot host, its protocol, the seccomp filter,
and the build host).

Rule: nothing here imports anything of the host side of ``ladder`` (only the standard library, ``bots.base``
and ``ladder.guest`` itself); ``lint-imports`` checks it. The sandbox mounts exactly the files named in
``ladder.sandbox.host_facts.API_LADDER_FILES`` (this file, ``ladder/__init__.py``, ``ladder/bot.py`` and the
guest's modules), which is also why ``ladder/__init__.py`` stays empty: it runs inside every sandbox.
"""
