"""The live pages, rendered from the database on each request (Jinja templates in ``service/web/templates``).

Forms that change something (submit, log out, the operator's buttons) carry the session's CSRF token; the
login form carries a double-submit token of its own. A match's page is the report's replay viewer
(:func:`replay`), its data fetched over HTTP.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from ladder.ratings.pools import PoolKey
from ladder.report import plots
from ladder.store.authors import author_for_token, close_web_session, new_token, open_web_session
from ladder.store.served_bots import Action, set_bot_state
from ladder.store.served_tables import SubmissionState
from ladder.views import bot_figures, figures, leaderboard, live
from ladder.views import served as views
from service.web.errors import status_of
from service.web.intake import RateLimited, accept, quota_of
from service.web.routes.deps import DB, Changer, Identity, Operator, RowId, Viewer
from service.web.security import CSRF_FIELD, LOGIN_COOKIE, SESSION_COOKIE, SESSION_HOURS, same_secret
from service.web.uploads import UploadRefused

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).resolve().parents[1] / "templates"))


PLOTTED_VERSIONS = 5  # a bot page draws the rating history of its newest versions, this many at most


def render(request: Request, name: str, who: Identity | None, code: int = 200, **context: Any) -> HTMLResponse:
    """A page; a live one is given its ``live_marker`` (:func:`live_marker`), which ``static/live.js`` compares
    with ``/api/live`` to fetch the page again when it is out of date."""
    context |= {
        "who": who.author if who else None,
        "csrf": who.web.csrf_token if who and who.web else "",
        "csrf_field": CSRF_FIELD,
    }
    context.setdefault("live_marker", "")
    return templates.TemplateResponse(request, name, context, status_code=code)


def live_marker(session: DB, who: Identity | None, matches: tuple[int, int] | None = None) -> str:
    """The marker of what a page shows to ``who``: ``matches``, the played matches its ratings were computed on
    (default: the database's now), and the states it shows (:func:`ladder.views.live.marker`)."""
    return live.marker(session, who.author if who else None, matches)


@router.get("/", response_class=HTMLResponse)
def index(
    request: Request, session: DB, who: Viewer, versions: leaderboard.Versions = leaderboard.Versions.LATEST
) -> HTMLResponse:
    runtime = request.app.state.runtime
    boards = views.leaderboards(session, versions)
    # the marker of the matches the shown ratings were computed on, so the live script fetches the page again
    # until it is current
    shown = views.RATINGS.marker if versions is leaderboard.Versions.ALL else (views.LATEST.marker or (None,))[0]
    return render(
        request,
        "index.html",
        who,
        live_marker=live_marker(session, who, shown),
        boards=boards,
        status=runtime.scheduler_status(),
        versions=versions.value,
    )


@router.get("/bots/{name}", response_class=HTMLResponse)
def bot_page(name: str, request: Request, session: DB, who: Viewer) -> HTMLResponse:
    bot, owner = views.bot_view(session, name, who.author if who else None)
    private = who is not None and views.may_see_private(who.author, owner)
    data = views.REPORT.loaded(session)
    ids = [int(str(v["id"])) for v in bot.versions]
    plotted = [v for v in reversed(bot.versions) if figures.history_of(data, int(str(v["id"])))][:PLOTTED_VERSIONS]
    return render(
        request,
        "bot.html",
        who,
        live_marker=live_marker(session, who, live.oldest(views.RATINGS.marker, views.REPORT.marker)),
        bot=bot,
        private=private,
        stderr=views.bot_stderr(session, name, who.author) if who is not None and private else [],
        failures=bot_figures.failures_of(data, ids, private),
        plotted=plotted,
        actions=[a.value for a in Action],
    )


PLOT_CACHE: dict[tuple[int, tuple[int, int] | None], str] = {}  # (version id, the matches drawn) -> its SVG
PLOT_CACHE_SIZE = 256


@router.get("/bots/{name}/versions/{version_id}/rating.svg")
def rating_plot(name: str, version_id: RowId, session: DB) -> Response:
    """A version's rating history, drawn as the static report draws it (:func:`ladder.report.plots.rating_history`);
    drawn once per version and state of the matches (anyone may ask for it)."""
    bot, _owner = views.bot_view(session, name, None)  # public: the plot shows no private data
    if all(v["id"] != version_id for v in bot.versions):
        raise HTTPException(404, f"the bot {name!r} has no version #{version_id}")
    data = views.REPORT.loaded(session)
    key = (version_id, views.REPORT.marker)
    svg = PLOT_CACHE.get(key)
    if svg is None:
        svg = plots.rating_history(figures.history_of(data, version_id))
        if len(PLOT_CACHE) >= PLOT_CACHE_SIZE:
            PLOT_CACHE.clear()
        PLOT_CACHE[key] = svg
    return Response(svg, media_type="image/svg+xml")


@router.get("/bots/{name}/stderr", response_class=HTMLResponse)
def bot_stderr_page(name: str, request: Request, session: DB, who: Viewer) -> HTMLResponse:
    viewer = None if who is None else who.author
    bot = views.private_bot(session, name, viewer)
    return render(request, "stderr.html", who, bot=bot, stderr=views.bot_stderr(session, name, viewer))


@router.get("/h2h/{game}/{players}", response_class=HTMLResponse)
def head_to_head_page(game: str, players: int, request: Request, session: DB, who: Viewer) -> HTMLResponse:
    h2h = views.head_to_head(session, str(PoolKey(game, players)))
    cells = {(p.version_id, p.opponent_version_id): p for p in h2h.pairs}
    return render(request, "h2h.html", who, h2h=h2h, cells=cells)


@router.get("/matches/{match_id}", response_class=HTMLResponse)
def replay(match_id: RowId, request: Request, session: DB, who: Viewer) -> HTMLResponse:
    """The replay of a match: the report's viewer page, which fetches the match's data from the API."""
    match = views.match_view(session, match_id, who.author if who else None)
    # the report's viewer, fetching the match's data (service/web/routes/replay_data.py)
    return render(request, "replay.html", who, match=match)


def _login_page(request: Request, who: Identity | None, code: int = 200, error: str = "") -> HTMLResponse:
    """The login form with a fresh CSRF token, in its page and in the cookie it is checked against."""
    token = new_token()
    response = render(request, "login.html", who, code=code, login_csrf=token, error=error)
    response.set_cookie(
        LOGIN_COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=request.app.state.settings.secure_cookies,
        max_age=3600,
    )
    return response


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, who: Viewer) -> HTMLResponse:
    return _login_page(request, who)


