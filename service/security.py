"""Tokens, browser sessions and CSRF: who is asking, and whether a browser really meant to ask.

Tokens come from :func:`secrets.token_urlsafe` (32 bytes, 256 bits) and are stored only as their SHA-256.
A slow password hash (bcrypt, argon2) exists to make guessing a *low-entropy* password from its hash costly;
a 256-bit random token cannot be guessed however fast the hash is, so a plain SHA-256 loses nothing and lets
the server find a token's author with one indexed lookup. The same holds for the login cookie.

A request proves who it is in one of two ways:

- ``Authorization: Bearer <token>`` (the CLI, scripts): a browser never adds this header by itself, so such a
  request cannot be forged by another site and needs no CSRF token;
- the login cookie (the web pages, after logging in with a token): the browser sends it with every request,
  so every request that changes something must also carry the session's CSRF token (a hidden form field or
  the ``X-CSRF-Token`` header), compared in constant time. The cookie is ``HttpOnly`` and
  ``SameSite=Strict`` (and ``Secure`` behind TLS, ``--secure-cookies``).

A token in a URL's query string is refused outright (URLs end up in logs, proxies and browser history).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlmodel import Session, select

from ladder.errors import UserError
from ladder.store.served_tables import AuthorRow, Role, WebSessionRow
from ladder.store.tables import utcnow

TOKEN_BYTES = 32
SESSION_COOKIE = "ladder_session"
LOGIN_COOKIE = "ladder_login_csrf"  # the login form's double-submit token (no session exists yet)
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
SESSION_HOURS = 12
TOKEN_QUERY_KEYS = frozenset({"token", "access_token", "api_key", "apikey", "key", "auth", "authorization", "session"})
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_secret(value: str) -> str:
    """SHA-256 of a high-entropy secret (a token or a cookie); see the module docstring for why that is enough."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def same_secret(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass"))


def add_author(session: Session, name: str, role: Role = Role.AUTHOR) -> str:
    """Add an author (or an operator); their token, which is shown once and never stored."""
    import re

    if not re.match(NAME_PATTERN, name):
        raise UserError(
            f"the name {name!r} is not usable: use 1 to 40 letters, digits, '_', '.' or '-', starting "
            "with a letter or digit"
        )
    existing = session.exec(select(AuthorRow).where(AuthorRow.name == name)).first()
    if existing is not None and existing.revoked_at is None:
        raise UserError(
            f"there is already an author {name!r}; `ladder author revoke {name}` first to give them a new token"
        )
    token = new_token()
    if existing is not None:  # a revoked author comes back with a new token (their bots stay theirs)
        existing.token_hash, existing.revoked_at, existing.role = hash_secret(token), None, role.value
        session.add(existing)
    else:
        session.add(AuthorRow(name=name, role=role.value, token_hash=hash_secret(token)))
    session.commit()
    return token


def revoke_author(session: Session, name: str) -> None:
    """Revoke an author's token and end their browser sessions (their bots and submissions stay)."""
    author = session.exec(select(AuthorRow).where(AuthorRow.name == name)).first()
    if author is None:
        raise UserError(f"there is no author {name!r}")
    if author.revoked_at is not None:
        raise UserError(f"the token of {name!r} is already revoked")
    author.revoked_at = utcnow()
    author.token_hash = f"revoked:{author.id}:{author.token_hash}"  # never matches a presented token again
    session.add(author)
    for web in session.exec(select(WebSessionRow).where(WebSessionRow.author_id == author.id)).all():
        session.delete(web)
    session.commit()


def author_for_token(session: Session, token: str) -> AuthorRow | None:
    """The (unrevoked) author whose token this is."""
    if not token or len(token) > 200:
        return None
    author = session.exec(select(AuthorRow).where(AuthorRow.token_hash == hash_secret(token))).first()
    return author if author is not None and author.revoked_at is None else None


@dataclass(frozen=True)
class WebLogin:
    cookie: str  # goes to the browser; only its hash is stored
    csrf_token: str


def open_web_session(session: Session, author: AuthorRow) -> WebLogin:
    assert author.id is not None
    for stale in session.exec(select(WebSessionRow).where(WebSessionRow.expires_at < utcnow())).all():
        session.delete(stale)  # expired logins are dropped as new ones open
    cookie, csrf = new_token(), new_token()
    session.add(
        WebSessionRow(
            cookie_hash=hash_secret(cookie),
            author_id=author.id,
            csrf_token=csrf,
            expires_at=utcnow() + timedelta(hours=SESSION_HOURS),
        )
    )
    session.commit()
    return WebLogin(cookie, csrf)


def web_session_for(session: Session, cookie: str) -> tuple[WebSessionRow, AuthorRow] | None:
    """The live browser session of a cookie, with its author (None when unknown, expired or revoked)."""
    if not cookie or len(cookie) > 200:
        return None
    web = session.exec(select(WebSessionRow).where(WebSessionRow.cookie_hash == hash_secret(cookie))).first()
    if web is None:
        return None
    expires = web.expires_at if web.expires_at.tzinfo else web.expires_at.replace(tzinfo=UTC)
    if expires < datetime.now(UTC):
        return None
    author = session.get(AuthorRow, web.author_id)
    if author is None or author.revoked_at is not None:
        return None
    return web, author


def close_web_session(session: Session, cookie: str) -> None:
    web = session.exec(select(WebSessionRow).where(WebSessionRow.cookie_hash == hash_secret(cookie))).first()
    if web is not None:
        session.delete(web)
        session.commit()
