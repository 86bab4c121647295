"""Errors that are the user's to fix: the CLI prints them as one line, never a traceback.

Each kind of user error is a subclass of :class:`UserError`, raised where the case arises (the read model, the
store, the service's intake and security), so that a reader of the error (the CLI's one line, the web app's one
exception handler that picks the HTTP status) asks its class, never its message's text.
"""

from __future__ import annotations


class UserError(Exception):
    """A mistake in what the user asked for (a bad value, file or name), explained in one sentence."""


class NotFound(UserError):
    """What was asked for is not there: no such bot, match, tournament, author or submission (HTTP 404)."""


class Conflict(UserError):
    """The request contradicts the state it meets: retiring a retired bot, revoking a revoked token (HTTP 409)."""


class Forbidden(UserError):
    """The asker may not see or do this: it belongs to another author, or only the operator may (HTTP 403)."""


class Refused(UserError):
    """What was sent is refused as it is: an unusable upload, name or value (HTTP 400)."""


class OverQuota(UserError):
    """Too much, too often: an author's submissions past the rate the server allows (HTTP 429)."""
