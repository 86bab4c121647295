"""Checking and registering submitted bots: versions by content hash, names, the bot store."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from ladder.errors import UserError
from ladder.matches.match import MatchSpec, play_match
from ladder.sandbox.limits import SandboxLimits
from ladder.seats.botstore import check_submitted_bot, register
from ladder.seats.players import PlayerPool
from ladder.store.bot_index import latest_hash, registered_bots
from ladder.store.database import session_for
from ladder.store.tables import BotRow, BotVersionRow
from tests.ladder.toy_game import GAME_ID, toy_game_registered

LIMITS = SandboxLimits(move_seconds=2.0, match_seconds=10.0, memory_mb=256)

BOT = """from ladder.bot import Bot


class Counter(Bot):
    name = "counter"
    author = "tester"
    version = "{version}"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        return legal_actions[{index}]
"""


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    results = tmp_path / "results"
    monkeypatch.setenv("LADDER_RESULTS", str(results))
    monkeypatch.setenv("LADDER_DB", f"sqlite:///{results / 'ladder.db'}")
    with toy_game_registered():
        yield results


def bot_file(folder: Path, version: str = "1", index: int = 0, name: str = "counter.py") -> Path:
    path = folder / name
    path.write_text(BOT.format(version=version, index=index))
    return path


def submit(path: Path, name: str | None = None):
    report = check_submitted_bot(str(path), name=name, limits=LIMITS, matches_per_table=1)
    assert report.ok, report.problem
    return register(report)


@pytest.mark.needs_bot_sandbox
def test_a_checked_bot_is_stored_by_hash_and_recorded(tmp_path: Path, home: Path) -> None:
    registration = submit(bot_file(tmp_path))
    assert registration.created and registration.name == "counter" and registration.version_count == 1
    stored = home / "bots" / registration.content_hash / "bot.py"
    assert stored.read_text() == BOT.format(version="1", index=0)
    with session_for() as session:
        bot = session.exec(select(BotRow).where(BotRow.name == "counter")).one()
        version = session.exec(select(BotVersionRow).where(BotVersionRow.bot_id == bot.id)).one()
    assert bot.author == "tester"
    assert version.content_hash == registration.content_hash
    assert version.games == ["toy-count"] and version.source == "submitted"
    assert version.store_path == f"bots/{registration.content_hash}"
    assert latest_hash("counter") == registration.content_hash


@pytest.mark.needs_bot_sandbox
def test_the_same_files_again_are_recognised_and_nothing_is_added(tmp_path: Path) -> None:
    first = submit(bot_file(tmp_path))
    again = submit(bot_file(tmp_path, name="renamed.py"))
    assert not again.created
    assert again.content_hash == first.content_hash and again.version_count == 1


@pytest.mark.needs_bot_sandbox
def test_a_changed_file_is_a_new_version_and_the_latest_is_played(tmp_path: Path) -> None:
    first = submit(bot_file(tmp_path, version="1", index=0))
    second = submit(bot_file(tmp_path, version="2", index=2))
    assert second.created and second.version_count == 2 and second.content_hash != first.content_hash
    [row] = registered_bots()
    assert [v["version"] for v in row["versions"]] == ["1", "2"]
    with PlayerPool(limits=LIMITS) as pool:
        for ref in ("counter", f"store:{first.content_hash}"):
            outcome = play_match(MatchSpec(GAME_ID, (ref,), 1), [pool.player(ref, GAME_ID)])
            assert outcome.failures == {}
            expected = 3 if ref == "counter" else 1
            assert outcome.actions[0] == {"type": "add", "n": expected}


@pytest.mark.needs_bot_sandbox
def test_the_same_code_under_another_name_is_refused(tmp_path: Path) -> None:
    submit(bot_file(tmp_path))
    report = check_submitted_bot(str(bot_file(tmp_path)), name="copycat", limits=LIMITS, matches_per_table=1)
    with pytest.raises(UserError, match="already registered as bot 'counter'"):
        register(report)


@pytest.mark.needs_bot_sandbox
def test_a_stored_bot_whose_files_changed_is_refused(tmp_path: Path, home: Path) -> None:
    registration = submit(bot_file(tmp_path))
    stored = home / "bots" / registration.content_hash / "bot.py"
    stored.chmod(0o644)
    stored.write_text(stored.read_text() + "\n# tampered\n")
    with PlayerPool(limits=LIMITS) as pool, pytest.raises(UserError, match="do not match their hash"):
        pool.player(f"store:{registration.content_hash}", GAME_ID)


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("class B(Bot):\n    name = 'random'\n    games = ('toy-count',)\n", "built-in bot's"),
        ("class B(Bot):\n    name = 'has space'\n    games = ('toy-count',)\n", "not usable"),
        ("class B(Bot):\n    name = 'b'\n    games = ('chess',)\n", "'chess', not on this ladder"),
        ("class B(Bot):\n    name = 'b'\n    games = ()\n", "claims no game"),
        ("class A(Bot):\n    name = 'a'\nclass B(Bot):\n    name = 'b'\n", "several Bot subclasses"),
        ("X = 1\n", "defines no subclass"),
        ("import numpy\n", "ModuleNotFoundError"),
        (
            "class B(Bot):\n    name = 'b'\n    games = ('toy-count',)\n    def __init__(self, x):\n        pass\n",
            "TypeError",
        ),
    ],
)
@pytest.mark.needs_bot_sandbox
def test_a_bad_bot_fails_the_check_saying_why(tmp_path: Path, source: str, words: str) -> None:
    path = tmp_path / "bot.py"
    path.write_text("from ladder.bot import Bot\n" + source)
    report = check_submitted_bot(str(path), limits=LIMITS, matches_per_table=1)
    assert not report.ok
    assert words in report.problem + report.explanation, (report.problem, report.explanation)


@pytest.mark.needs_bot_sandbox
def test_a_failing_match_is_explained_with_game_seed_and_the_bots_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bot.py"
    path.write_text(
        "from ladder.bot import Bot\n"
        "class B(Bot):\n    name = 'b'\n    games = ('toy-count',)\n"
        "    def act(self, observation, legal_actions):\n"
        "        if observation['total'] > 5:\n            return helper(legal_actions)\n"
        "        return legal_actions[0]\n"
    )
    report = check_submitted_bot(str(path), limits=LIMITS, matches_per_table=1)
    assert not report.ok
    assert "toy-count" in report.problem and "seed" in report.problem and "exception" in report.problem
    assert "NameError" in report.problem
    assert "return helper(legal_actions)" in report.explanation


@pytest.mark.needs_bot_sandbox
def test_the_check_plays_every_claimed_game_at_the_smallest_and_largest_table(tmp_path: Path) -> None:
    report = check_submitted_bot(str(bot_file(tmp_path)), limits=LIMITS, matches_per_table=2)
    assert report.ok
    assert sorted({(m["game"], m["players"]) for m in report.matches}) == [(GAME_ID, 1), (GAME_ID, 2)]
    assert len(report.matches) == 4


@pytest.mark.needs_bot_sandbox
def test_a_folder_bot_brings_its_modules_and_data(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "folder_bot"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "choice.json").write_text('{"index": 1}')
    (folder / "strategy.py").write_text(
        "import json, os\n"
        "HERE = os.path.dirname(__file__)\n"
        "def index():\n    return json.load(open(os.path.join(HERE, 'data', 'choice.json')))['index']\n"
    )
    (folder / "bot.py").write_text(
        "from ladder.bot import Bot\nimport strategy\n\n"
        "class FolderBot(Bot):\n    name = 'folder-bot'\n    games = ('toy-count',)\n\n"
        "    def act(self, observation, legal_actions):\n        return legal_actions[strategy.index()]\n"
    )
    registration = submit(folder)
    stored = home / "bots" / registration.content_hash
    assert sorted(p.relative_to(stored).as_posix() for p in stored.rglob("*") if p.is_file()) == [
        "bot.py",
        "data/choice.json",
        "strategy.py",
    ]
    with PlayerPool(limits=LIMITS) as pool:
        outcome = play_match(MatchSpec(GAME_ID, ("folder-bot",), 1), [pool.player("folder-bot", GAME_ID)])
    assert outcome.failures == {} and outcome.actions[0] == {"type": "add", "n": 2}


def test_a_registration_the_database_refuses_leaves_no_row_and_no_orphan_folder(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from collections.abc import Iterator
    from contextlib import contextmanager

    from sqlalchemy.exc import OperationalError
    from sqlmodel import Session

    from ladder.sandbox.bot_info import BotInfo
    from ladder.sandbox.submission import content_hash, read_files
    from ladder.seats import botstore
    from ladder.seats.botstore import CheckReport

    path = bot_file(tmp_path)
    report = CheckReport(
        str(path),
        content_hash(read_files(path)),
        info=BotInfo("counter", "tester", "1", ("toy-count",)),
        name="counter",
        games=["toy-count"],
    )

    opened = botstore.session_for

    @contextmanager
    def refusing_session(url: str | None = None) -> Iterator[Session]:
        with opened(url) as session:

            def refuse() -> None:
                raise OperationalError("INSERT INTO bot_version", {}, Exception("disk I/O error"))

            session.commit = refuse  # type: ignore[method-assign]
            yield session

    with monkeypatch.context() as patch:
        patch.setattr(botstore, "session_for", refusing_session)
        with pytest.raises(UserError, match="could not be registered: OperationalError") as refused:
            register(report)
    assert "\n" not in str(refused.value)
    assert not (home / "bots").exists() or list((home / "bots").iterdir()) == []  # nothing left in the bot store
    assert registered_bots() == []
    assert register(report).created  # and once the database takes it, it registers as usual
