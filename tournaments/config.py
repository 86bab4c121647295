"""Tournament files: ``tournaments/*.toml``, read with tomllib and checked key by key.

A tournament file names the games (with their options and player counts),
the bots, the format, how many deals each pairing plays, the seed, the
limits, the workers and the time budget. Every mistake is reported as one
sentence naming the file and the bad key, e.g.
``quick.toml: game.elevenses.players: 7 is not a player count of elevenses (2-4 players)``.

Top-level keys (all optional but ``seed``):

- ``name``: the tournament's name (default: the file name without ``.toml``).
- ``description``: free text.
- ``seed``: integer; the schedule (the order of play) derives from it. The deals do not: they
  come from a secret made when the tournament is created (:mod:`ladder.deals`).
- ``format``: ``"round-robin"`` (single-player games always use duplicate deals) or ``"adaptive"``:
  one round-robin of ``games_per_pairing`` deals per table, then deals where the leaderboard is least
  certain until every pool is settled or its budget is spent (see :mod:`tournaments.adaptive`).
- ``[adaptive]`` (only with ``format = "adaptive"``): ``confidence`` (how sure the whole order of a pool
  must be, default 0.95), ``indifference`` (skills closer than this many mu points count as equal,
  default 1.0), ``max_matches`` (each pool's budget of matches, default 5000).
- ``games``: ``"all"`` (every registered game) or a list of game ids.
- ``players``: ``"all"`` or a list of player counts used for every multiplayer game that allows them.
- ``bots``: ``"all"`` (every built-in or registered bot that plays the game) or a list of bot names.
- ``games_per_pairing``: deals per table (each replayed in every seating), or per bot for a solitaire.
- ``cycles``: how many times the whole schedule is played (new deals each cycle; default 1).
- ``hours``: a time budget: play cycles of the schedule until it is spent.
- ``workers``: worker processes (0: one per core); with the Dask backend and no scheduler, the
  workers of the local cluster it starts.
- ``backend``: where the matches are played: ``"local"`` (a pool of worker processes on this
  machine, the default) or ``"dask"`` (a Dask cluster; needs ``pip install "card-ladder[dask]"``).
- ``scheduler``: the address of a running Dask scheduler (``"tcp://host:8786"``); only with
  ``backend = "dask"``; without it the Dask backend starts a local cluster of its own.
- ``[limits]`` (:class:`ladder.sandbox.SandboxLimits`, the one limits type): ``move_seconds`` (CPU time per
  move, all the bot's threads), ``bank_seconds`` (extra CPU time per match for moves that run over; default 0),
  ``move_wall_seconds`` (wall-clock cap of a move; default 5 x ``move_seconds``), ``match_seconds`` (wall-clock
  time for a bot's whole match), ``clock_builtin_bots`` (true: built-in bots play under the same CPU clocks;
  default false), ``memory_mb``, ``bench_after_failures``, ``max_attempts``, ``packages`` (installed packages
  bots may import, e.g. ``["numpy"]``; default none).
- ``[game.<id>]``: per-game ``players``, ``options`` (a table, or a list of tables for several
  variants), ``games_per_pairing`` and ``bots``.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine import Game, GameError, game_ids, get_game
from ladder.errors import UserError
from ladder.sandbox import Limits, allowed_packages

FORMATS = ("round-robin", "adaptive")
BACKENDS = ("local", "dask")
SCHEDULER_SCHEMES = ("tcp", "tls", "ucx", "inproc", "ws", "wss")

TOP_KEYS = (
    "name", "description", "seed", "format", "games", "players", "bots",
    "games_per_pairing", "cycles", "hours", "workers", "backend", "scheduler", "limits", "game", "adaptive",
)
ADAPTIVE_KEYS = ("confidence", "indifference", "max_matches")
GAME_KEYS = ("players", "options", "games_per_pairing", "bots")
LIMIT_KEYS = ("move_seconds", "bank_seconds", "move_wall_seconds", "match_seconds", "clock_builtin_bots", "memory_mb",
              "bench_after_failures", "max_attempts", "packages")


@dataclass(frozen=True)
class AdaptiveSettings:
    """When the adaptive format stops a pool: its order is known at ``confidence`` (adjacent pairs ordered,
    or equal within ``indifference`` mu points), or it has played ``max_matches``."""

    confidence: float = 0.95
    indifference: float = 1.0
    max_matches: int = 5000


@dataclass(frozen=True)
class GameEntry:
    """One game of the tournament, as the file asks for it (bots are resolved later)."""

    game: str
    players: tuple[int, ...]  # the counts to play; (1,) for a solitaire
    option_sets: tuple[dict[str, Any], ...]  # validated, defaults filled in
    games_per_pairing: int
    bots: tuple[str, ...] | None  # None: every bot that plays the game
    explicit_players: bool = False  # False: counts the bots cannot fill are dropped with a note
    bots_key: str = "bots"  # the key the bot list came from, for error messages
    dropped_players: tuple[int, ...] = ()  # top-level player counts this game does not allow (told as a note)


@dataclass(frozen=True)
class TournamentConfig:
    """A tournament file, checked."""

    name: str
    path: str
    seed: int
    format: str
    games: tuple[GameEntry, ...]
    cycles: int = 1
    hours: float | None = None
    workers: int = 0
    limits: Limits = field(default_factory=Limits)
    description: str = ""
    backend: str = "local"  # one of BACKENDS
    scheduler: str | None = None  # a Dask scheduler's address (backend "dask" only)
    adaptive: AdaptiveSettings | None = None  # format "adaptive" only

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class _Checker:
    """Reports a bad key as ``<file>: <key path>: <what is wrong>``."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, key: str, message: str) -> UserError:
        return UserError(f"{self.path}: {key}: {message}" if key else f"{self.path}: {message}")

    def table(self, key: str, value: Any, allowed: tuple[str, ...]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(key, f"must be a table, not {_shown(value)}")
        for name in value:
            if name not in allowed:
                where = f"{key}.{name}" if key else name
                raise self.fail(where, f"unknown key (allowed here: {', '.join(allowed)})")
        return value

    def integer(self, key: str, value: Any, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be an integer, not {_shown(value)}")
        if value < minimum:
            raise self.fail(key, f"must be at least {minimum}, not {value}")
        return value

    def number(self, key: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"must be a number, not {_shown(value)}")
        if not value > 0:
            raise self.fail(key, f"must be more than 0, not {value}")
        return float(value)

    def at_least_zero(self, key: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"must be a number, not {_shown(value)}")
        if not value >= 0:
            raise self.fail(key, f"must be 0 or more, not {value}")
        return float(value)

    def boolean(self, key: str, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {_shown(value)}")
        return value

    def string(self, key: str, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"must be a non-empty string, not {_shown(value)}")
        return value

    def all_or_list(self, key: str, value: Any, kind: type) -> tuple[Any, ...] | None:
        """``"all"`` (None) or a non-empty list of ``kind``."""
        if value == "all":
            return None
        if not isinstance(value, list) or not value:
            raise self.fail(key, f'must be "all" or a non-empty list, not {_shown(value)}')
        for item in value:
            if isinstance(item, bool) or not isinstance(item, kind):
                raise self.fail(key, f"must list {kind.__name__} values, not {_shown(item)}")
        if len(set(value)) != len(value):
            raise self.fail(key, f"lists {_shown(next(v for v in value if value.count(v) > 1))} twice")
        return tuple(value)


def _shown(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, bool, list, dict)) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load_tournament(path: str | Path) -> TournamentConfig:
    """Read and check a tournament file; raise :class:`UserError` naming the bad key."""
    path = Path(path)
    shown = str(path)
    if not path.is_file():
        raise UserError(f"no tournament file {shown!r}" + ("" if path.suffix == ".toml" else " (tournament files end in .toml)"))
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"{shown}: not valid TOML: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{shown}: cannot read it: {error}") from None
    return parse_tournament(data, shown, default_name=path.stem)


def parse_tournament(data: Mapping[str, Any], shown: str = "<tournament>", default_name: str = "tournament") -> TournamentConfig:
    """Check the parsed TOML of a tournament file (see the module docstring for the keys)."""
    check = _Checker(shown)
    check.table("", data, TOP_KEYS)
    name = check.string("name", data.get("name", default_name))
    description = str(data.get("description", ""))
    if "seed" not in data:
        raise check.fail("seed", "is missing: every tournament needs a seed (an integer) so its schedule can be replayed")
    seed = check.integer("seed", data["seed"], 0)
    format_ = data.get("format", "round-robin")
    if format_ not in FORMATS:
        raise check.fail("format", f"must be one of {', '.join(FORMATS)}, not {_shown(format_)}")
    gpp = check.integer("games_per_pairing", data.get("games_per_pairing", 1), 1)
    cycles = check.integer("cycles", data.get("cycles", 1), 1)
    hours = check.number("hours", data["hours"]) if "hours" in data else None
    workers = check.integer("workers", data.get("workers", 0), 0)
    backend = data.get("backend", "local")
    if backend not in BACKENDS:
        raise check.fail("backend", f"must be one of {', '.join(BACKENDS)}, not {_shown(backend)}")
    scheduler = None
    if "scheduler" in data:
        scheduler = check_scheduler_address(check.string("scheduler", data["scheduler"]), check.fail, "scheduler")
        if backend != "dask":
            raise check.fail("scheduler", 'names a Dask scheduler: set backend = "dask" too')
    default_players = check.all_or_list("players", data.get("players", "all"), int)
    default_bots = check.all_or_list("bots", data.get("bots", "all"), str)
    limits = _limits(check, data.get("limits", {}))

    known = game_ids()
    requested = check.all_or_list("games", data.get("games", "all"), str)
    if requested is None:
        chosen = list(known)
        if not chosen:
            raise check.fail("games", 'is "all" but no game is registered')
    else:
        for game_id in requested:
            if game_id not in known:
                raise check.fail("games", f"no game {game_id!r}; known games: {', '.join(known) or 'none'}")
        chosen = list(requested)
    per_game = data.get("game", {})
    if not isinstance(per_game, Mapping):
        raise check.fail("game", f"must hold one table per game ([game.<id>]), not {_shown(per_game)}")
    for game_id in per_game:
        if game_id not in known:
            raise check.fail(f"game.{game_id}", f"no game {game_id!r}; known games: {', '.join(known) or 'none'}")
        if game_id not in chosen:
            raise check.fail(f"game.{game_id}", f"{game_id} is not among the tournament's games ({', '.join(chosen)})")
    entries = tuple(
        _game_entry(check, get_game(game_id), per_game.get(game_id, {}), default_players, default_bots, gpp)
        for game_id in chosen
    )
    tables = [get_game(entry.game) for entry in entries
              if get_game(entry.game).max_players > 1 and "players" not in per_game.get(entry.game, {})]
    for count in default_players or ():
        if tables and all(count not in game.player_counts() for game in tables):
            ranges = ", ".join(f"{game.id} {_player_range(game)}" for game in tables)
            raise check.fail("players", f"{count} is not a player count of any of the tournament's games ({ranges})")
    adaptive = None
    if format_ == "adaptive":
        if "cycles" in data:
            raise check.fail("cycles", 'does not apply to format = "adaptive" (it plays until every pool is settled or '
                                       "its budget is spent); leave it out")
        adaptive = _adaptive(check, data.get("adaptive", {}))
    elif "adaptive" in data:
        raise check.fail("adaptive", 'applies to format = "adaptive" only')
    return TournamentConfig(name, shown, seed, format_, entries, cycles, hours, workers, limits, description, backend, scheduler,
                            adaptive)


def _adaptive(check: _Checker, value: Any) -> AdaptiveSettings:
    table = check.table("adaptive", value, ADAPTIVE_KEYS)
    defaults = AdaptiveSettings()
    confidence = check.number("adaptive.confidence", table.get("confidence", defaults.confidence))
    if not 0.5 <= confidence < 1:
        raise check.fail("adaptive.confidence", f"must be at least 0.5 and below 1 (e.g. 0.95), not {confidence:g}")
    indifference = table.get("indifference", defaults.indifference)
    if isinstance(indifference, bool) or not isinstance(indifference, (int, float)) or indifference < 0:
        raise check.fail("adaptive.indifference", f"must be a number of mu points, 0 or more, not {_shown(indifference)}")
    max_matches = check.integer("adaptive.max_matches", table.get("max_matches", defaults.max_matches), 1)
    return AdaptiveSettings(confidence, float(indifference), max_matches)


def check_scheduler_address(address: str, fail: Any = None, key: str = "--scheduler") -> str:
    """A Dask scheduler address as given (``tcp://host:8786``, or ``host:port`` for tcp); else a :class:`UserError`."""
    def problem(message: str) -> UserError:
        return fail(key, message) if fail is not None else UserError(f"{key}: {message}")

    text = address.strip()
    scheme, separator, rest = text.partition("://")
    if not separator:
        scheme, rest = "tcp", text
    host, colon, port = rest.rpartition(":")
    if scheme not in SCHEDULER_SCHEMES:
        raise problem(f"{_shown(address)} is not a Dask scheduler address (its scheme must be one of "
                      f"{', '.join(SCHEDULER_SCHEMES)}, e.g. tcp://host:8786)")
    if scheme != "inproc" and (not colon or not host or not port.isdigit() or not 0 < int(port) < 65536):
        raise problem(f"{_shown(address)} is not a Dask scheduler address (expected e.g. tcp://host:8786)")
    return f"{scheme}://{rest}"


def _limits(check: _Checker, value: Any) -> Limits:
    table = check.table("limits", value, LIMIT_KEYS)
    defaults = Limits()
    move_seconds = check.number("limits.move_seconds", table.get("move_seconds", defaults.move_seconds))
    wall = table.get("move_wall_seconds")
    if wall is not None and check.number("limits.move_wall_seconds", wall) < move_seconds:
        raise check.fail("limits.move_wall_seconds", f"must be at least move_seconds ({move_seconds:g}), not {wall}: "
                         "a move could never use its CPU time")
    return Limits(
        move_seconds=move_seconds,
        bank_seconds=check.at_least_zero("limits.bank_seconds", table.get("bank_seconds", defaults.bank_seconds)),
        move_wall_seconds=None if wall is None else float(wall),
        clock_builtin_bots=check.boolean("limits.clock_builtin_bots",
                                         table.get("clock_builtin_bots", defaults.clock_builtin_bots)),
        match_seconds=check.number("limits.match_seconds", table.get("match_seconds", defaults.match_seconds)),
        memory_mb=check.integer("limits.memory_mb", table.get("memory_mb", defaults.memory_mb), 16),
        bench_after_failures=check.integer(
            "limits.bench_after_failures", table.get("bench_after_failures", defaults.bench_after_failures), 1
        ),
        max_attempts=check.integer("limits.max_attempts", table.get("max_attempts", defaults.max_attempts), 1),
        packages=_packages(check, table.get("packages", list(defaults.packages))),
    )


def _packages(check: _Checker, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise check.fail("limits.packages", f"must be a list of package names, not {_shown(value)}")
    try:
        return allowed_packages(value)
    except UserError as error:
        raise check.fail("limits.packages", str(error)) from None


def _player_range(game: Game) -> str:
    if game.min_players == game.max_players:
        return f"{game.min_players} player{'s' if game.min_players > 1 else ''}"
    return f"{game.min_players}-{game.max_players} players"


def _game_entry(
    check: _Checker,
    game: Game,
    value: Any,
    default_players: tuple[int, ...] | None,
    default_bots: tuple[str, ...] | None,
    default_gpp: int,
) -> GameEntry:
    where = f"game.{game.id}"
    table = check.table(where, value, GAME_KEYS)
    allowed = list(game.player_counts())
    explicit = "players" in table
    if game.max_players == 1:
        if explicit and check.all_or_list(f"{where}.players", table["players"], int) not in (None, (1,)):
            raise check.fail(f"{where}.players", f"{game.id} is a solitaire (1 player)")
        players: tuple[int, ...] = (1,)
    elif explicit:
        listed = check.all_or_list(f"{where}.players", table["players"], int)
        for count in listed or ():
            if count not in allowed:
                raise check.fail(f"{where}.players", f"{count} is not a player count of {game.id} ({_player_range(game)})")
        players = tuple(sorted(listed)) if listed else tuple(allowed)
    elif default_players is None:
        players = tuple(allowed)
    else:
        players = tuple(sorted(n for n in default_players if n in allowed))
        dropped = tuple(sorted(n for n in default_players if n not in allowed))
        if not players:
            raise check.fail("players", f"none of {list(default_players)} suits {game.id} ({_player_range(game)}); "
                                        f"set [{where}] players")

    raw_options = table.get("options", {})
    option_list = raw_options if isinstance(raw_options, list) else [raw_options]
    if not option_list:
        raise check.fail(f"{where}.options", "is an empty list; leave it out for the default options")
    option_sets = []
    for index, options in enumerate(option_list):
        key = f"{where}.options" + (f"[{index}]" if isinstance(raw_options, list) else "")
        if not isinstance(options, Mapping):
            raise check.fail(key, f"must be a table of option = value, not {_shown(options)}")
        try:
            validated = game.validate_options(dict(options))
            for count in players:
                game.check_options_for_players(count, validated)
        except GameError as error:
            raise check.fail(key, str(error)) from None
        if validated in option_sets:
            raise check.fail(key, f"repeats the option set {_shown(dict(options))}")
        option_sets.append(validated)
    gpp = check.integer(f"{where}.games_per_pairing", table.get("games_per_pairing", default_gpp), 1)
    if "bots" in table:
        bots, bots_key = check.all_or_list(f"{where}.bots", table["bots"], str), f"{where}.bots"
    else:
        bots, bots_key = default_bots, "bots"
    if game.max_players == 1 or explicit or default_players is None:
        dropped = ()
    return GameEntry(game.id, players, tuple(option_sets), gpp, bots, explicit, bots_key, dropped)


def fingerprint(data: Any) -> str:
    """A stable hash of JSON-able data (what decides a schedule)."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
