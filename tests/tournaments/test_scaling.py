"""The scaling benchmark's parts: worker counts from the command line, the hardware baseline's copies."""

from __future__ import annotations

import pytest

from tournaments.coordinator.scaling import hardware_baseline, parse_counts


def test_worker_counts_are_read_from_a_comma_separated_list() -> None:
    assert parse_counts("1,2,4,8,16") == [1, 2, 4, 8, 16]
    assert parse_counts(" 2 , 1 ") == [2, 1]
    for bad in ("1,two", "0,1", "", "-1"):
        with pytest.raises(ValueError, match="worker counts"):
            parse_counts(bad)


def test_the_hardware_baseline_runs_every_copy_the_same_work() -> None:
    figures = hardware_baseline(2, games=2)
    assert figures.copies == 2 and figures.games == 2
    assert 0 < figures.seconds_per_copy < 60
