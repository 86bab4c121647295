"""The FastAPI app: the API and the pages, with the guards every request passes.

- a token (or anything named like one) in the query string is refused before any route runs: URLs are
  logged by proxies and kept in browser histories (:data:`service.web.security.TOKEN_QUERY_KEYS`);
- the access log names the method, the path without its query string, the status and the author, never a
  header or a cookie;
- pages are sent with headers that keep them out of frames, stop content sniffing and allow no script, style or
  data from anywhere but the server itself (a Content-Security-Policy; not on the API's /docs and /redoc pages).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Protocol

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.engine import Engine
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.settings import ServeSettings
from service.web import errors
from service.web.routes import api, pages, replay_data
from service.web.security import TOKEN_QUERY_KEYS

access = logging.getLogger("ladder.serve.access")

DESCRIPTION = """The served ladder's API. Authors submit bots with a token sent as `Authorization: Bearer <token>`
(never in a URL); `ladder submit PATH --server URL` does it for you. Leaderboards, bots and matches are public; a
submission's check output and a bot's stderr are shown only to its author and the operator."""


class Runtime(Protocol):
    """What the app asks of the server around it (the scheduler and the checker)."""

    def scheduler_status(self) -> str: ...

    def tournament_id(self) -> int | None: ...

    def wake_checker(self) -> None: ...


class Detached:
    """A runtime without scheduler or checker (the app alone, e.g. in tests of its pages)."""

    def scheduler_status(self) -> str:
        return "not running"

    def tournament_id(self) -> int | None:
        return None

    def wake_checker(self) -> None:
        return None


# The pages load scripts, styles and data from this server only and run no inline script: a bot name or an
# stderr line that slipped past escaping still could not run. FastAPI's /docs and /redoc pages load Swagger UI and
# ReDoc from a CDN with an inline script, so they are served without it.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
API_DOC_PAGES = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})
ENCODED_SLASH = b"%2f"
FORM_OVERHEAD = 64 * 1024  # a multipart body's headers and fields beside the file


def _too_large(request: Request, settings: ServeSettings) -> bool:
    """Whether the request declares a body larger than an upload may be (refused before a byte of it is read)."""
    length = request.headers.get("content-length", "")
    return length.isdigit() and int(length) > settings.uploads.max_bytes + FORM_OVERHEAD


class HeadAsGet:
    """Answer ``HEAD`` wherever ``GET`` is answered (RFC 9110): the request goes on as a ``GET`` and its response
    is sent with its headers and without its body. FastAPI routes a ``GET`` only (``HEAD /`` was a 405)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class BodyLimit:
    """Stop reading a request body past ``limit`` bytes, whatever its headers said (a chunked upload has no
    length to check first): the request ends with 413 and one sentence."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise HTTPException(
                        413,
                        f"the request is larger than this server takes "
                        f"({self.limit // (1024 * 1024)} MB); the rest was not read",
                    )
            return message

        await self.app(scope, limited, send)


def create_app(engine: Engine, settings: ServeSettings, runtime: Runtime | None = None) -> FastAPI:
    app = FastAPI(title="The ladder", description=DESCRIPTION, version="1")
    app.state.engine = engine
    app.state.settings = settings
    app.state.runtime = runtime or Detached()
    errors.install(app)
    app.include_router(api.router)
    app.include_router(replay_data.router)
    app.include_router(pages.router)
    app.add_middleware(BodyLimit, limit=settings.uploads.max_bytes + FORM_OVERHEAD)
    app.add_middleware(HeadAsGet)
    # the report's replay viewer (one script and its style sheets), served as the static report ships it; mounted
    # before /static, which would otherwise take these paths
    app.mount(
        "/static/report", StaticFiles(directory=str(resources.files("ladder.report") / "static")), name="report-static"
    )
    app.mount("/static", StaticFiles(directory=str(Path(__file__).resolve().parent / "static")), name="static")

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        started = time.perf_counter()
        keys = {key.lower() for key in request.query_params}
        if _too_large(request, settings):
            response: Response = errors.answer(
                request,
                413,
                f"the request is larger than this server takes ({settings.uploads.max_bytes // (1024 * 1024)} MB "
                "for an upload); nothing was read",
            )
        elif keys & TOKEN_QUERY_KEYS:
            response = errors.answer(
                request,
                400,
                "tokens go in the Authorization header (or the login form), never in a URL: URLs end up in "
                "logs; this request was refused",
            )
        elif ENCODED_SLASH in request.scope.get("raw_path", b"").lower():
            # a name holds no '/': decoded, `/bots/a%2Fb` would reach another route (`/bots/{name}/{action}`)
            response = errors.answer(
                request, 404, "there is no such page: no bot, pool or match name holds a '/' (sent as %2F)"
            )
        else:
            response = await call_next(request)
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        if request.url.path not in API_DOC_PAGES:
            response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        access.info(
            "%s %s %d %.0f ms",
            request.method,
            request.url.path,
            response.status_code,
            (time.perf_counter() - started) * 1000,
        )
        return response

    return app
