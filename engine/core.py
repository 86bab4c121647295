"""The contract every game meets.

A :class:`Game` is the immutable description of a game (id, options, and its
declared :class:`GameFacts`: player range, score order, how a match is won)
and a factory of :class:`State` objects. A state is one position of
one match: whose decision it is, what they may do, what each seat may know,
and, at the end, the result.

Modelled on OpenSpiel's Game/State split. States are mutable for speed:
``apply`` changes the state in place (after checking the action, so an illegal
action changes nothing) and ``clone`` gives an independent copy.

Actions and observations are plain JSON values: actions are small dicts with a
``"type"`` key, compared by value, so a bot answers with one of the offered
actions and the protocol is language-neutral. Every observation starts with the
same envelope (:data:`ENVELOPE`), and what a bot is handed (:meth:`State.offer`)
shares nothing with the state (the exact comparison and the copies are :mod:`engine.json_values`).
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar

from engine.json_values import copy_json, find_legal

Action = dict[str, Any]


class GameError(ValueError):
    """Base class of every error the engine raises for a caller's mistake."""


class IllegalActionError(GameError):
    """The action is not one of the legal actions of the current state."""


class OptionError(GameError):
    """An option is unknown, of the wrong type or out of range."""


class PlayerCountError(GameError):
    """The game cannot be played by that many players."""


class DealError(GameError):
    """An explicit deal is malformed (wrong cards, wrong sizes)."""


