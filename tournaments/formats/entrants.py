"""A tournament file's games with their entrants resolved (plans), and what their bots need to run.

:func:`resolve_plans` turns the file's game entries into
:class:`~tournaments.formats.round_robin.GamePlan` (the bot versions entered, once each)
with a note for each game or table size that cannot be scheduled.
:func:`sandbox_refusal_for` says, before anything is recorded, why this
machine cannot run the submitted bots entered; :func:`bot_bundles` gathers
their files to ship to remote workers.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from ladder.errors import UserError
from ladder.seats.botref import BotRef, RefKind
from ladder.seats.roster import Entrant, entrants_for_game, resolve
from tournaments.formats.config import GameEntry, TournamentConfig
from tournaments.formats.round_robin import GamePlan, playable_counts


def _entrants_named(session: Session, config: TournamentConfig, entry: GameEntry, used: set[str]) -> list[Entrant]:
    """The bots an entry names that play its game (``used`` collects the references that play something)."""
    entrants = []
    for ref in entry.bots or ():
        try:
            entrant = resolve(session, ref)
        except UserError as error:
            raise UserError(f"{config.path}: {entry.bots_key}: {error}") from None
        if entrant.plays(entry.game):
            entrants.append(entrant)
            used.add(ref)
        elif entry.bots_key != "bots":
            raise UserError(f"{config.path}: {entry.bots_key}: bot {ref!r} does not play {entry.game}")
    return entrants


def _chosen_entrants(session: Session, config: TournamentConfig) -> list[tuple[GameEntry, list[Entrant]]]:
    """Each game entry with the bots it enters (all that play the game when it names none)."""
    chosen: list[tuple[GameEntry, list[Entrant]]] = []
    used: set[str] = set()
    for entry in config.games:
        entrants = (
            entrants_for_game(session, entry.game)
            if entry.bots is None
            else _entrants_named(session, config, entry, used)
        )
        chosen.append((entry, entrants))
    top_level = next(
        (entry.bots for entry in config.games if entry.bots is not None and entry.bots_key == "bots"), None
    )
    for ref in top_level or ():
        if ref not in used:
            raise UserError(f"{config.path}: bots: bot {ref!r} plays none of the tournament's games")
    return chosen


def _notes(config: TournamentConfig, entry: GameEntry, plan: GamePlan) -> list[str]:
    """What of ``plan`` cannot be scheduled (a :class:`UserError` where the file asked for it explicitly)."""
    notes = []
    if entry.dropped_players:
        shown = ", ".join(str(count) for count in entry.dropped_players)
        notes.append(
            f"{entry.game} at {shown} players: not played ({entry.game} does not allow it; players applies "
            f"to each game where the count fits)"
        )
    counts, dropped = playable_counts(plan)
    if entry.explicit_players and dropped:
        raise UserError(f"{config.path}: game.{entry.game}.players: {dropped[0]}")
    if not plan.entrants:
        notes.append(f"{entry.game}: no bot plays it: not scheduled")
    elif not counts:
        names = ", ".join(e.name for e in plan.entrants)
        notes.append(f"{entry.game}: only {len(plan.entrants)} bot plays it ({names}): not scheduled")
    else:
        notes.extend(dropped)
    return notes


def resolve_plans(session: Session, config: TournamentConfig) -> tuple[list[GamePlan], list[str]]:
    """Each game of the tournament with its bots; notes on what cannot be scheduled."""
    plans: list[GamePlan] = []
    notes: list[str] = []
    for entry, entrants in _chosen_entrants(session, config):
        unique: dict[int, Entrant] = {}
        for entrant in entrants:
            unique.setdefault(entrant.version_id, entrant)
        plan = GamePlan(entry.game, entry.players, entry.option_sets, entry.games_per_pairing, tuple(unique.values()))
        notes.extend(_notes(config, entry, plan))
        plans.append(plan)
    return plans, notes


def sandbox_refusal_for(config: TournamentConfig, plans: Sequence[GamePlan]) -> str | None:
    """Why this machine cannot run the submitted bots the tournament enters (one line), or None."""
    from ladder.seats.players import sandbox_refusal

    sandboxed = sorted({e.label for plan in plans for e in plan.entrants if BotRef.parse(e.ref).sandboxed})
    if not sandboxed:
        return None
    refusal = sandbox_refusal()
    if refusal is None:
        return None
    shown = ", ".join(sandboxed[:3]) + (f" and {len(sandboxed) - 3} more" if len(sandboxed) > 3 else "")
    return f"{config.path}: {refusal} (the tournament enters {shown})"


def bot_bundles(plans: Sequence[GamePlan]) -> dict[str, dict[str, bytes]]:
    """The files of every bot store version the tournament plays, by content hash (shipped to Dask workers)."""
    from ladder.sandbox.submission import content_hash, read_files
    from ladder.seats.players import store_folder

    bundles: dict[str, dict[str, bytes]] = {}
    for plan in plans:
        for entrant in plan.entrants:
            if BotRef.parse(entrant.ref).kind is not RefKind.STORE or entrant.content_hash in bundles:
                continue
            folder = store_folder(entrant.content_hash)
            if not folder.is_dir():
                raise UserError(f"bot {entrant.label}: its files are missing from the bot store ({folder})")
            files = read_files(folder)
            if content_hash(files) != entrant.content_hash:
                raise UserError(
                    f"bot {entrant.label}: the files in {folder} do not match their hash "
                    f"{entrant.content_hash[:12]} (changed after submission?)"
                )
            bundles[entrant.content_hash] = files
    return bundles
