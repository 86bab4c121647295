"""The scoring rules at eleven o'clock, as plain functions: who gets the cubes, who serves next."""

from __future__ import annotations

from collections.abc import Sequence


def placing_cubes(values: Sequence[int]) -> list[int]:
    """Cubes for the best spreads (before the bowl limits them).

    "Whoever has the spread with the highest value ... receives 2 sugar cubes. In a 3 or 4
    player game, the player with the second-highest value receives 1 sugar cube ... In a
    2-player game, the player with the second-highest value receives nothing. If players tie
    for the highest value, they each receive 1 sugar cube and the other players receive
    nothing. If players tie for the second-highest value, they each receive nothing."
    """
    n = len(values)
    cubes = [0] * n
    best = max(values)
    firsts = [s for s in range(n) if values[s] == best]
    if len(firsts) > 1:
        for s in firsts:
            cubes[s] = 1
        return cubes
    cubes[firsts[0]] = 2
    if n >= 3:
        second = max(v for v in values if v != best)
        seconds = [s for s in range(n) if values[s] == second]
        if len(seconds) == 1:
            cubes[seconds[0]] = 1
    return cubes


def next_server(cubes: Sequence[int], holder: int) -> int:
    """ "The player who now has the fewest total sugar cubes takes the starting server card. If
    multiple players are tied for the fewest, then the tied player closest to the current
    holder of the starting server card in clockwise order takes" it (a tied holder, at
    distance zero, keeps it)."""
    n = len(cubes)
    fewest = min(cubes)
    for i in range(n):
        seat = (holder + i) % n
        if cubes[seat] == fewest:
            return seat
    raise AssertionError("unreachable")
