"""Errors that are the user's to fix: the CLI prints them as one line, never a traceback."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in what the user asked for (a bad value, file or name), explained in one sentence."""
