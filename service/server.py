"""``ladder serve``: the web app, the checker and the scheduler in one process, stopped cleanly by Ctrl-C.

uvicorn serves the app in the main thread and handles Ctrl-C / SIGTERM: it stops taking requests, then the
checker is stopped (a check in progress is checked again at the next start) and the scheduler stops handing
out matches and waits for those in flight, which are recorded (a second Ctrl-C abandons them: they are played
at the next start). Nothing is lost to ``kill -9`` either: see :mod:`service.background.scheduler` and
:mod:`service.web.intake`.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from typing import Any

from ladder.errors import UserError
from service.background.checker import Checker
from service.background.scheduler import ServeLoop
from service.db import open_service_database
from service.settings import ServeSettings
from service.web.app import create_app
from service.web.intake import sweep_orphans
from tournaments.coordinator.loop import StopSignals

log = logging.getLogger("ladder.serve")


class ServerRuntime:
    """The scheduler and the checker as the app sees them."""

    def __init__(self, loop: ServeLoop, checker: Checker) -> None:
        self.loop = loop
        self.checker = checker
        self.failed = ""

    def scheduler_status(self) -> str:
        return self.failed or self.loop.status

    def tournament_id(self) -> int | None:
        return getattr(self.loop, "tournament_id", None)

    def wake_checker(self) -> None:
        self.checker.wake.set()


def _play(runtime: ServerRuntime) -> None:
    try:
        runtime.loop.run()
    except UserError as error:
        runtime.failed = f"stopped: {error}"
        log.error("the scheduler stopped: %s", error)
    except Exception as error:  # the web server goes on: the status says why nothing is played
        runtime.failed = f"stopped: {type(error).__name__}: {error}"
        log.exception("the scheduler stopped")


def _server_class() -> type:
    import uvicorn

    class QuietServer(uvicorn.Server):
        """uvicorn's server, without sending the stopping signal again once it has stopped (the default): the
        scheduler still has its matches in flight to finish and record."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            else:
                self.should_exit = True

    return QuietServer


def serve(settings: ServeSettings) -> None:
    """Run until Ctrl-C or SIGTERM (see the module docstring)."""
    import uvicorn

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    engine = open_service_database(settings.db_url)
    from sqlmodel import Session

    with Session(engine) as session:
        removed = sweep_orphans(session)
    if removed:
        log.info("removed %d upload folder(s) left by a crash before their submission was recorded", removed)
    stop = StopSignals()
    loop = ServeLoop(engine, settings, stop)
    checker = Checker(engine, settings)
    runtime = ServerRuntime(loop, checker)
    player = threading.Thread(target=_play, args=(runtime,), name="ladder-scheduler", daemon=True)
    checker.start()
    player.start()
    config = uvicorn.Config(
        create_app(engine, settings, runtime),
        host=settings.host,
        port=settings.port,
        access_log=False,
        log_level="warning",
        server_header=False,
        proxy_headers=True,
        forwarded_allow_ips="127.0.0.1",
    )
    log.info("serving on http://%s:%d (Ctrl-C stops)", settings.host, settings.port)
    try:
        _server_class()(config).run()
    finally:
        log.info("stopping: finishing the matches in flight (Ctrl-C again to abandon them)")
        stop.requested = True

        def abandon(_signum: int, _frame: Any) -> None:
            stop.abandon = True

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, abandon)
        checker.stop()
        player.join()
        checker.join(timeout=10)
        engine.dispose()
        log.info("stopped")
