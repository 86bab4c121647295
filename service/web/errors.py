"""Each kind of user error (:mod:`ladder.errors`) answered with its HTTP status, in one place: the routes, the
intake and the store raise the kind, and :func:`install` answers it as FastAPI answers an ``HTTPException``
(``{"detail": message}``), so no route picks a status, least of all by reading a message's text.

Every refusal is answered in the asker's language (:func:`answer`): a browser asking for a page (``Accept:
text/html``, outside ``/api/``) gets a page in the site's template with the status and the one sentence; the API
and every other client get the JSON ``{"detail": sentence}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from ladder.errors import Conflict, Forbidden, NotFound, OverQuota, Refused, UserError
from service.web.security import CSRF_FIELD

STATUS: dict[type[UserError], int] = {
    NotFound: 404,
    Conflict: 409,
    Forbidden: 403,
    Refused: 400,
    OverQuota: 429,
}
"""The HTTP status of each kind; any other user error is a bad request (400)."""

TITLES = {
    400: "Bad request",
    401: "Log in first",
    403: "Not yours",
    404: "Not found",
    405: "Not allowed",
    409: "Conflict",
}
TEMPLATES = Jinja2Templates(directory=str(Path(__file__).resolve().parent / "templates"))


def status_of(error: UserError) -> int:
    """The HTTP status of ``error``'s kind (its nearest kind in :data:`STATUS`)."""
    return next((code for kind, code in STATUS.items() if isinstance(error, kind)), 400)


def wants_page(request: Request) -> bool:
    """Whether the asker is a browser asking for a page: outside the API, and ``text/html`` accepted by name."""
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get("accept", "")


def answer(request: Request, status: int, message: str, headers: Mapping[str, str] | None = None) -> Response:
    """A refusal: a page for a browser, else ``{"detail": message}`` (see the module docstring)."""
    if not wants_page(request):
        return JSONResponse({"detail": message}, status_code=status, headers=dict(headers or {}))
    context = {"status": status, "title": TITLES.get(status, "Refused"), "message": message}
    context |= {"who": None, "csrf": "", "csrf_field": CSRF_FIELD}
    page = TEMPLATES.TemplateResponse(request, "error.html", context, status_code=status, headers=dict(headers or {}))
    assert isinstance(page, HTMLResponse)
    return page


def _sentence(request: Request, status: int, detail: object) -> str:
    """The one sentence of an ``HTTPException``: its own, or one for the router's bare "Not Found" and kin."""
    if status == 404 and detail == "Not Found":
        return f"there is nothing at {request.url.path[:200]} on this server"
    if status == 405 and detail == "Method Not Allowed":
        return f"{request.url.path[:200]} does not take a {request.method} request"
    return str(detail)


async def _user_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, UserError)
    return answer(request, status_of(error), str(error))


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, StarletteHTTPException)
    return answer(request, error.status_code, _sentence(request, error.status_code, error.detail), error.headers)


async def _invalid(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestValidationError)
    if not wants_page(request):
        return JSONResponse({"detail": error.errors()}, status_code=422)
    first = error.errors()[0] if error.errors() else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("path", "query", "body"))
    return answer(request, 422, f"{where or 'the request'}: {first.get('msg', 'is not valid')}")


def install(app: FastAPI) -> None:
    """Answer every :class:`~ladder.errors.UserError`, ``HTTPException`` and invalid request with its status and
    its sentence, as a page or as JSON (:func:`answer`)."""
    app.add_exception_handler(UserError, _user_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _invalid)
