"""How ``ladder serve`` runs: one frozen value handed to the web app, the checker and the scheduler."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class UploadLimits:
    """What one upload may be (refused with one sentence otherwise)."""

    max_bytes: int = 5 * 1024 * 1024  # the upload as sent (the archive)
    max_unpacked_bytes: int = 20 * 1024 * 1024  # the files inside, counted while extracting (archive bombs)
    max_files: int = 500
    max_ratio: int = 200  # unpacked bytes per byte of the archive


@dataclass(frozen=True)
class ServeSettings:
    db_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 0  # local match workers (0: one per core); with a Dask scheduler the cluster decides
    scheduler: str | None = None  # a Dask scheduler's address: play on that cluster instead of local workers
    placement_deals: int = 2  # deals a new version plays against each bot of each pool it claims before anything else
    active_versions_per_author: int = 2  # older versions beyond this retire from scheduling (their ratings stay)
    house_bots: tuple[str, ...] = ()  # built-in bots entered in every pool they play, as a yardstick
    submissions_per_hour: int = 12  # per author
    uploads: UploadLimits = field(default_factory=UploadLimits)
    check_matches: int = 2  # per game and table size, as `ladder validate --matches`
    check_timeout: float = 900.0  # seconds one check (build included) may take before it fails
    confidence: float = 0.95  # when a pool is settled (the adaptive format's rule)
    indifference: float = 1.0
    refresh_seconds: float = 60.0  # a settled ladder plays one deal per pool this often
    rate_every: float = 2.0  # seconds between rating refreshes while matches arrive
    secure_cookies: bool = False  # set behind a TLS proxy (--secure-cookies): the login cookie only travels over HTTPS
    worker_setup: str | None = None  # "module:function" run in each local worker (tests)
