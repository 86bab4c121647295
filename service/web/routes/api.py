"""The JSON API (documented by FastAPI at ``/docs`` and ``/openapi.json``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, HTTPException, Request, Response, UploadFile
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from ladder.ratings.pools import PoolKey
from ladder.store.served_bots import Action, set_bot_state
from ladder.views import leaderboard, live
from ladder.views import served as views
from service.web.intake import Quota, accept, quota_of
from service.web.routes.deps import DB, Changer, Operator, RowId, Viewer

router = APIRouter(prefix="/api", tags=["api"])


class Accepted(BaseModel):
    """A submission taken: queued for its check (HTTP 202), or ``unchanged``, the same files as the author's latest
    submission of them (HTTP 200: nothing queued, no quota spent; ``id`` is that submission's)."""

    id: int
    state: str
    status_url: str
    unchanged: bool = False
    bot: str = ""
    version: str = ""  # an unchanged one's version label ("" while the submission it repeats waits for its check)
    content_hash: str = ""
    message: str = ""
    quota: Quota


class Me(BaseModel):
    name: str
    role: str
    submissions: list[views.SubmissionView]
    quota: Quota


class StateChange(BaseModel):
    bot: str
    state: str


class Status(BaseModel):
    scheduler: str
    queued_submissions: int
    tournament_id: int | None


@router.get(
    "/leaderboards",
    response_model=leaderboard.Rankings,
    summary="Every pool's leaderboard with its verdict, and the overall table (docs/leaderboard-json.md): among "
    "the latest versions of each bot by default (as `ladder rankings --latest-versions`), every version's with "
    "`?versions=all`",
)
def get_leaderboards(session: DB, versions: leaderboard.Versions = leaderboard.Versions.LATEST) -> leaderboard.Rankings:
    return views.rankings(session, versions)


class Live(BaseModel):
    marker: str  # changes whenever a page would (ladder.views.live)


@router.get(
    "/live",
    response_model=Live,
    summary="A short marker of the ladder as the requester sees it: the live pages poll it and fetch themselves "
    "again when it changes (matches played, bots' and versions' states, the requester's own submissions)",
)
def get_live(response: Response, session: DB, who: Viewer) -> Live:
    response.headers["Cache-Control"] = "private, no-store"
    return Live(marker=live.marker(session, who.author if who else None))


@router.get("/status", response_model=Status, summary="What the scheduler is doing")
def get_status(request: Request, session: DB) -> Status:
    queued = views.queued_submissions(session)
    runtime = request.app.state.runtime
    return Status(
        scheduler=runtime.scheduler_status(), queued_submissions=queued, tournament_id=runtime.tournament_id()
    )


@router.get("/bots/{name}", response_model=views.BotView, summary="A bot: its versions, ratings and latest matches")
def get_bot(name: str, session: DB, who: Viewer) -> views.BotView:
    return views.bot_view(session, name, who.author if who else None)[0]


@router.get(
    "/bots/{name}/stderr",
    response_model=list[views.FailureView],
    summary="The bot's own stderr from its latest matches (its author and the operator only)",
)
def get_bot_stderr(name: str, session: DB, who: Viewer) -> list[views.FailureView]:
    views.bot_view(session, name, None)  # 404 before 401: whether a bot exists is public
    if who is None:
        raise HTTPException(401, "a bot's stderr is shown only to its author and the operator: send your token")
    return views.bot_stderr(session, name, who.author)


@router.get(
    "/h2h/{game}/{players}",
    response_model=views.HeadToHead,
    summary="Head to head in a pool: for each ordered pair, how often the first finished ahead, behind, tied",
)
def get_head_to_head(game: str, players: int, session: DB) -> views.HeadToHead:
    return views.head_to_head(session, str(PoolKey(game, players)))


@router.get("/matches/{match_id}", response_model=views.MatchView, summary="A recorded match: seats, scores, ranks")
def get_match(match_id: RowId, session: DB, who: Viewer) -> views.MatchView:
    return views.match_view(session, match_id, who.author if who else None)


@router.get("/me", response_model=Me, summary="Who the token belongs to, and their submissions")
def get_me(request: Request, session: DB, who: Viewer) -> Me:
    if who is None:
        raise HTTPException(401, "this needs an author's token: send it as `Authorization: Bearer <token>`")
    mine = views.submissions_of(session, None if who.author.is_operator else who.author)
    quota = quota_of(session, who.author, request.app.state.settings.submissions_per_hour)
    return Me(name=who.author.name, role=who.author.role, submissions=mine, quota=quota)


@router.post(
    "/submissions",
    response_model=Accepted,
    status_code=202,
    summary="Submit a bot: a .py file, or a bot folder as .tar.gz or .zip (checked in the background; the same "
    "files again are answered at once as unchanged, with no quota spent)",
    responses={200: {"model": Accepted, "description": "unchanged: the same files as the author's latest submission"}},
)
async def post_submission(
    request: Request,
    response: Response,
    session: DB,
    who: Changer,
    file: Annotated[UploadFile, File(description="the bot: .py, .tar.gz or .zip")],
    name: Annotated[str, Form(description="register under this name instead of the class's")] = "",
) -> Accepted:
    settings = request.app.state.settings
    data = await file.read(settings.uploads.max_bytes + 1)
    taken = await run_in_threadpool(accept, session, who.author, data, file.filename or "upload", name, settings)
    row = taken.submission
    assert row.id is not None
    if taken.unchanged:
        response.status_code = 200
    else:
        request.app.state.runtime.wake_checker()
    return Accepted(
        id=row.id,
        state=row.state,
        status_url=f"/api/submissions/{row.id}",
        unchanged=taken.unchanged,
        bot=row.bot_name,
        version=taken.version.version if taken.version else "",
        content_hash=taken.version.content_hash if taken.version else "",
        message=taken.message(),
        quota=taken.quota,
    )


@router.get(
    "/submissions/{submission_id}",
    response_model=views.SubmissionView,
    summary="A submission's state (checking / active / failed) with the reason and output (its author and the operator only)",
)
def get_submission(submission_id: RowId, session: DB, who: Viewer) -> views.SubmissionView:
    if who is None:
        raise HTTPException(401, "this needs an author's token: send it as `Authorization: Bearer <token>`")
    return views.visible_submission(session, submission_id, who.author)


@router.post(
    "/bots/{name}/{action}",
    response_model=StateChange,
    summary="Pause, bench, retire or resume a bot (the operator only)",
)
def post_bot_action(
    name: str, action: Action, session: DB, _who: Operator, reason: Annotated[str, Form()] = ""
) -> StateChange:
    state = set_bot_state(session, name, action, reason)
    return StateChange(bot=name, state=state.value)
