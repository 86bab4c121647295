"""FastAPI dependencies: the database session, who is asking, and the checks that guard every change."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request
from sqlmodel import Session

from ladder.store.served_tables import AuthorRow, WebSessionRow
from service.security import (
    CSRF_FIELD,
    CSRF_HEADER,
    SESSION_COOKIE,
    author_for_token,
    same_secret,
    web_session_for,
)


def db_session(request: Request) -> Iterator[Session]:
    with Session(request.app.state.engine, expire_on_commit=False) as session:
        yield session


DB = Annotated[Session, Depends(db_session)]

# A row id in a URL: SQLite's integers stop at 2**63 - 1, and a larger one must not reach the database (a 500).
RowId = Annotated[int, Path(ge=0, le=2**63 - 1, description="a row id")]


@dataclass(frozen=True)
class Identity:
    author: AuthorRow
    web: WebSessionRow | None  # None: a bearer token (no cookie, so no CSRF to check)


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def identify(request: Request, session: Session) -> Identity | None:
    """Who sent the request: a bearer token (a wrong or revoked one is refused, not ignored), else the cookie."""
    token = bearer_token(request)
    if token is not None:
        author = author_for_token(session, token)
        if author is None:
            raise HTTPException(
                401, "this token is not valid: it is wrong or was revoked; ask the operator for a new one"
            )
        return Identity(author, None)
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        found = web_session_for(session, cookie)
        if found is not None:
            return Identity(found[1], found[0])
    return None


def viewer(request: Request, session: DB) -> Identity | None:
    return identify(request, session)


Viewer = Annotated[Identity | None, Depends(viewer)]


async def check_csrf(request: Request, who: Identity) -> None:
    """A change made through the login cookie must carry the session's CSRF token (form field or header)."""
    if who.web is None:
        return
    given = request.headers.get(CSRF_HEADER, "")
    if not given and request.headers.get("content-type", "").startswith(
        ("multipart/form-data", "application/x-www-form-urlencoded")
    ):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        given = value if isinstance(value, str) else ""
    if not given or not same_secret(given, who.web.csrf_token):
        raise HTTPException(403, "this form is missing its CSRF token or it is stale; reload the page and try again")


async def author_for_change(request: Request, session: DB) -> Identity:
    """The author of a request that changes something: a valid token (or a logged-in browser with its CSRF token)."""
    who = identify(request, session)
    if who is None:
        raise HTTPException(
            401,
            "this needs an author's token: send it as `Authorization: Bearer <token>` "
            "(`ladder login URL` stores it for `ladder submit --server`)",
        )
    await check_csrf(request, who)
    return who


Changer = Annotated[Identity, Depends(author_for_change)]


async def operator_for_change(who: Changer) -> Identity:
    if not who.author.is_operator:
        raise HTTPException(403, "only the operator may do this")
    return who


Operator = Annotated[Identity, Depends(operator_for_change)]