class UnknownGameError(GameError):
    """No game is registered under that id."""


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game: its name, type, default and allowed values.

    ``kind`` is ``"bool"``, ``"int"`` or ``"choice"``. Integers may be bounded
    by ``minimum``/``maximum``; choices list their allowed values.
    """

    name: str
    kind: str
    default: Any
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[Any, ...] = ()

    def describe(self) -> str:
        if self.kind == "bool":
            allowed = "true|false"
        elif self.kind == "int":
            low = "" if self.minimum is None else str(self.minimum)
            high = "" if self.maximum is None else str(self.maximum)
            allowed = f"integer {low}..{high}".rstrip(".") if (low or high) else "integer"
        else:
            allowed = "|".join(str(c) for c in self.choices)
        return f"{self.name}={allowed} (default {self.default!r}): {self.help}"

    def parse(self, text: str) -> Any:
        """Turn a command-line string into a value of this option's type."""
        if self.kind == "bool":
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise OptionError(f"option {self.name!r} takes true or false, not {text!r}")
        if self.kind == "int":
            try:
                return int(text)
            except ValueError:
                raise OptionError(f"option {self.name!r} takes an integer, not {text!r}") from None
        for choice in self.choices:
            if str(choice) == text:
                return choice
        return text  # validate() reports it with the list of choices

    def validate(self, value: Any) -> Any:
        """Return the value if allowed, else raise :class:`OptionError`."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise OptionError(f"option {self.name!r} takes true or false, not {value!r}")
            return value
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(f"option {self.name!r} takes an integer, not {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise OptionError(f"option {self.name!r} must be at least {self.minimum}, not {value}")
            if self.maximum is not None and value > self.maximum:
                raise OptionError(f"option {self.name!r} must be at most {self.maximum}, not {value}")
            return value
        if value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise OptionError(f"option {self.name!r} must be one of {allowed}, not {value!r}")
        return value


@dataclass(frozen=True)
class GameResult:
    """The end of a match.

    ``scores[seat]`` is the seat's final score (higher is better unless the
    game says otherwise in its ranks); ``ranks[seat]`` is 1 for the winner,
    and tied seats share the best rank of their group (1, 1, 3).
    ``details`` carries per-seat game-specific facts for summaries, e.g.
    ``{"won": [True], "band": ["Tea Lady"]}``: each value is a list with one
    JSON value per seat.
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    details: Mapping[str, list[Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ranks": list(self.ranks), "details": dict(self.details)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameResult:
        return cls(tuple(data["scores"]), tuple(data["ranks"]), dict(data.get("details", {})))


@dataclass(frozen=True)
class DetailValue:
    """One value a text detail of a result can take (e.g. a rating band), with a note for summaries."""

    value: str
    note: str = ""


def ranks_from_scores(scores: Sequence[float], higher_is_better: bool = True) -> tuple[int, ...]:
    """Competition ranks (1, 1, 3): tied scores share the best rank of their group."""
    sign = -1 if higher_is_better else 1
    return tuple(1 + sum(1 for other in scores if sign * other < sign * mine) for mine in scores)


class ScoreOrder(Enum):
    """Which way a game's scores point: more is better (cubes, pins) or less is (penalty points)."""

    HIGHER_IS_BETTER = "higher is better"
    LOWER_IS_BETTER = "lower is better"


class WinRule(Enum):
    """Whether and how a seat wins a match; the ladder counts wins by this rule and by no other."""

    FIRST_RANK = "first rank"
    """A seat wins when no seat finished ahead of it: seats tied first share the victory (Elevenses'
    "share victory"), as the ranks of :class:`GameResult` already say."""
    GOAL_MET = "goal met"
    """A solitaire is won when the rulebook's win condition is met; the result says so in its
    ``"won"`` detail (:data:`WON_DETAIL`)."""
    NO_WIN = "no win"
    """No notion of winning: the game is scored only (Bowling Solitaire), so there is no win rate."""


WON_DETAIL = "won"
"""The detail of a :class:`GameResult` in which a :attr:`WinRule.GOAL_MET` game says, per seat, whether it won."""


@dataclass(frozen=True)
class GameFacts:
    """What the rest of the project needs to know about a game, declared once by the game itself.

    Modelled on OpenSpiel's ``GameType``: the ladder, the ratings and every summary read these facts
    instead of guessing them (a solitaire from ``max_players == 1``, a win from a ``"won"`` detail).
    ``win_condition`` is the rulebook's condition in a few words, for ``ladder games``.
    """

    min_players: int
    max_players: int
    score_order: ScoreOrder
    win_rule: WinRule
    win_condition: str

    def __post_init__(self) -> None:
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(
                f"a player range needs 1 <= min_players <= max_players, not {self.min_players}..{self.max_players}"
            )
        if self.win_rule is WinRule.FIRST_RANK and self.max_players == 1:
            raise ValueError("a solitaire has no rank to win by: declare WinRule.GOAL_MET or WinRule.NO_WIN")

    @property
    def solitaire(self) -> bool:
        """Only ever played alone: bots are compared on the same deals, not at a table."""
        return self.max_players == 1

    @property
    def higher_is_better(self) -> bool:
        return self.score_order is ScoreOrder.HIGHER_IS_BETTER

    @property
    def score_sign(self) -> int:
        """1 where a higher score is better, -1 where a lower one is: ``score_sign * score`` grows as play improves."""
        return 1 if self.higher_is_better else -1

    @property
    def can_win(self) -> bool:
        """Whether a match of this game can be won at all (else only scores and ranks count)."""
        return self.win_rule is not WinRule.NO_WIN

    def ranks(self, scores: Sequence[float]) -> tuple[int, ...]:
        """Competition ranks of ``scores`` in this game's score order."""
        return ranks_from_scores(scores, self.higher_is_better)

    def won(self, rank: int | None, goal_met: bool | None, failed: bool = False) -> bool | None:
        """The one definition of a win: whether a seat won, or ``None`` when the game has no notion of winning.

        ``rank`` is the seat's final rank, ``goal_met`` its :data:`WON_DETAIL` (``None`` when the result
        has none) and ``failed`` whether the seat failed (a bot replaced by a stand-in): a failed seat
        never wins, whatever its stand-in did.
        """
        if self.win_rule is WinRule.NO_WIN:
            return None
        if failed:
            return False
        if self.win_rule is WinRule.FIRST_RANK:
            return rank == 1
        return bool(goal_met)

    def seat_won(self, result: GameResult, seat: int, failed: bool = False) -> bool | None:
        """:meth:`won` for one seat of a result."""
        goal = result.details.get(WON_DETAIL)
        return self.won(result.ranks[seat], None if goal is None else bool(goal[seat]), failed)

    def describe(self) -> dict[str, Any]:
        return {
            "players": [self.min_players, self.max_players],
            "solitaire": self.solitaire,
            "score_order": self.score_order.value,
            "win_rule": self.win_rule.value,
            "win_condition": self.win_condition,
        }


class Game(ABC):
    """A game: its identity, its options and a factory of initial states."""

    id: ClassVar[str]
    name: ClassVar[str]
    facts: ClassVar[GameFacts]
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()

    @property
    def min_players(self) -> int:
        return self.facts.min_players

    @property
    def max_players(self) -> int:
        return self.facts.max_players

    # ---- options ---------------------------------------------------------------
    def default_options(self) -> dict[str, Any]:
        return {spec.name: spec.default for spec in self.option_specs}

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill in defaults and check every option; raise :class:`OptionError` on a bad one."""
        specs = {spec.name: spec for spec in self.option_specs}
        merged = self.default_options()
        for key, value in (options or {}).items():
            if key not in specs:
                known = ", ".join(specs) or "none"
                raise OptionError(f"game {self.id!r} has no option {key!r} (its options: {known})")
            merged[key] = specs[key].validate(value)
        self.check_option_combination(merged)
        return merged

    def parse_options(self, pairs: Iterable[str]) -> dict[str, Any]:
        """Parse ``key=value`` strings from the command line into validated options."""
        specs = {spec.name: spec for spec in self.option_specs}
        raw: dict[str, Any] = {}
        for pair in pairs:
            key, sep, text = pair.partition("=")
            key = key.strip()
            if not sep:
                raise OptionError(f"option {pair!r} must be written key=value")
            if key not in specs:
                known = ", ".join(specs) or "none"
                raise OptionError(f"game {self.id!r} has no option {key!r} (its options: {known})")
            raw[key] = specs[key].parse(text)
        return self.validate_options(raw)

    def check_option_combination(self, options: Mapping[str, Any]) -> None:  # noqa: B027 - a hook; most games need none
        """Override to reject combinations of individually valid options."""

    def check_num_players(self, num_players: int) -> None:
        if not isinstance(num_players, int) or not self.min_players <= num_players <= self.max_players:
            if self.min_players == self.max_players == 1:
                allowed = "one player alone"
            elif self.min_players == self.max_players:
                allowed = f"exactly {self.min_players} players"
            else:
                allowed = f"{self.min_players} to {self.max_players} players"
            raise PlayerCountError(f"{self.id} is played by {allowed}, not {num_players}")

    def check_options_for_players(self, num_players: int, options: Mapping[str, Any]) -> None:  # noqa: B027 - a hook
        """Override to reject options that do not suit a player count."""

    # ---- states ----------------------------------------------------------------
    def new_state(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        """A fresh match dealt from ``seed``."""
        self.check_num_players(num_players)
        validated = self.validate_options(options)
        self.check_options_for_players(num_players, validated)
        return self._new_state(num_players, seed, validated)

    @abstractmethod
    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> State: ...

    @abstractmethod
    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> State:
        """A match from an explicit deal (game-specific layout), for replaying rulebook examples."""

    # ---- facts for generic tests and tools -------------------------------------
    @abstractmethod
    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        """A bound on the number of actions of any match: every match ends within it."""

    def option_variants(self) -> list[dict[str, Any]]:
        """Option sets that together exercise every option; the generic tests run each."""
        variants: list[dict[str, Any]] = [{}]
        for spec in self.option_specs:
            if spec.kind == "bool":
                variants.append({spec.name: not spec.default})
            elif spec.kind == "choice":
                variants.extend({spec.name: c} for c in spec.choices if c != spec.default)
            elif spec.minimum is not None and spec.minimum != spec.default:
                variants.append({spec.name: spec.minimum})
        return variants

    def detail_values(self, detail: str) -> tuple[DetailValue, ...]:
        """Every value the text detail ``detail`` of a result can take, in display order, with notes.

        Summaries then list each value, even one never seen (and say why, in its
        note); ``()`` (the default) lets them show only the values that occurred.
        """
        return ()

    def player_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "players": [self.min_players, self.max_players],
            "facts": self.facts.describe(),
            "options": [spec.describe() for spec in self.option_specs],
        }


ENVELOPE: tuple[str, ...] = ("game", "num_players", "seat", "current_player", "over")
"""The fields every observation of every game starts with (:meth:`State.observation`)."""


class State(ABC):
    """One position of a match. Mutable: ``apply`` changes it in place.

    Subclasses implement the ``_``-prefixed methods; the public ones add the
    checks (an illegal action raises :class:`IllegalActionError` and changes
    nothing) and caching (legal actions are computed once per position).
    """

    game: Game
    num_players: int
    options: dict[str, Any]

    _legal_cache: list[Action] | None = None

    # ---- whose turn and what may be done -----------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int | None:
        """The seat whose decision it is, or ``None`` once the match is over."""

    @abstractmethod
    def is_over(self) -> bool: ...

    def legal_actions(self) -> list[Action]:
        """Every legal action of the current player (empty once over). Do not mutate the list.

        The list and its actions are the state's own cache (and may be shared further: Bowling Solitaire's
        actions are module-level constants), for speed in the engine and in a bot's searches on states it
        owns. What a bot is handed comes from :meth:`offer`: copies.
        """
        cache = self._legal_cache
        if cache is None:
            cache = [] if self.is_over() else self._legal_actions()
            self._legal_cache = cache
        return cache

    @abstractmethod
    def _legal_actions(self) -> list[Action]: ...

    def offer(self) -> tuple[dict[str, Any], list[Action]]:
        """What the bot of the deciding seat is handed: its observation and the legal actions.

        Both are independent copies (:func:`copy_json`), so an in-process bot may change them freely
        without touching the match; :func:`engine.testing.check_offers_are_independent` checks it for
        every game. The bot answers with an equal action; :meth:`apply` plays the state's own one.
        """
        seat = self.current_player
        if seat is None:
            raise IllegalActionError("the match is over; there is no decision to offer")
        return self.observation(seat), copy_json(self.legal_actions())

    def apply(self, action: Action) -> None:
        """Play ``action`` for the current player.

        Raises :class:`IllegalActionError`, leaving the state untouched, when
        the action is not exactly one of :meth:`legal_actions` (see
        :func:`find_legal`: ``2.0`` is not ``2`` and ``true`` is not ``1``). The
        game then plays its own copy of the action, never the caller's object.
        """
        legal = self.legal_actions()
        chosen = find_legal(action, legal)
        if chosen is None:
            if self.is_over():
                raise IllegalActionError(f"the match is over; {action!r} cannot be played")
            raise IllegalActionError(
                f"{action!r} is not legal for seat {self.current_player}; legal actions: {legal[:8]!r}"
                + (f" and {len(legal) - 8} more" if len(legal) > 8 else "")
            )
        self._legal_cache = None
        self._apply(chosen)

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Apply an action already known to be legal."""

    # ---- what seats know -----------------------------------------------------
    def observation(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know now, and nothing more, as plain JSON, in the one envelope of every game.

        The envelope (:data:`ENVELOPE`) comes first: ``game`` (its id), ``num_players``, ``seat`` (whose
        view this is), ``current_player`` (the seat to decide, ``null`` once over) and ``over``; the game's
        own fields (:meth:`_observation`) follow. The value shares no object with the state: a bot may
        change it freely.
        """
        view: dict[str, Any] = {
            "game": self.game.id,
            "num_players": self.num_players,
            "seat": seat,
            "current_player": self.current_player,
            "over": self.is_over(),
        }
        view.update(self._observation(seat))
        return view

    @abstractmethod
    def _observation(self, seat: int) -> dict[str, Any]:
        """The game's own fields of :meth:`observation` (not the envelope), sharing nothing with the state."""

    @abstractmethod
    def resample_hidden(self, seat: int, rng: random.Random) -> State:
        """A copy in which everything ``seat`` cannot see is redrawn at random.

        The copy must be a state ``seat`` cannot tell apart from this one:
        the generic hidden-information test checks that its observation is
        identical. The more it redraws, the stronger that test.
        """

    # ---- the end ----------------------------------------------------------------
    @abstractmethod
    def result(self) -> GameResult:
        """Scores and ranks; only meaningful once :meth:`is_over`."""

    # ---- copying and display -------------------------------------------------
    def clone(self) -> State:
        """An independent copy. Subclasses may override with something faster."""
        return copy.deepcopy(self)

    def render(self) -> str:
        """A human-readable picture of the whole state (for replays and debugging)."""
        return repr(self)


class EventLog:
    """What happened in a match, each event with the seats that witnessed it.

    Observations carry "the events a seat witnessed since its last decision".
    A state keeps one log and, per seat, the length of the log when that seat
    last decided (:meth:`mark`, called before the seat's action is applied,
    so the consequences of its own action are shown to it next time).
    """

    __slots__ = ("entries", "marks")

    def __init__(self, num_players: int) -> None:
        self.entries: list[tuple[frozenset[int] | None, dict[str, Any]]] = []
        self.marks: list[int] = [0] * num_players

    def add(self, event: dict[str, Any], witnesses: Iterable[int] | None = None) -> None:
        """Log ``event``; ``witnesses=None`` means every seat saw it."""
        self.entries.append((None if witnesses is None else frozenset(witnesses), event))

    def mark(self, seat: int) -> None:
        self.marks[seat] = len(self.entries)

    def since_last_decision(self, seat: int) -> list[dict[str, Any]]:
        """Copies of the events ``seat`` witnessed (an observation shares nothing with the log)."""
        return copy_json(
            [event for witnesses, event in self.entries[self.marks[seat] :] if witnesses is None or seat in witnesses]
        )

    def copy(self) -> EventLog:
        twin = EventLog.__new__(EventLog)
        twin.entries = list(self.entries)  # events are never mutated once logged
        twin.marks = list(self.marks)
        return twin
