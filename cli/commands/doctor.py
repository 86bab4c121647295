"""`ladder doctor`: which sandbox layers protect the ladder from submitted bots on this machine."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from cli.commands.tables import fitted_table, label_column, number_column, print_table
from ladder.sandbox.host_facts import is_root, process_layer_can_drop_root
from ladder.sandbox.host_load import usable_cores, workers_warning
from ladder.sandbox.layers import LAYERS, LayerStatus, default_layers, interpreter_view, layer_statuses, separation
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.move_clock import WALL_FACTOR

INSTALL_HINTS = {
    "bubblewrap": "apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)",
    "seccomp": "a Linux x86-64 kernel with seccomp filters (CONFIG_SECCOMP_FILTER)",
}


def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False,
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, help="Say whether this many tournament workers fit this machine.")
    ] = None,
) -> None:
    """Say which sandbox layers are active here (probed by starting a bot), and why any is missing."""
    cores = usable_cores()
    crowded = workers_warning(workers) if workers is not None else None
    statuses = layer_statuses()
    active = default_layers()
    limits = SandboxLimits()
    kind, why = separation(active)
    view = interpreter_view(active)
    if as_json:
        print(
            json.dumps(
                {
                    "layers": [asdict(status) for status in statuses],
                    "active": list(active),
                    "bots_can_run": _bots_can_run(active),
                    "separation": {"kind": kind, "detail": why},
                    "interpreter_view": view,
                    "between_turns": "stopped (SIGSTOP) while the ladder does not wait for the bot",
                    "default_limits": asdict(limits),
                    "usable_cores": cores,
                    "workers_warning": crowded,
                },
                indent=2,
            )
        )
        return
    console = Console()
    print_table(console, _layers_table(statuses))
    if not _bots_can_run(active):
        console.print(
            "[red]Submitted bots cannot run here:[/red] the ladder runs as root, and without bubblewrap it "
            "cannot run a bot as an unprivileged user, so it refuses to (install bubblewrap).",
            highlight=False,
        )
    else:
        console.print(f"Submitted bots run with: [bold]{' + '.join(active)}[/bold]", highlight=False)
    console.print(f"Bots kept apart by: [bold]{kind}[/bold]: {why}.", highlight=False)
    console.print(f"What a bot can import: {view}.", highlight=False)
    console.print(
        "Between turns and between matches every bot is stopped (SIGSTOP): it uses no CPU while the "
        "ladder does not wait for it.",
        highlight=False,
    )
    missing = [name for name in LAYERS if name not in active]
    if missing:
        console.print(
            f"[yellow]Missing: {', '.join(missing)}.[/yellow] `--require-layer NAME` on play/submit/validate "
            "refuses to run without a layer.",
            highlight=False,
        )
    console.print(
        f"Default limits: {limits.move_seconds:g} s of CPU time per move (plus a bank of {limits.bank_seconds:g} s per "
        f"match; a wall-clock cap of {WALL_FACTOR:g}x that), {limits.match_seconds:g} s per match, "
        f"{limits.memory_mb} MB of memory, {limits.start_seconds:g} s to start, replies up to "
        f"{limits.reply_bytes // 1024} KB, files up to {limits.file_mb} MB, /tmp {limits.tmp_mb} MB.",
        highlight=False,
    )
    console.print(
        f"Usable cores here: {cores}: a tournament carries up to {cores} worker{'s' if cores != 1 else ''} "
        "(one match keeps about one core busy).",
        highlight=False,
    )
    if crowded is not None:
        console.print(f"[yellow]Warning:[/yellow] {escape(crowded)}.", highlight=False)


def _bots_can_run(active: Sequence[str]) -> bool:
    """Whether a submitted bot can run here at all: as root, the ladder needs bubblewrap or a process layer that
    can drop root to run a bot unprivileged, and refuses otherwise."""
    return not (is_root() and "bubblewrap" not in active and not process_layer_can_drop_root())


def _layers_table(statuses: Sequence[LayerStatus]) -> Table:
    """A row per sandbox layer: active or missing, why, and how to get a missing one."""
    table = fitted_table("Sandbox layers for submitted bots")
    number_column(table, "layer", left=True)
    number_column(table, "status", left=True)
    label_column(table, "details")
    for status in statuses:
        mark = "[green]active[/green]" if status.available else "[red]missing[/red]"
        detail = status.detail
        if not status.available and status.name in INSTALL_HINTS and "install" not in detail:
            detail += f"\nto get it: {INSTALL_HINTS[status.name]}"
        table.add_row(status.name, mark, escape(detail))
    return table
