"""Each kind of user error (:mod:`ladder.errors`) answered with its HTTP status, in one place: the routes, the
intake and the store raise the kind, and :func:`install` answers it as FastAPI answers an ``HTTPException``
(``{"detail": message}``), so no route picks a status, least of all by reading a message's text."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ladder.errors import Conflict, Forbidden, NotFound, OverQuota, Refused, UserError

STATUS: dict[type[UserError], int] = {
    NotFound: 404,
    Conflict: 409,
    Forbidden: 403,
    Refused: 400,
    OverQuota: 429,
}
"""The HTTP status of each kind; any other user error is a bad request (400)."""


def status_of(error: UserError) -> int:
    """The HTTP status of ``error``'s kind (its nearest kind in :data:`STATUS`)."""
    return next((code for kind, code in STATUS.items() if isinstance(error, kind)), 400)


async def _answer(_request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, UserError)
    return JSONResponse({"detail": str(error)}, status_code=status_of(error))


def install(app: FastAPI) -> None:
    """Answer every :class:`~ladder.errors.UserError` a request raises with its status and its sentence."""
    app.add_exception_handler(UserError, _answer)
