"""Running an untrusted bot in its own sandboxed process (see ``docs/sandbox.md``), and what it needs: the limits,
the layers, the allowed packages, the move clock, the build step and the host's load.

Nothing here imports the store (``lint-imports`` checks it): a sandbox knows bots, not databases.
"""
