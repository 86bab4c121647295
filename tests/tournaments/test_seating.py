"""Balanced seating, counted from a stored tournament: every 3- and 4-player table has each bot in each
seat, and right after each other bot, equally often, all on the same deal."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

from engine import all_games
from tests.tournaments.test_cli import ladder

FIELD = ["thumb", "thumb-25", "thumb-50", "random"]
MULTIPLAYER = [game.id for game in all_games() if game.max_players >= 4]


def test_every_3_and_4_player_table_is_balanced_in_the_database(tmp_path: Path) -> None:
    (tmp_path / "seats.toml").write_text(
        f"seed = 9\ngames = {json.dumps(MULTIPLAYER)}\nbots = {json.dumps(FIELD)}\nplayers = [3, 4]\n"
        "games_per_pairing = 1\nworkers = 2\n"
    )
    run = ladder("run", "seats.toml", "--no-progress", "--db", f"sqlite:///{tmp_path / 'l.db'}", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(tmp_path / "l.db") as connection:
        rows = connection.execute(
            "select m.id, m.deal, m.seed, m.num_players, s.seat, b.name from match m join seat_result s on s.match_id = m.id "
            "join bot_version v on v.id = s.bot_version_id join bot b on b.id = v.bot_id where m.status = 'played' "
            "order by m.id, s.seat"
        ).fetchall()
    matches: dict[int, list[str]] = defaultdict(list)
    about: dict[int, tuple[str, int, int]] = {}
    for match_id, deal, seed, players, _, name in rows:
        matches[match_id].append(name)
        about[match_id] = (deal, seed, players)
    tables: dict[tuple[str, frozenset[str]], list[int]] = defaultdict(list)
    for match_id, seating in matches.items():
        tables[(about[match_id][0], frozenset(seating))].append(match_id)
    sizes = Counter(about[ids[0]][2] for ids in tables.values())
    assert sizes == {3: 4 * len(MULTIPLAYER), 4: len(MULTIPLAYER)}  # C(4,3) and C(4,4) tables per game, one deal
    for (deal, bots), ids in tables.items():
        size = len(bots)
        assert len(ids) == {3: 6, 4: 24}[size], deal
        assert len({about[i][1] for i in ids}) == 1  # every seating of the table is dealt the same cards
        seatings = [matches[i] for i in ids]
        for seat in range(size):
            assert set(Counter(s[seat] for s in seatings).values()) == {len(ids) // size}
        follows = Counter((s[i], s[(i + 1) % size]) for s in seatings for i in range(size))
        assert set(follows) == set(itertools.permutations(bots, 2))
        assert len(set(follows.values())) == 1, (deal, follows)
