"""Tournament files: ``tournaments/*.toml``, read with tomllib and checked by pydantic models.

``ladder run quick`` finds a file shipped in this package by its name (:func:`tournament_file`); any other
file is given by its path.

A tournament file names the games (with their options and player counts),
the bots, the format, how many deals each pairing plays, the seed, the
limits, the workers and the time budget. Every mistake is reported as one
sentence naming the file and the bad key, e.g.
``quick.toml: game.elevenses.players: 7 is not a player count of elevenses (2-4 players)``.

Top-level keys (all optional but ``seed``):

- ``name``: the tournament's name (default: the file name without ``.toml``).
- ``description``: free text.
- ``seed``: integer; the schedule (the order of play) derives from it. The deals do not: they
  come from a secret made when the tournament is created (:mod:`ladder.matches.deals`).
- ``format``: ``"round-robin"`` (single-player games always use duplicate deals) or ``"adaptive"``:
  one round-robin of ``games_per_pairing`` deals per table, then deals where the leaderboard is least
  certain until every pool is settled or its budget is spent (see :mod:`tournaments.sources.adaptive`).
- ``[adaptive]`` (only with ``format = "adaptive"``): ``confidence`` (how sure the whole order of a pool
  must be, default 0.95), ``indifference`` (skills closer than this many mu points count as equal,
  default 1.0), ``max_matches`` (each pool's budget of matches, default 5000), ``seatings`` (``"rotations"``,
  the default: each chosen deal of a table of k bots in the k rotations of one drawn order; ``"all"``: in
  every balanced seating).
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
- ``[limits]`` (:class:`ladder.sandbox.limits.SandboxLimits`, the one limits type): ``move_seconds`` (CPU time per
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
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from engine import Game, GameError, game_ids, get_game
from ladder.errors import UserError
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.packages import allowed_packages

SCHEDULER_SCHEMES = ("tcp", "tls", "ucx", "inproc", "ws", "wss")


class Seatings(StrEnum):
    """Which seatings a table plays each deal the adaptive format chooses in (its warm-up and the round-robin
    play every balanced seating).

    ``rotations``: the rotations of one round-the-table order drawn for the deal, every bot in every seat once
    (:func:`tournaments.formats.round_robin.drawn_rotations`): 3 or 4 matches a deal at three or four seats instead of 6 or
    24, the same evidence on average (docs/verdict.md, "Fewer seatings per deal"). ``all``: every balanced
    seating (:func:`tournaments.formats.round_robin.balanced_seatings`), each deal balanced on its own.
    """

    ROTATIONS = "rotations"
    ALL = "all"

    def rotations_seed(self, tournament_seed: int) -> int | None:
        """What :func:`tournaments.formats.round_robin.deal_group` draws each deal's order from: the tournament's public seed
        for drawn rotations, None for every balanced seating."""
        return tournament_seed if self is Seatings.ROTATIONS else None


@dataclass(frozen=True)
class AdaptiveSettings:
    """When the adaptive format stops a pool: its order is known at ``confidence`` (adjacent pairs ordered,
    equal within ``indifference`` mu points, or not worse than the next by that margin), or it has played
    ``max_matches``; and the ``seatings`` its chosen deals are played in."""

    confidence: float = 0.95
    indifference: float = 1.0
    max_matches: int = 5000
    seatings: Seatings = Seatings.ROTATIONS


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
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    description: str = ""
    backend: str = "local"  # one of BACKENDS
    scheduler: str | None = None  # a Dask scheduler's address (backend "dask" only)
    adaptive: AdaptiveSettings | None = None  # format "adaptive" only

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------- the file's schema (pydantic)
#
# The models below say what each table may hold; pydantic checks the types, bounds and unknown keys, and
# :func:`_first_problem` turns its first complaint into the one sentence a user reads. What needs the games
# themselves (known game ids, player counts, each game's options) is checked after, in plain functions.

PROBLEM = "tournament_file"  # the error type of the sentences the validators below write themselves


def _problem(message: str) -> PydanticCustomError:
    return PydanticCustomError(PROBLEM, message)


def _shown(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, bool, list, dict)) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _non_empty_string(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _problem(f"must be a non-empty string, not {_shown(value)}")
    return value


def _all_or_list(kind: type) -> BeforeValidator:
    """``"all"`` (None) or a non-empty list of ``kind`` without repeats."""

    def check(value: Any) -> tuple[Any, ...] | None:
        if value == "all" or value is None:
            return None
        if not isinstance(value, list) or not value:
            raise _problem(f'must be "all" or a non-empty list, not {_shown(value)}')
        for item in value:
            if isinstance(item, bool) or not isinstance(item, kind):
                raise _problem(f"must list {kind.__name__} values, not {_shown(item)}")
        if len(set(value)) != len(value):
            raise _problem(f"lists {_shown(next(v for v in value if value.count(v) > 1))} twice")
        return tuple(value)

    return BeforeValidator(check)


def _packages(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise _problem(f"must be a list of package names, not {_shown(value)}")
    try:
        return allowed_packages(value)
    except UserError as error:
        raise _problem(str(error)) from None


def _scheduler(value: Any) -> str:
    def fail(_key: str, message: str) -> PydanticCustomError:
        return _problem(message)

    return check_scheduler_address(_non_empty_string(value), fail, "scheduler")


def _bank(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise _problem(f"must be 0 or more seconds of CPU time, not {_shown(value)}")
    return float(value)


def _confidence(value: float) -> float:
    if not 0.5 <= value < 1:
        raise _problem(f"must be at least 0.5 and below 1 (e.g. 0.95), not {value:g}")
    return value


def _indifference(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise _problem(f"must be a number of mu points, 0 or more, not {_shown(value)}")
    return float(value)


Count = Annotated[int, Field(ge=0)]
AtLeastOne = Annotated[int, Field(ge=1)]
Positive = Annotated[float, Field(gt=0)]
Seconds = Positive
IntList = Annotated[tuple[int, ...] | None, _all_or_list(int)]
StrList = Annotated[tuple[str, ...] | None, _all_or_list(str)]


class Format(StrEnum):
    """How the schedule is made: every table a fixed number of times, or more where the order is uncertain."""

    ROUND_ROBIN = "round-robin"
    ADAPTIVE = "adaptive"


class Backend(StrEnum):
    """Where the matches are played."""

    LOCAL = "local"
    DASK = "dask"


FORMATS = tuple(f.value for f in Format)
BACKENDS = tuple(b.value for b in Backend)


class _Table(BaseModel):
    """A TOML table: its keys are the fields, nothing else; TOML's own types, never converted (strict)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class LimitsTable(_Table):
    """``[limits]``: what a bot may use and how failures are treated (see :class:`SandboxLimits`)."""

    move_seconds: Seconds = 5.0
    match_seconds: Seconds = 600.0
    memory_mb: Annotated[int, Field(ge=16)] = 1024
    bench_after_failures: AtLeastOne = 5
    max_attempts: AtLeastOne = 3
    packages: Annotated[tuple[str, ...], BeforeValidator(_packages)] = ()
    bank_seconds: Annotated[float, BeforeValidator(_bank)] = 0.0  # extra CPU time per match for moves that run over
    move_wall_seconds: Seconds | None = None  # a move's wall-clock cap; None: WALL_FACTOR x the CPU the move may use
    clock_builtin_bots: bool = False  # the built-in bots play under the same CPU clocks


