"""Where a tournament's matches are played: the backends behind one executor interface.

The runner hands match tasks to a :class:`concurrent.futures.Executor` and
consumes the results as they complete; a backend is just how that executor
is made:

``local``
    :class:`~tournaments.executors.local_pool.LocalPoolExecutor`: long-lived worker
    processes on this machine (one per core by default).
``dask``
    :class:`~tournaments.executors.dask_executor.DaskExecutor`: a Dask cluster, through
    ``distributed.Client(...).get_executor(pure=False)``. With a scheduler
    address it joins that cluster; without one it starts a
    ``distributed.LocalCluster`` of its own on this machine. Dask is an
    optional extra (``pip install "card-ladder[dask]"``).

This module imports no Dask: asking for the Dask backend without Dask
installed ends in one line saying how to install it.
"""

from __future__ import annotations

from typing import Any

from ladder.errors import UserError
from tournaments.formats.config import BACKENDS

# No square brackets ("card-ladder[dask]"): the CLI prints errors as rich markup, which would eat them.
DASK_MISSING = (
    "the dask backend needs Dask, which is not installed here: pip install dask distributed "
    "(or install the ladder with its dask extra)"
)


def require_dask() -> Any:
    """The ``distributed`` module, or a :class:`UserError` saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise UserError(DASK_MISSING) from None
    return distributed


def check_backend(name: str) -> str:
    """``name`` if it is a backend (and its software is installed), else a :class:`UserError`."""
    if name not in BACKENDS:
        raise UserError(f"--backend must be one of {', '.join(BACKENDS)}, not {name!r}")
    if name == "dask":
        require_dask()
    return name
