"""The report's pictures, drawn by matplotlib as static SVG (no script, no fonts fetched)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("svg")

import matplotlib.pyplot as plt  # noqa: E402

from ladder.ratings.trueskill_model import HistoryPoint  # noqa: E402

matplotlib.rcParams.update(
    {
        "svg.fonttype": "none",  # text stays text: small files, readable, selectable
        "svg.hashsalt": "ladder-report",  # the same data draws the same file
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
)


def _label(text: str) -> str:
    """Text for matplotlib that is never read as mathtext (a ``$`` in a name would be)."""
    return text.replace("$", r"\$")


def _svg(figure: plt.Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    return buffer.getvalue()


def rating_history(history: Mapping[str, Sequence[HistoryPoint]]) -> str:
    """Each pool's mu after every rated event, with the band mu ± sigma and the line mu - 3 sigma."""
    figure, axes = plt.subplots(figsize=(7.0, 3.2))
    for pool, points in sorted(history.items()):
        xs = [p.event for p in points]
        mus = [p.mu for p in points]
        line = axes.plot(xs, mus, marker="." if len(xs) < 40 else None, label=_label(f"{pool} mu"))[0]
        axes.fill_between(
            xs, [p.mu - p.sigma for p in points], [p.mu + p.sigma for p in points], color=line.get_color(), alpha=0.15
        )
        axes.plot(
            xs,
            [p.mu - 3 * p.sigma for p in points],
            color=line.get_color(),
            linestyle=":",
            linewidth=1,
            label=_label(f"{pool} mu-3σ"),
        )
    axes.set_xlabel("rated events of the pool (matches; deals in solitaires), in match order")
    axes.set_ylabel("TrueSkill")
    axes.grid(alpha=0.3)
    if history:
        axes.legend(fontsize=7, loc="best", frameon=False)
    else:
        axes.text(0.5, 0.5, "not rated yet", ha="center", va="center", transform=axes.transAxes)
    return _svg(figure)


def score_histogram(scores: Sequence[float], pool: str) -> str:
    """How often each score came up in a solitaire."""
    figure, axes = plt.subplots(figsize=(5.0, 2.4))
    low, high = min(scores), max(scores)
    bins = min(30, max(1, int(high - low) + 1))
    axes.hist(scores, bins=bins, color="#4a7ab5", edgecolor="white")
    axes.set_xlabel(_label(f"score in {pool} ({len(scores)} deals)"))
    axes.set_ylabel("deals")
    axes.grid(alpha=0.3, axis="y")
    return _svg(figure)