class AdaptiveTable(_Table):
    """``[adaptive]``: when the adaptive format stops a pool (see :class:`AdaptiveSettings`)."""

    confidence: Annotated[Positive, AfterValidator(_confidence)] = 0.95
    indifference: Annotated[float, BeforeValidator(_indifference)] = 1.0
    max_matches: AtLeastOne = 5000
    seatings: Annotated[Seatings, Field(strict=False)] = Seatings.ROTATIONS  # strict=False: an enum from its value


class GameTable(_Table):
    """``[game.<id>]``: one game's player counts, option sets, deals per table and bots."""

    players: IntList = None
    options: Any = None  # a table or a list of tables: checked against the game's own options
    games_per_pairing: AtLeastOne | None = None
    bots: StrList = None


class TournamentFile(_Table):
    """A tournament file as written (see the module docstring for what each key means)."""

    name: Annotated[str | None, BeforeValidator(_non_empty_string)] = None
    description: Annotated[str, BeforeValidator(str)] = ""
    seed: Annotated[
        Count, Field(description="every tournament needs a seed (an integer) so its schedule can be replayed")
    ]
    format: Annotated[Format, Field(strict=False)] = Format.ROUND_ROBIN  # strict=False: an enum from its value
    games_per_pairing: AtLeastOne = 1
    cycles: AtLeastOne = 1
    hours: Seconds | None = None
    workers: Count = 0
    backend: Annotated[Backend, Field(strict=False)] = Backend.LOCAL
    scheduler: Annotated[str, BeforeValidator(_scheduler)] | None = None
    players: IntList = None
    bots: StrList = None
    limits: LimitsTable = LimitsTable()
    games: StrList = None
    game: dict[str, GameTable] = {}
    adaptive: AdaptiveTable | None = None