@router.post("/login")
def login(request: Request, session: DB, token: Annotated[str, Form()], csrf_token: Annotated[str, Form()]) -> Response:
    expected = request.cookies.get(LOGIN_COOKIE, "")
    if not expected or not same_secret(csrf_token, expected):
        raise HTTPException(
            403, "this login form is stale (its CSRF token does not match); reload the page and try again"
        )
    author = author_for_token(session, token.strip())
    if author is None:
        return _login_page(request, None, 401, "that token is not valid: it is wrong or was revoked")
    web = open_web_session(session, author)
    redirect = RedirectResponse("/me", status_code=303)
    redirect.set_cookie(
        SESSION_COOKIE,
        web.cookie,
        httponly=True,
        samesite="strict",
        secure=request.app.state.settings.secure_cookies,
        max_age=SESSION_HOURS * 3600,
    )
    redirect.delete_cookie(LOGIN_COOKIE)
    return redirect


@router.post("/logout")
def logout(request: Request, session: DB, _who: Changer) -> Response:
    close_web_session(session, request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


@router.get("/me", response_class=HTMLResponse)
def my_bots(request: Request, session: DB, who: Viewer) -> Response:
    if who is None:
        return RedirectResponse("/login", status_code=303)
    return _me_page(request, session, who, "")


def _me_page(request: Request, session: DB, who: Identity, message: str, code: int = 200) -> HTMLResponse:
    """ "My bots": the author's submissions (every author's for the operator), their quota, and ``message``."""
    mine = views.submissions_of(session, None if who.author.is_operator else who.author)
    quota = quota_of(session, who.author, request.app.state.settings.submissions_per_hour)
    return render(
        request,
        "me.html",
        who,
        live_marker=live_marker(session, who),
        live_url="/me",
        code=code,
        submissions=mine,
        bots=_accepted_bots(mine),
        message=message,
        quota=quota.sentence(),
    )


def _accepted_bots(mine: list[views.SubmissionView]) -> list[str]:
    """The bots of the accepted submissions, each linked to its page: a bot whose only versions failed the
    check has no page (its link was a 404)."""
    return sorted({s.bot for s in mine if s.bot and s.state == SubmissionState.ACTIVE.value})


@router.post("/me/submit", response_class=HTMLResponse)
async def submit_form(
    request: Request, session: DB, who: Changer, file: Annotated[UploadFile, File()], name: Annotated[str, Form()] = ""
) -> Response:
    settings = request.app.state.settings
    data = await file.read(settings.uploads.max_bytes + 1)
    try:
        taken = await run_in_threadpool(accept, session, who.author, data, file.filename or "upload", name, settings)
    except (UploadRefused, RateLimited) as error:
        return _me_page(request, session, who, f"refused: {error}", status_of(error))
    if taken.unchanged:
        return _me_page(request, session, who, taken.message())
    request.app.state.runtime.wake_checker()
    return RedirectResponse(f"/me#submission-{taken.submission.id}", status_code=303)


@router.post("/bots/{name}/{action}")
def bot_action(name: str, action: Action, session: DB, _who: Operator, reason: Annotated[str, Form()] = "") -> Response:
    set_bot_state(session, name, action, reason)
    return RedirectResponse(f"/bots/{name}", status_code=303)
