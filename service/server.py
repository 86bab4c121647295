"""``ladder serve``: the web app, the checker and the scheduler in one process, stopped cleanly by Ctrl-C.

uvicorn serves the app in the main thread and handles Ctrl-C / SIGTERM: it stops taking requests, then the
checker is stopped at once (a check in progress is checked again at the next start) and the scheduler stops
handing out matches at once and waits for those in flight, which are recorded (a second Ctrl-C abandons them,
saying which: they are played at the next start). Every process the server starts dies with it, ``kill -9``
included (:mod:`ladder.sandbox.parent_death`). Nothing is lost to ``kill -9`` either: see :mod:`service.background.scheduler` and
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
GRACE_SECONDS = 3
"""How long a stopping web server waits for the requests in progress (a slow upload, a long poll) before it closes."""


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


class Stopper:
    """Ctrl-C / SIGTERM for the whole server, from the first signal on: the first stops the checker and the handing
    out of matches at once (not after the web server has closed its connections), the second abandons the matches
    in flight."""

    def __init__(self, stop: StopSignals, checker: Checker) -> None:
        self.stop = stop
        self.checker = checker

    def signalled(self) -> None:
        if not self.stop.requested:
            self.stop.requested = True
            log.info(
                "stopping: no match is handed out now; finishing the matches in flight (Ctrl-C again to abandon them)"
            )
            self.checker.stop()
        elif not self.stop.abandon:
            self.stop.abandon = True
            log.info("abandoning the matches in flight (they are played at the next start)")

    def install(self) -> None:
        """The handler once the web server has stopped (it handles the signals until then)."""
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, lambda _signum, _frame: self.signalled())


def abandoned_line(keys: list[str], interrupted: int | None) -> str:
    """The one line a second Ctrl-C leaves: what was given up, to be done at the next start."""
    shown = ", ".join(keys[:10]) + (f" and {len(keys) - 10} more" if len(keys) > 10 else "")
    line = f"abandoned {len(keys)} match{'' if len(keys) == 1 else 'es'} in flight" + (f": {shown}" if keys else "")
    check = f"the check of submission #{interrupted}" if interrupted is not None else "no check"
    return f"{line}; {check}; all played or checked again at the next start"


def _server_class(stopper: Stopper) -> type:
    import uvicorn

    class QuietServer(uvicorn.Server):
        """uvicorn's server, which tells the :class:`Stopper` of each signal, and does not send the stopping signal
        again once it has stopped (the default): the scheduler still has its matches in flight to finish and
        record."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            stopper.signalled()
            if self.should_exit:
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
        timeout_graceful_shutdown=GRACE_SECONDS,
    )
    log.info("serving on http://%s:%d (Ctrl-C stops)", settings.host, settings.port)
    stopper = Stopper(stop, checker)
    try:
        _server_class(stopper)(config).run()
    finally:
        if not stop.requested:  # the web server ended by itself: stop the rest
            stopper.signalled()
        stopper.install()
        player.join()
        checker.join(timeout=10)
        engine.dispose()
        if stop.abandon:
            log.info("%s", abandoned_line(loop.abandoned, checker.interrupted))
        log.info("stopped")