TABLES: dict[tuple[str, ...], type[_Table]] = {
    (): TournamentFile,
    ("limits",): LimitsTable,
    ("adaptive",): AdaptiveTable,
    ("game", "*"): GameTable,
}

# A type error's sentence per pydantic error type; {shown} is the value as written, {ctx} pydantic's details.
TYPE_MESSAGES = {
    "int_type": "must be an integer, not {shown}",
    "float_type": "must be a number, not {shown}",
    "string_type": "must be a string, not {shown}",
    "bool_type": "must be true or false, not {shown}",
    "model_type": "must be a table, not {shown}",
    "dict_type": "must be a table, not {shown}",
    "greater_than_equal": "must be at least {ge}, not {shown}",
    "greater_than": "must be more than {gt:g}, not {shown}",
}
# Where a table holds tables, the sentence says how (the key as a dotted path).
SHAPE_HINTS = {"game": "must hold one table per game ([game.<id>]), not {shown}"}


def _table_at(loc: tuple[str | int, ...]) -> type[_Table] | None:
    """The model of the table at ``loc`` (every ``[game.<id>]`` is a :class:`GameTable`)."""
    key = ("game", "*") if loc[:1] == ("game",) and len(loc) == 2 else tuple(str(part) for part in loc)
    return TABLES.get(key)


def _key_path(loc: tuple[str | int, ...]) -> str:
    return ".".join(str(part) for part in loc)


def _first_problem(error: ValidationError) -> tuple[str, str]:
    """The key path and the sentence of pydantic's first complaint."""
    problem = error.errors(include_url=False)[0]
    loc: tuple[str | int, ...] = tuple(problem["loc"])
    kind, value, ctx = problem["type"], problem.get("input"), problem.get("ctx") or {}
    key = _key_path(loc)
    if kind == PROBLEM:
        return key, problem["msg"]
    if kind == "extra_forbidden":
        table = _table_at(loc[:-1])
        allowed = ", ".join(table.model_fields) if table else "none"
        return key, f"unknown key (allowed here: {allowed})"
    if kind == "missing":
        field = TournamentFile.model_fields.get(str(loc[-1])) if len(loc) == 1 else None
        return key, "is missing" + (f": {field.description}" if field and field.description else "")
    if kind == "enum":
        choices = ", ".join(str(member.value) for member in _enum_at(loc))
        return key, f"must be one of {choices}, not {_shown(value)}"
    template = SHAPE_HINTS.get(key) if kind in ("dict_type", "model_type") else None
    template = template or TYPE_MESSAGES.get(kind, "is not valid: {msg}")
    return key, template.format(shown=_shown(value), msg=problem["msg"], **ctx)


def _enum_at(loc: tuple[str | int, ...]) -> type[StrEnum]:
    """The enum of the key at ``loc`` (top level, or in a table such as ``[adaptive]``)."""
    table = _table_at(loc[:-1]) if len(loc) > 1 else TournamentFile
    assert table is not None
    annotation = table.model_fields[str(loc[-1])].annotation
    assert isinstance(annotation, type) and issubclass(annotation, StrEnum)
    return annotation


# ---------------------------------------------------------------- reading a file


