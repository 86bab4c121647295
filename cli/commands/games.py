"""`ladder games`: every game with its player range and options."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from bots.registry import bots_for_game
from cli.commands.tables import fitted_table, label_column, number_column, print_table
from engine import all_games


def games() -> None:
    """List every game with its player range, its declared facts (score order, how a match is won), options and
    the built-in bots that play it."""
    table = fitted_table("Games on the ladder")
    table.show_lines = True
    number_column(table, "game", left=True)
    number_column(table, "players")
    label_column(table, "scores / win")
    label_column(table, "options (key=value)")
    label_column(table, "built-in bots")
    for game in all_games():
        players = (
            str(game.min_players) if game.min_players == game.max_players else f"{game.min_players}-{game.max_players}"
        )
        options = escape("\n".join(spec.describe() for spec in game.option_specs) or "none")
        facts = game.facts
        scoring = escape(f"{facts.score_order.value}\nwin: {facts.win_condition}")
        table.add_row(
            f"{game.id}\n[dim]{escape(game.name)}[/dim]", players, scoring, options, "\n".join(bots_for_game(game.id))
        )
    print_table(Console(), table)
