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

import hmac

from ladder.store.authors import SESSION_HOURS as SESSION_HOURS  # re-exported: the cookie's lifetime is the session's

SESSION_COOKIE = "ladder_session"
LOGIN_COOKIE = "ladder_login_csrf"  # the login form's double-submit token (no session exists yet)
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
TOKEN_QUERY_KEYS = frozenset({"token", "access_token", "api_key", "apikey", "key", "auth", "authorization", "session"})


def same_secret(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass"))