class _Checker:
    """Reports a bad key as ``<file>: <key path>: <what is wrong>``."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, key: str, message: str) -> UserError:
        return UserError(f"{self.path}: {key}: {message}" if key else f"{self.path}: {message}")


def shipped_tournaments() -> dict[str, Path]:
    """The ready-made tournament files shipped in this package, by name (``quick``: .../quick.toml)."""
    folder = Path(__file__).resolve().parents[1]  # the tournaments package (this module is in its formats room)
    return {path.stem: path for path in sorted(folder.glob("*.toml"))}


def tournament_file(ref: str | Path) -> Path:
    """The file ``ref`` names: a path (relative to the current folder), or the name of a shipped file.

    A file that exists wins, so a local ``quick.toml`` is not shadowed; otherwise ``quick`` or ``quick.toml``
    is the copy shipped with the package (it works from an installed wheel, in any folder)."""
    path = Path(ref)
    if path.is_file():
        return path
    shipped = shipped_tournaments()
    if path.parent == Path(".") and path.stem in shipped and path.suffix in ("", ".toml"):
        return shipped[path.stem]
    hint = "" if path.suffix == ".toml" else " (tournament files end in .toml)"
    raise UserError(
        f"no tournament file {str(path)!r}{hint}; the ready-made ones are {', '.join(shipped) or 'none'} "
        f"(e.g. ladder run quick)"
    )


def load_tournament(path: str | Path) -> TournamentConfig:
    """Read and check a tournament file (a path or a shipped file's name); raise :class:`UserError` naming the bad key."""
    path = tournament_file(path)
    shown = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"{shown}: not valid TOML: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{shown}: cannot read it: {error}") from None
    return parse_tournament(data, shown, default_name=path.stem)


def parse_tournament(
    data: Mapping[str, Any], shown: str = "<tournament>", default_name: str = "tournament"
) -> TournamentConfig:
    """Check the parsed TOML of a tournament file (see the module docstring for the keys)."""
    check = _Checker(shown)
    try:
        file = TournamentFile.model_validate(data)
    except ValidationError as error:
        raise check.fail(*_first_problem(error)) from None
    _check_combinations(check, file)
    chosen = _chosen_games(check, file)
    entries = tuple(_game_entry(check, get_game(game_id), file, file.game.get(game_id)) for game_id in chosen)
    _check_top_level_players(check, file, entries)
    adaptive = None
    if file.format is Format.ADAPTIVE:
        adaptive = AdaptiveSettings(**(file.adaptive or AdaptiveTable()).model_dump())
    return TournamentConfig(
        file.name or default_name,
        shown,
        file.seed,
        file.format.value,
        entries,
        file.cycles,
        file.hours,
        file.workers,
        limits_from_table(file.limits, check),
        file.description,
        file.backend.value,
        file.scheduler,
        adaptive,
    )


def limits_from_table(table: LimitsTable, check: _Checker) -> SandboxLimits:
    """The ``[limits]`` table as the one limits type (:class:`ladder.sandbox.limits.SandboxLimits`) the runner hands to
    every match (the one conversion)."""
    wall = table.move_wall_seconds
    if wall is not None and wall < table.move_seconds:
        raise check.fail(
            "limits.move_wall_seconds",
            f"must be at least move_seconds ({table.move_seconds:g}), not "
            f"{wall:g}: a move could never use its CPU time",
        )
    return SandboxLimits(**table.model_dump())


def _check_combinations(check: _Checker, file: TournamentFile) -> None:
    """Keys that only make sense together."""
    if file.scheduler is not None and file.backend is not Backend.DASK:
        raise check.fail("scheduler", 'names a Dask scheduler: set backend = "dask" too')
    if file.format is Format.ADAPTIVE and "cycles" in file.model_fields_set:
        raise check.fail(
            "cycles",
            'does not apply to format = "adaptive" (it plays until every pool is settled or '
            "its budget is spent); leave it out",
        )
    if file.format is not Format.ADAPTIVE and file.adaptive is not None:
        raise check.fail("adaptive", 'applies to format = "adaptive" only')


def _chosen_games(check: _Checker, file: TournamentFile) -> list[str]:
    """The games to play, in order, each a registered game, and a ``[game.<id>]`` only for one of them."""
    known = game_ids()
    if file.games is None and not known:
        raise check.fail("games", 'is "all" but no game is registered')
    for game_id in file.games or ():
        if game_id not in known:
            raise check.fail("games", f"no game {game_id!r}; known games: {', '.join(known) or 'none'}")
    chosen = list(known if file.games is None else file.games)
    for game_id in file.game:
        if game_id not in known:
            raise check.fail(f"game.{game_id}", f"no game {game_id!r}; known games: {', '.join(known) or 'none'}")
        if game_id not in chosen:
            raise check.fail(f"game.{game_id}", f"{game_id} is not among the tournament's games ({', '.join(chosen)})")
    return chosen


