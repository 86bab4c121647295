"""The guide's observation reference is the engine's own output: it cannot drift."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from engine import all_games
from ladder import observation_reference as reference


def guide_section() -> str:
    found = reference.section(reference.GUIDE.read_text(encoding="utf-8"))
    assert found is not None, "the observation reference markers are missing from docs/writing-a-bot.md"
    return found


def test_the_guide_holds_what_the_generator_makes_now() -> None:
    assert guide_section() == reference.render(), "run `python -m ladder.observation_reference`"


def test_every_game_has_a_real_observation_and_its_legal_actions_in_the_guide() -> None:
    section = guide_section()
    for game in all_games():
        part = section.split(f"#### `{game.id}`: a real observation", 1)
        assert len(part) == 2, f"{game.id} is missing from the guide"
        blocks = re.findall(r"```json\n(.*?)\n```", part[1], re.S)
        observation, legal = json.loads(blocks[0]), json.loads(blocks[1])
        # replayed here straight from the engine, independently of the generator's output text
        state = game.new_state(reference.sample(game).players, reference.SEED, game.default_options())
        for _ in range(reference.MOVES_BEFORE):
            state.apply(state.legal_actions()[0])
        seat = state.current_player
        assert observation == state.observation(seat) and legal == state.legal_actions(), game.id


def test_the_elevenses_spreads_are_documented_as_the_engine_shapes_them() -> None:
    guide = reference.GUIDE.read_text(encoding="utf-8")
    assert '{"up": card}' not in guide and "`face_up`" in guide and "`face_down`" in guide
    assert "`[number, set]`" in guide and "`values`" in guide
    if "elevenses" in [g.id for g in all_games()]:
        observation = json.loads(
            re.findall(r"```json\n(.*?)\n```", guide_section().split("#### `elevenses`")[1], re.S)[0]
        )
        assert set(observation["spreads"][0]) >= {"face_up", "face_down"}


def test_the_check_command_says_whether_the_guide_is_up_to_date(tmp_path, monkeypatch) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "ladder.observation_reference", "--check"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    stale = tmp_path / "guide.md"
    stale.write_text(reference.GUIDE.read_text(encoding="utf-8").replace('"seat": ', '"sit": ', 1))
    monkeypatch.setattr(reference, "GUIDE", stale)
    assert reference.main(["--check"]) == 1
    assert reference.main([]) == 0 and reference.main(["--check"]) == 0  # regenerated


def test_every_observation_in_the_guide_starts_with_the_one_envelope() -> None:
    from engine.core import ENVELOPE

    guide = reference.GUIDE.read_text(encoding="utf-8")
    for field in ENVELOPE:
        assert f"| `{field}` |" in guide, f"the envelope's {field!r} is not documented in the guide"
    section = guide_section()
    for game in all_games():
        observation = json.loads(
            re.findall(r"```json\n(.*?)\n```", section.split(f"#### `{game.id}`: a real observation", 1)[1], re.S)[0]
        )
        assert tuple(observation)[: len(ENVELOPE)] == ENVELOPE, game.id
        assert observation["game"] == game.id and observation["over"] is False
        assert observation["current_player"] == observation["seat"]
