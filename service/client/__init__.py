"""The author's side: ``ladder login URL`` and ``ladder submit PATH --server URL``.

The token comes from ``$LADDER_TOKEN``, else from the file ``ladder login`` wrote (the user's config folder,
``$XDG_CONFIG_HOME/ladder/servers.json`` or ``~/.config/ladder/servers.json``, mode 0600: readable by its
owner only). It travels only in the ``Authorization`` header.
"""

from __future__ import annotations

import ipaddress
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from ladder.errors import UserError
from ladder.sandbox.submission import read_files
from service.client.packing import pack_folder

WAIT_SECONDS = 1800.0


def config_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ladder" / "servers.json"


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normal_url(url: str) -> str:
    """The server's address, refused when it is not one, or when it is plain http to another machine: the
    token travels with every request, and over http anyone on the way reads it."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{url!r} is not a server address: give it as https://host[:port] (or http:// on this machine)")
    if scheme == "http" and not _loopback(parts.hostname):
        raise UserError(
            f"{url!r} is plain http to another machine: the token would travel in clear; use https:// "
            "(http:// only to this machine)"
        )
    return f"{scheme}{url[len(scheme) :]}"


def _saved() -> dict[str, str]:
    path = config_file()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        raise UserError(f"{path} is not readable JSON; delete it and run `ladder login URL` again") from None
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def save_token(url: str, token: str) -> Path:
    """Store ``token`` for ``url`` in the user's config folder, readable by its owner only."""
    path = config_file()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tokens = _saved() | {normal_url(url): token}
    partial = path.with_suffix(".partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(tokens, handle, indent=2)
    os.chmod(partial, 0o600)
    os.replace(partial, path)
    return path


def token_for(url: str) -> str:
    token = os.environ.get("LADDER_TOKEN", "").strip() or _saved().get(normal_url(url), "")
    if not token:
        raise UserError(f"no token for {normal_url(url)}: set LADDER_TOKEN or run `ladder login {normal_url(url)}`")
    return token


def _detail(response: httpx.Response) -> str:
    try:
        detail = response.json().get("detail")
    except ValueError:
        detail = None
    if isinstance(detail, list):  # a validation error: its first message
        detail = "; ".join(str(item.get("msg", item)) for item in detail[:3])
    return str(detail or response.text[:300] or response.reason_phrase)


class Client:
    def __init__(self, url: str, token: str, timeout: float = 60.0) -> None:
        self.url = normal_url(url)
        self.http = httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {token}"}, timeout=timeout)

    def close(self) -> None:
        self.http.close()

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as error:
            raise UserError(f"cannot reach the server at {self.url}: {type(error).__name__}: {error}") from None
        if response.status_code >= 400:
            raise UserError(f"the server refused: {_detail(response)} (HTTP {response.status_code})")
        return response.json()

    def me(self) -> dict[str, Any]:
        result: dict[str, Any] = self.call("GET", "/api/me")
        return result

    def submit(self, path: str, name: str | None) -> dict[str, Any]:
        source = Path(path)
        files = read_files(path)  # the same refusals as a local submit: missing, not Python, links, too big
        if source.is_file():
            upload = (source.name, files["bot.py"], "text/x-python")
        else:
            upload = (f"{source.resolve().name}.tar.gz", pack_folder(files), "application/gzip")
        result: dict[str, Any] = self.call(
            "POST", "/api/submissions", files={"file": upload}, data={"name": name or ""}
        )
        return result

    def wait(self, submission: int, said: Callable[[str], None], timeout: float = WAIT_SECONDS) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        last = ""
        while True:
            status: dict[str, Any] = self.call("GET", f"/api/submissions/{submission}")
            if status["state"] != last:
                said(status["state"])
                last = status["state"]
            if status["state"] in ("active", "failed") or time.monotonic() > deadline:
                return status
            time.sleep(1.0)