def _check_top_level_players(check: _Checker, file: TournamentFile, entries: tuple[GameEntry, ...]) -> None:
    """Every top-level player count suits at least one of the games that take their counts from it."""
    tables = [
        get_game(entry.game)
        for entry in entries
        if not get_game(entry.game).facts.solitaire and not entry.explicit_players
    ]
    for count in file.players or ():
        if tables and all(count not in game.player_counts() for game in tables):
            ranges = ", ".join(f"{game.id} {_player_range(game)}" for game in tables)
            raise check.fail("players", f"{count} is not a player count of any of the tournament's games ({ranges})")


def _player_range(game: Game) -> str:
    if game.min_players == game.max_players:
        return f"{game.min_players} player{'s' if game.min_players > 1 else ''}"
    return f"{game.min_players}-{game.max_players} players"


def _game_entry(check: _Checker, game: Game, file: TournamentFile, table: GameTable | None) -> GameEntry:
    """One game's entry: its own ``[game.<id>]`` where given, else the top-level defaults."""
    table = table or GameTable()
    explicit = "players" in table.model_fields_set
    players, dropped = _player_counts(check, game, table, file.players)
    option_sets = _option_sets(check, game, table.options, players)
    gpp = table.games_per_pairing if table.games_per_pairing is not None else file.games_per_pairing
    bots, bots_key = (table.bots, f"game.{game.id}.bots") if "bots" in table.model_fields_set else (file.bots, "bots")
    return GameEntry(game.id, players, option_sets, gpp, bots, explicit, bots_key, dropped)


def _player_counts(
    check: _Checker, game: Game, table: GameTable, default_players: tuple[int, ...] | None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The counts to play and the top-level counts this game cannot take (told as a note)."""
    where, allowed = f"game.{game.id}.players", list(game.player_counts())
    if game.facts.solitaire:
        if "players" in table.model_fields_set and table.players not in (None, (1,)):
            raise check.fail(where, f"{game.id} is a solitaire (1 player)")
        return (1,), ()
    if "players" in table.model_fields_set:
        for count in table.players or ():
            if count not in allowed:
                raise check.fail(where, f"{count} is not a player count of {game.id} ({_player_range(game)})")
        return (tuple(sorted(table.players)) if table.players else tuple(allowed)), ()
    if default_players is None:
        return tuple(allowed), ()
    players = tuple(sorted(n for n in default_players if n in allowed))
    if not players:
        raise check.fail(
            "players",
            f"none of {list(default_players)} suits {game.id} ({_player_range(game)}); set [game.{game.id}] players",
        )
    return players, tuple(sorted(n for n in default_players if n not in allowed))


def _option_sets(check: _Checker, game: Game, raw: Any, players: tuple[int, ...]) -> tuple[dict[str, Any], ...]:
    """The game's option sets (a table, or a list of tables for several variants), validated by the game."""
    where = f"game.{game.id}.options"
    option_list = raw if isinstance(raw, list) else [{} if raw is None else raw]
    if not option_list:
        raise check.fail(where, "is an empty list; leave it out for the default options")
    option_sets: list[dict[str, Any]] = []
    for index, options in enumerate(option_list):
        key = where + (f"[{index}]" if isinstance(raw, list) else "")
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
    return tuple(option_sets)


def check_scheduler_address(address: str, fail: Any = None, key: str = "--scheduler") -> str:
    """A Dask scheduler address as given (``tcp://host:8786``, or ``host:port`` for tcp); else a :class:`UserError`."""

    def problem(message: str) -> Exception:
        return fail(key, message) if fail is not None else UserError(f"{key}: {message}")

    text = address.strip()
    scheme, separator, rest = text.partition("://")
    if not separator:
        scheme, rest = "tcp", text
    host, colon, port = rest.rpartition(":")
    if scheme not in SCHEDULER_SCHEMES:
        raise problem(
            f"{_shown(address)} is not a Dask scheduler address (its scheme must be one of "
            f"{', '.join(SCHEDULER_SCHEMES)}, e.g. tcp://host:8786)"
        )
    if scheme != "inproc" and (not colon or not host or not port.isdigit() or not 0 < int(port) < 65536):
        raise problem(f"{_shown(address)} is not a Dask scheduler address (expected e.g. tcp://host:8786)")
    return f"{scheme}://{rest}"


def fingerprint(data: Any) -> str:
    """A stable hash of JSON-able data (what decides a schedule)."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
