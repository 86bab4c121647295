"""A match's replay data for the viewer, in the JSON API (``/api/matches/{id}/replay``; the page that loads it is
``/matches/{id}``, :func:`service.web.routes.pages.replay`)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from service.web.replays import REPLAY_MEDIA_TYPE, served_replay
from service.web.routes.deps import DB, RowId, Viewer

router = APIRouter(prefix="/api", tags=["api"])


@router.get(
    "/matches/{match_id}/replay",
    response_class=Response,
    responses={
        200: {
            "content": {REPLAY_MEDIA_TYPE: {}},
            "description": "gzip'd JSON, the replay viewer's format (docs/architecture.md)",
        }
    },
    summary="A match's replay for the viewer: every frame, the moves offered and chosen, and the stderr of the "
    "requester's own bots (every bot's for the operator)",
)
def get_match_replay(match_id: RowId, session: DB, who: Viewer) -> Response:
    content = served_replay(session, match_id, who.author if who else None)
    # the bytes depend on who asks (whose stderr is in them): never kept by a shared cache
    return Response(
        content,
        media_type=REPLAY_MEDIA_TYPE,
        headers={"Cache-Control": "private, no-cache", "Vary": "Authorization, Cookie"},
    )
