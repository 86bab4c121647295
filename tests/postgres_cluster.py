"""A throwaway PostgreSQL cluster for the tests: initdb in a temporary folder, a Unix socket there, stopped after.

``$LADDER_TEST_POSTGRES_URL`` (a SQLAlchemy URL of a database whose user may CREATE DATABASE) uses a server
that is already running instead. Otherwise the cluster is made with Debian's binaries
(``/usr/lib/postgresql/*/bin``) or whatever ``initdb`` is on the PATH; PostgreSQL refuses to run as root, so
as root it runs as ``nobody`` (``runuser``). Without the binaries or psycopg, :func:`why_not` says why and the
PostgreSQL cases skip with that reason.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

URL_VARIABLE = "LADDER_TEST_POSTGRES_URL"
UNPRIVILEGED_USER = "nobody"


def _binaries() -> Path | None:
    """The folder with ``initdb`` and ``pg_ctl``: the newest Debian PostgreSQL, else the PATH's."""
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    if debian:
        return debian[-1].parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def why_not() -> str | None:
    """Why no PostgreSQL test can run here, or ``None`` when one can."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return 'psycopg is not installed (pip install ".[postgres]")'
    if os.environ.get(URL_VARIABLE):
        return None
    if _binaries() is None:
        return f"PostgreSQL is not installed (no initdb; apt-get install postgresql, or set ${URL_VARIABLE})"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "PostgreSQL refuses to run as root and runuser is not here to run it as nobody"
    return None


@dataclass
class PostgresServer:
    """A running server: ``fresh_url()`` makes an empty database on it for one test."""

    admin_url: str  # SQLAlchemy URL of a database to connect to for CREATE DATABASE
    folder: Path | None = None  # the cluster's folder when this process made it
    _numbers: itertools.count[int] = field(default_factory=itertools.count)

    def fresh_url(self) -> str:
        import psycopg
        from sqlalchemy.engine import make_url

        admin = make_url(self.admin_url)
        name = f"ladder_test_{os.getpid()}_{next(self._numbers)}"
        conninfo = admin.set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return admin.set(database=name).render_as_string(hide_password=False)


def _as_owner(command: list[str]) -> list[str]:
    return ["runuser", "-u", UNPRIVILEGED_USER, "--", *command] if os.geteuid() == 0 else command


def start() -> PostgresServer:
    """Start a cluster of its own (or use ``$LADDER_TEST_POSTGRES_URL``'s server)."""
    given = os.environ.get(URL_VARIABLE)
    if given:
        return PostgresServer(admin_url=given)
    binaries = _binaries()
    assert binaries is not None
    folder = Path(tempfile.mkdtemp(prefix="ladder-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, UNPRIVILEGED_USER)
    data = folder / "data"
    quiet = {"check": True, "capture_output": True, "text": True, "timeout": 120, "cwd": folder}
    subprocess.run(
        _as_owner([str(binaries / "initdb"), "-D", str(data), "-U", "ladder", "--auth=trust", "-E", "UTF8"])
        + ["--no-locale", "--no-sync"],
        **quiet,
    )
    # a Unix socket in the folder only (no port to collide with), and no durability: the cluster is thrown away
    options = f"-k {folder} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    subprocess.run(
        _as_owner([str(binaries / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "start"]),
        **quiet,
    )
    return PostgresServer(admin_url=f"postgresql+psycopg://ladder@/postgres?host={folder}", folder=folder)


def stop(server: PostgresServer) -> None:
    if server.folder is None:
        return
    binaries = _binaries()
    assert binaries is not None
    subprocess.run(
        _as_owner([str(binaries / "pg_ctl"), "-D", str(server.folder / "data"), "-m", "immediate", "-w", "stop"]),
        capture_output=True,
        timeout=60,
        cwd=server.folder,
    )
    shutil.rmtree(server.folder, ignore_errors=True)
