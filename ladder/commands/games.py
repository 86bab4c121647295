"""`ladder games`: every game with its player range and options."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from bots.registry import bots_for_game
from engine import all_games


def games() -> None:
    """List every game with its player range, options and the built-in bots that play it."""
    table = Table(title="Games on the ladder", show_lines=True)
    table.add_column("game")
    table.add_column("players", justify="center")
    table.add_column("options (key=value)")
    table.add_column("built-in bots")
    for game in all_games():
        players = str(game.min_players) if game.min_players == game.max_players else f"{game.min_players}-{game.max_players}"
        options = "\n".join(spec.describe() for spec in game.option_specs) or "none"
        table.add_row(f"{game.id}\n[dim]{game.name}[/dim]", players, options, ", ".join(bots_for_game(game.id)))
    Console().print(table)
