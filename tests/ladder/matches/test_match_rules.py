"""The failure rule and the summaries of `ladder play` (pure parts)."""

from __future__ import annotations

from cli.commands.play import seat_labels
from engine import GameResult
from ladder.matches.match import apply_failure_rule
from ladder.ratings.summary import score_histogram


def test_failed_seat_is_ranked_last_and_the_others_keep_their_order() -> None:
    result = GameResult((5, 9, 7, 1), (3, 1, 2, 4))
    ruled = apply_failure_rule(result, [1])
    assert ruled.ranks == (2, 4, 1, 3)
    assert ruled.scores == result.scores


def test_several_failed_seats_tie_for_last() -> None:
    result = GameResult((5, 9, 7), (3, 1, 2))
    assert apply_failure_rule(result, [0, 1]).ranks == (2, 2, 1)


def test_ties_among_the_others_are_kept() -> None:
    result = GameResult((5, 5, 7), (2, 2, 1))
    assert apply_failure_rule(result, [2]).ranks == (1, 1, 3)


def test_no_failure_changes_nothing() -> None:
    result = GameResult((5, 9), (2, 1))
    assert apply_failure_rule(result, []) is result


def test_seat_labels_tell_apart_repeated_bots() -> None:
    assert seat_labels(["random", "thumb", "random"]) == ["random#1", "thumb", "random#2"]
    assert seat_labels(["a", "b"]) == ["a", "b"]


def test_score_histogram_counts_every_score_once() -> None:
    scores = [1, 2, 2, 3, 10, 26]
    rows = score_histogram(scores, buckets=5)
    assert sum(count for _, count in rows) == len(scores)
    assert rows[0][0].startswith("1")


def test_bots_never_see_the_match_seed() -> None:
    """Every deal is drawn from the match seed: a bot that knew it could compute hidden cards."""
    from bots.base import Bot, MatchStart
    from ladder.matches.match import MatchSpec, play_match

    seen: list[MatchStart] = []

    class Recorder(Bot):
        name = "recorder"

        def start(self, match: MatchStart) -> None:
            super().start(match)
            seen.append(match)

        def act(self, observation, legal_actions):
            return legal_actions[0]

    outcome = play_match(MatchSpec("elfer-raus", ("a", "b"), seed=12345), [Recorder(), Recorder()])
    assert outcome.result.ranks
    assert [m.seat for m in seen] == [0, 1]
    assert all(m.seed != 12345 for m in seen)
    assert seen[0].seed != seen[1].seed


def test_an_answer_with_other_json_types_is_an_illegal_move() -> None:
    """`2.0` is not `2` and `true` is not `1`: a bot that answers a legal action written with
    other types loses by an illegal move, and the log holds only the engine's own actions."""
    import json

    from bots.base import Bot
    from engine import same_json
    from ladder.matches.match import MatchSpec, play_match

    class Floaty(Bot):
        name = "floaty"

        def act(self, observation, legal_actions):
            action = legal_actions[0]
            return {key: float(value) if type(value) is int else value for key, value in action.items()} | (
                {"card": [float(action["card"][0]), action["card"][1]]} if "card" in action else {}
            )

    class Polite(Bot):
        name = "polite"

        def act(self, observation, legal_actions):
            return dict(legal_actions[-1])  # an equal copy, not the same object

    outcome = play_match(MatchSpec("elevenses", ("floaty", "polite"), seed=7), [Floaty(), Polite()])
    assert outcome.failures[0].reason == "illegal"
    assert ".0" in outcome.failures[0].detail
    assert 1 not in outcome.failures
    assert outcome.result.ranks[0] == 2
    for action in outcome.actions:
        assert same_json(action, json.loads(json.dumps(action)))
        assert "." not in json.dumps(action)


def test_seat_labels_name_a_bot_file_by_its_name_not_its_path() -> None:
    assert seat_labels(["/home/me/bots/crashy.py", "random"]) == ["crashy", "random"]
    assert seat_labels(["bots/mine/", "random"]) == ["mine", "random"]
    assert seat_labels(["a/crashy.py", "b/crashy.py"]) == ["a/crashy.py", "b/crashy.py"]  # two files, one name
    assert seat_labels(["x/random.py", "random"]) == ["x/random.py", "random"]  # not mistaken for the built-in
    assert seat_labels(["x/crashy.py", "x/crashy.py"]) == ["crashy#1", "crashy#2"]
