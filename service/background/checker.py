"""The checker: a thread of the server that checks queued submissions one at a time, each in its own process.

A submission is accepted (its files on disk, its row ``queued``) before the author gets its id; the checker
then runs :mod:`service.background.check_job` for it. Running the check in a child process keeps a bot's build and
sandboxed matches out of the web server's process, and lets the server stop or time out a check that hangs.
A submission found ``checking`` at start-up was interrupted by a stop or a crash: it is checked again (at
most :data:`MAX_ATTEMPTS` times in all).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading

from sqlalchemy.engine import Engine
from sqlmodel import Session

from ladder.store import served_schedule
from ladder.store.served_tables import SubmissionRow, SubmissionState
from ladder.store.tables import utcnow
from ladder.text import clean_text
from service.settings import ServeSettings
from service.upload_area import remove_upload

log = logging.getLogger("ladder.serve")
MAX_ATTEMPTS = 3


class Checker(threading.Thread):
    """Checks submissions until :meth:`stop` (see the module docstring)."""

    def __init__(self, engine: Engine, settings: ServeSettings) -> None:
        super().__init__(name="ladder-checker", daemon=True)
        self.engine = engine
        self.settings = settings
        self.wake = threading.Event()
        self.stopping = threading.Event()
        self.process: subprocess.Popen[str] | None = None
        self.current: int | None = None  # the submission being checked
        self.interrupted: int | None = None  # the submission whose check the stop ended (checked again at the start)

    def stop(self) -> None:
        """Stop now (safe in a signal handler): a check in progress is ended, and checked again at the next start."""
        self.stopping.set()
        self.wake.set()
        process = self.process
        if process is not None and process.poll() is None:
            self.interrupted = self.current
            process.terminate()

    def run(self) -> None:
        while not self.stopping.is_set():
            submission = self._next()
            if submission is None:
                self.wake.wait(2.0)
                self.wake.clear()
                continue
            try:
                self._check(submission)
            except Exception:  # the checker must outlive any one submission
                log.exception("checking submission #%d failed", submission)

    def _next(self) -> int | None:
        with Session(self.engine) as session:
            row = served_schedule.next_to_check(session)
            if row is None:
                return None
            assert row.id is not None
            if row.attempts >= MAX_ATTEMPTS:
                self._finish(
                    session, row, f"the server stopped {row.attempts} times while checking it; submit it again"
                )
                return self._next()
            row.state, row.attempts = SubmissionState.CHECKING.value, row.attempts + 1
            session.add(row)
            session.commit()
            return row.id

    def _finish(self, session: Session, row: SubmissionRow, problem: str, explanation: str = "") -> None:
        row.state, row.problem, row.explanation, row.finished_at = (
            SubmissionState.FAILED.value,
            problem,
            explanation,
            utcnow(),
        )
        session.add(row)
        session.commit()
        remove_upload(row)

    def _command(self, submission: int) -> list[str]:
        command = [
            sys.executable,
            "-m",
            "service.background.check_job",
            "--submission",
            str(submission),
            "--matches",
            str(self.settings.check_matches),
            "--cap",
            str(self.settings.active_versions_per_author),
            "--parent-pid",
            str(os.getpid()),
        ]
        if self.settings.db_url:
            command[3:3] = ["--db", self.settings.db_url]
        return command

    def _check(self, submission: int) -> None:
        if self.stopping.is_set():
            return  # stopped as it was taken: left `checking`, checked at the next start
        log.info("checking submission #%d", submission)
        self.current = submission
        self.process = subprocess.Popen(
            self._command(submission),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        if self.stopping.is_set():  # stopped while it started: stop() may have found no process to end
            self.interrupted = submission
            self.process.terminate()
        try:
            out, err = self.process.communicate(timeout=self.settings.check_timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
            self._failed(submission, f"the check took longer than {self.settings.check_timeout:g} s", err)
            return
        finally:
            code = self.process.returncode
            self.process, self.current = None, None
        if self.stopping.is_set():
            return  # stopped mid-check: left `checking`, checked again at the next start
        with Session(self.engine) as session:
            row = session.get(SubmissionRow, submission)
            if row is not None and SubmissionState(row.state).final:
                remove_upload(row)
            elif row is not None:
                log.error(
                    "the check of submission #%d ended (exit %s) without a verdict: %s",
                    submission,
                    code,
                    clean_text(err[-2000:]),
                )
                self._finish(session, row, "the check failed on the server's side; the operator can see its log", "")
        log.info("submission #%d checked: %s", submission, out.strip()[-200:])

    def _failed(self, submission: int, problem: str, output: str) -> None:
        with Session(self.engine) as session:
            row = session.get(SubmissionRow, submission)
            if row is not None:
                self._finish(session, row, problem, clean_text(output)[-2000:])
