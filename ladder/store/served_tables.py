"""The service's tables, in the ladder's own database beside its bots, matches and ratings.

They are SQLModel tables like the ladder's (:mod:`ladder.store`): importing this module registers them in
the same metadata, so :func:`service.db.open_service_database` creates them with the ladder's tables
(``create_all`` adds missing tables to an existing database and never touches the others).

Secrets are stored only as SHA-256 hashes (:mod:`service.web.security` says why a plain hash is enough).
"""

from __future__ import annotations

import enum
import json
from datetime import datetime

from sqlalchemy import BigInteger
from sqlmodel import Field, SQLModel

from ladder.store.tables import utcnow


class Role(enum.StrEnum):
    AUTHOR = "author"
    OPERATOR = "operator"


class SubmissionState(enum.StrEnum):
    """Where a submission is: waiting for the checker, being checked, playing, or refused with the reason."""

    QUEUED = "queued"
    CHECKING = "checking"
    ACTIVE = "active"
    FAILED = "failed"

    @property
    def final(self) -> bool:
        return self in (SubmissionState.ACTIVE, SubmissionState.FAILED)


class BotState(enum.StrEnum):
    """A served bot as the operator left it: playing, paused, benched (with a reason) or retired for good."""

    ACTIVE = "active"
    PAUSED = "paused"
    BENCHED = "benched"
    RETIRED = "retired"


class VersionState(enum.StrEnum):
    """A served bot version: scheduled (active), or past its author's cap of active versions (it keeps its ratings)."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"


class AuthorRow(SQLModel, table=True):
    """Someone who may submit bots (or, as the operator, run the ladder), known by a token."""

    __tablename__ = "serve_author"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    role: str = Role.AUTHOR.value
    token_hash: str = Field(index=True, unique=True)  # sha256 of the token: the token itself is never stored
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None

    @property
    def is_operator(self) -> bool:
        return self.role == Role.OPERATOR.value


class WebSessionRow(SQLModel, table=True):
    """A browser's login: the cookie's hash and the CSRF token its forms must carry."""

    __tablename__ = "serve_web_session"
    id: int | None = Field(default=None, primary_key=True)
    cookie_hash: str = Field(index=True, unique=True)
    author_id: int = Field(foreign_key="serve_author.id", index=True)
    csrf_token: str
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime


class SubmissionRow(SQLModel, table=True):
    """One upload: who sent it, where its files wait, what the check said."""

    __tablename__ = "serve_submission"
    id: int | None = Field(default=None, primary_key=True)
    author_id: int = Field(foreign_key="serve_author.id", index=True)
    state: str = SubmissionState.QUEUED.value
    filename: str = ""  # as the author's client named the upload (shown, never used as a path)
    upload_dir: str = ""  # the extracted files, relative to the results folder
    name_override: str = ""  # --name: register under this name instead of the class's
    bot_name: str = ""
    content_hash: str = ""
    # the hash of the files as uploaded (ladder.sandbox.submission.content_hash), written at intake: an identical
    # resubmission is found by it before any check (content_hash is that of what runs, after a build)
    source_hash: str = Field(default="", sa_column_kwargs={"server_default": ""})
    bot_version_id: int | None = Field(default=None, foreign_key="bot_version.id")
    problem: str = ""  # one sentence when the check failed
    explanation: str = ""  # the end of the bot's stderr or its build's output (shown to its author and the operator)
    check_json: str = "{}"  # the check's matches (games, scores, thinking time)
    attempts: int = 0  # check runs started (a server killed mid-check starts it again)
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None

    @property
    def check(self) -> dict[str, object]:
        loaded: dict[str, object] = json.loads(self.check_json or "{}")
        return loaded


class ServedBotRow(SQLModel, table=True):
    """A bot on the served ladder: which author owns its name, and whether the operator lets it play."""

    __tablename__ = "serve_bot"
    bot_id: int = Field(primary_key=True, foreign_key="bot.id")
    author_id: int = Field(foreign_key="serve_author.id", index=True)
    state: str = BotState.ACTIVE.value
    reason: str = ""  # why the operator paused, benched or retired it
    updated_at: datetime = Field(default_factory=utcnow)


class ServedVersionRow(SQLModel, table=True):
    """A version of a served bot: scheduled or superseded by its author's newer ones."""

    __tablename__ = "serve_version"
    bot_version_id: int = Field(primary_key=True, foreign_key="bot_version.id")
    bot_id: int = Field(foreign_key="bot.id", index=True)
    author_id: int = Field(foreign_key="serve_author.id", index=True)
    state: str = VersionState.ACTIVE.value
    activated_at: datetime = Field(default_factory=utcnow)


class PlannedMatchRow(SQLModel, table=True):
    """A match the scheduler has chosen, written before it is handed out: a restart plays what is missing of
    its round first, and deal numbers are never used twice."""

    __tablename__ = "serve_planned"
    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    round: int = Field(index=True, sa_type=BigInteger)
    key: str = Field(index=True)
    deal: str
    pool: str  # the rating pool, game/Kp
    number: int = Field(sa_type=BigInteger)  # the deal's number in its pool
    placement: bool = False
    version_ids_json: str = "[]"  # by seat

    @property
    def version_ids(self) -> list[int]:
        loaded: list[int] = json.loads(self.version_ids_json)
        return loaded
