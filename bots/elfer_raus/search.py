"""The search bot ("search"): Monte Carlo over sampled worlds, weighed by how likely the opponents' choices are in each."""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable
from typing import Any

from bots.base import Bot, MatchStart
from bots.elfer_raus.history import Decision, History, Revealed, fitting_cards
from bots.elfer_raus.thumb import GAME_ID, Action, play_out_round, thumb_choice, thumb_move
from engine.elfer_raus import ElferRausState, state_from_observation

THUMB_SLIP = 0.1
"""How often a rule-of-thumb player is taken to choose otherwise than the rules say (the model's noise)."""


def _log_likelihoods(
    decisions: Iterable[Decision], hand: Collection[int], opening: Collection[int], num_players: int
) -> tuple[float, float]:
    """log P(these choices | this hand) if the seat plays by the rules of thumb, and if it plays at random."""
    thumb_log = random_log = 0.0
    for decision in decisions:
        held = set(hand) | decision.laid_from_here
        if decision.pending >= 0:
            playable = [decision.pending]
        else:
            playable = [
                card for card in fitting_cards(list(decision.low), list(decision.high), opening) if card in held
            ]
        can_end = decision.played or decision.pending >= 0
        count = len(playable) + can_end + decision.can_draw
        if count < 2:
            continue
        low, high = list(decision.low), list(decision.high)
        expected = thumb_move(held, low, high, opening, num_players, playable, can_end, decision.can_draw)
        thumb_log += math.log(1 - THUMB_SLIP) if expected == decision.move else math.log(THUMB_SLIP / (count - 1))
        random_log -= math.log(count)
    return thumb_log, random_log


def _log_mean_exp(values: list[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(value - top) for value in values) / len(values))


class _OpponentModel:
    """Which opponents play like the rules of thumb, and which sampled worlds fit what they did.

    Each other seat is either a rule-of-thumb player (who slips with probability
    ``THUMB_SLIP``) or a random one. For a sampled world, the likelihood of a
    seat's checked choices this round under each kind is computed; the world's
    weight mixes the two by the seat's current belief, and the belief (log odds,
    carried from round to round) moves by the ratio of the likelihoods averaged
    over the sampled worlds.
    """

    prior_log_odds = math.log(4.0)  # most opponents of a search bot play sensibly
    cap = 12.0

    def __init__(self, num_players: int, me: int, prior_log_odds: float | None = None) -> None:
        self.num_players = num_players
        self.me = me
        prior = self.prior_log_odds if prior_log_odds is None else prior_log_odds
        self.carried = dict.fromkeys((seat for seat in range(num_players) if seat != me), prior)
        self.this_round = dict.fromkeys(self.carried, 0.0)

    def new_round(self) -> None:
        for seat in self.carried:
            self.carried[seat] = max(-self.cap, min(self.cap, self.carried[seat] + self.this_round[seat]))
            self.this_round[seat] = 0.0

    def wild(self) -> frozenset[int]:
        """Seats believed more likely to play at random than by the rules of thumb."""
        return frozenset(seat for seat in self.carried if self.carried[seat] + self.this_round[seat] < 0)

    def weigh(self, worlds: list[ElferRausState], decisions: list[Decision], opening: Collection[int]) -> list[float]:
        """Log weights of ``worlds`` given ``decisions``; updates this round's beliefs."""
        by_seat: dict[int, list[Decision]] = {}
        for decision in decisions:
            by_seat.setdefault(decision.seat, []).append(decision)
        weights = [0.0] * len(worlds)
        for seat, mine in by_seat.items():
            pairs = [_log_likelihoods(mine, world.hands[seat], opening, self.num_players) for world in worlds]
            thumb_logs = [pair[0] for pair in pairs]
            random_logs = [pair[1] for pair in pairs]
            self.this_round[seat] = _log_mean_exp(thumb_logs) - _log_mean_exp(random_logs)
            odds = self.carried[seat]
            share = 1 / (1 + math.exp(-odds)) if odds > -50 else 0.0
            for index, (thumb_log, random_log) in enumerate(pairs):
                top = max(thumb_log, random_log)
                mixed = share * math.exp(thumb_log - top) + (1 - share) * math.exp(random_log - top)
                weights[index] += top + math.log(mixed) if mixed > 0 else -1e9
        return weights


def _pick_worlds(log_weights: list[float], count: int, rng: random.Random) -> list[int]:
    """``count`` indices drawn by weight without replacement (keys u ** (1 / w))."""
    top = max(log_weights)
    keyed = []
    for index, log_weight in enumerate(log_weights):
        weight = math.exp(log_weight - top)
        key = math.log(rng.random() or 1e-300) / weight if weight > 0 else -math.inf
        keyed.append((key, index))
    keyed.sort(reverse=True)
    return [index for _, index in keyed[:count]]


class ElferRausSearchBot(Bot):
    """Determinized flat Monte Carlo, played out by the rules of thumb, anchored on them."""

    name = "search"
    author = "the ladder"
    version = "1"
    games = (GAME_ID,)

    determinizations = 6
    thumb_prior = 0.5
    confidence = 1.0
    last_round_bonus = 10.0
    # From ``many_players`` seats on: ``many_determinizations`` uniform worlds, all searched (at 4 and 6
    # players more worlds beat fewer weighed ones; the opponents' choices still tell which seats play at
    # random), and a playout is rated by its margin over every rival, each clipped to ``rank_margin``
    # points (the ladder rates by rank: 2nd place counts).
    many_players = 4
    many_determinizations = 48
    rank_margin = 10.0

    # Worlds sampled per decision and weighed by how well they explain the opponents' choices;
    # ``determinizations`` of them are drawn by weight and searched. At most ``determinizations``: uniform
    # worlds (the choices then only move the belief in which seats play at random).
    candidate_worlds = 24
    opponent_prior_log_odds: float | None = None

    def __init__(self) -> None:
        super().__init__()
        self.revealed = Revealed(draws_reveal=True)
        self.history = History(may_draw_instead=False, number_swap=False)
        self.model = _OpponentModel(2, 0)
        self.options: dict[str, Any] = {}

    def start(self, match: MatchStart) -> None:
        super().start(match)
        self.options = dict(match.options)
        draw_instead = self.options.get("hold_back", "some") == "all"
        self.revealed = Revealed(draws_reveal=not draw_instead)
        self.history = History(may_draw_instead=draw_instead, number_swap=bool(self.options.get("number_swap")))
        self.model = _OpponentModel(match.num_players, match.seat, self.opponent_prior_log_odds)

    def act(self, observation: dict[str, Any], legal_actions: list[Action]) -> Action:
        self.revealed.update(observation)
        self.history.update(observation)
        if self.history.new_round:
            self.model.new_round()
        if len(legal_actions) == 1:
            return legal_actions[0]
        thumb = thumb_choice(observation, legal_actions)
        candidates = [thumb] + [action for action in legal_actions if action != thumb]
        seat = observation["seat"]
        totals = observation["totals"]
        last_round = observation["round"] >= observation["rounds"]
        worlds = self._worlds(observation)
        wild = self.model.wild()
        values: list[list[float]] = [[] for _ in candidates]
        for world in worlds:
            rounds_done = len(world.round_points)
            rollout_seed = self.rng.getrandbits(32)
            for index, action in enumerate(candidates):
                trial = world.clone()
                trial.apply(action)
                points = play_out_round(trial, rounds_done, wild, random.Random(rollout_seed))
                values[index].append(self._rate(seat, totals, points, last_round))
        return candidates[self._pick(values)]

    def _worlds(self, observation: dict[str, Any]) -> list[ElferRausState]:
        """The sampled states to search.

        Below ``many_players`` seats, ``determinizations`` worlds drawn by weight
        from ``candidate_worlds`` (how well each explains the opponents' choices);
        from ``many_players`` on, ``many_determinizations`` uniform ones (there,
        more worlds beat fewer weighed ones). Either way the opponents' choices
        update the belief in which seats play at random (:meth:`_OpponentModel.wild`).
        """
        excluded = self.revealed.excluded
        many = observation["num_players"] >= self.many_players
        searched = self.many_determinizations if many else self.determinizations
        drawn = searched if many else max(searched, self.candidate_worlds)
        pool = [state_from_observation(observation, self.options, self.rng, excluded) for _ in range(drawn)]
        decisions = self.history.decisions(observation["seat"])
        if not decisions:
            return pool[:searched]
        weights = self.model.weigh(pool, decisions, frozenset(observation["opening_numbers"]))
        if drawn == searched:
            return pool
        return [pool[index] for index in _pick_worlds(weights, searched, self.rng)]

    def _rate(self, seat: int, totals: list[int], points: list[int], last_round: bool) -> float:
        mine = totals[seat] + points[seat]
        if len(totals) >= self.many_players:
            cap = self.rank_margin
            return sum(
                max(-cap, min(cap, total + points[other] - mine)) for other, total in enumerate(totals) if other != seat
            )
        best_rival = min(total + points[other] for other, total in enumerate(totals) if other != seat)
        value = float(best_rival - mine)
        if last_round:
            value += self.last_round_bonus * (1.0 if mine < best_rival else 0.5 if mine == best_rival else 0.0)
        return value

    def _pick(self, values: list[list[float]]) -> int:
        """The rule of thumb's choice (index 0) unless another beats it clearly on the same samples."""
        prior, confidence = self.thumb_prior, self.confidence
        base = values[0]
        best, best_gain = 0, 0.0
        count = len(base)
        for index in range(1, len(values)):
            diffs = [value - anchor for value, anchor in zip(values[index], base)]
            mean = sum(diffs) / count
            spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, count - 1)) / math.sqrt(count)
            if mean > prior and mean > confidence * spread and mean > best_gain:
                best, best_gain = index, mean
        return best
