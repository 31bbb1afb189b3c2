"""The table1 stage's figure: issues per project by year and by type."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd

from analysis.core.figures import PAGE_WIDTH_IN, PALETTE, TYPE_COLOURS, apply_style
from analysis.core.textsafe import visible


def _stacked_barh(ax: plt.Axes, frame: pd.DataFrame, colours: list[str], title: str,
                  labels: list[str] | None = None) -> None:
    """Horizontal stacked bars, one per row of ``frame``, with a label at each bar's end."""
    left = pd.Series(0, index=frame.index, dtype="float64")
    for col, colour in zip(frame.columns, colours, strict=True):
        ax.barh(frame.index, frame[col], left=left, color=colour, label=visible(col),
                edgecolor="white", linewidth=0.5)
        left += frame[col]
    for y, (total, label) in enumerate(zip(left, labels or [f"{int(t):,}" for t in left],
                                           strict=True)):
        ax.text(total, y, f" {label}", va="center", fontsize=8)
    ax.set_title(title, loc="left")
    ax.set_xlim(0, left.max() * 1.2 if left.max() else 1)
    ax.legend(frameon=False, fontsize=8, loc="lower right")


def counts_figure(table: pd.DataFrame) -> plt.Figure:
    """Issues per project: counts stacked by year (left), type mix in percent (right)."""
    apply_style()
    body = table.drop(index="Sum").set_index("name")
    body.index = body.index.map(visible)
    years = [c for c in body.columns if c.isdigit()]
    types = [c for c in body.columns if c not in (*years, "kind", "Total")]
    fig, axes = plt.subplots(1, 2, figsize=(PAGE_WIDTH_IN, 0.32 * len(body) + 1.6),
                             sharey=True, gridspec_kw={"width_ratios": [1.15, 1]})
    blues = plt.get_cmap("Blues")
    year_colours = [blues(0.35 + 0.6 * i / max(len(years) - 1, 1)) for i in range(len(years))]
    _stacked_barh(axes[0], body[years], year_colours, "Issues by year")
    axes[0].xaxis.set_major_formatter(
        matplotlib.ticker.FuncFormatter(lambda v, _: f"{int(v):,}"))
    shares = 100 * body[types].div(body[types].sum(axis=1).replace(0, 1), axis=0)
    type_colours = [TYPE_COLOURS.get(t, PALETTE[(i + 3) % len(PALETTE)])
                    for i, t in enumerate(types)]
    _stacked_barh(axes[1], shares, type_colours, "Type mix (% of the project's issues)",
                  labels=[""] * len(shares))
    axes[1].set_xlim(0, 100)
    axes[1].legend(frameon=False, fontsize=8, loc="upper center", ncol=len(types),
                   bbox_to_anchor=(0.5, -0.08))
    axes[0].legend(frameon=False, fontsize=8, loc="upper center", ncol=len(years),
                   bbox_to_anchor=(0.5, -0.08))
    axes[0].invert_yaxis()  # shared y: first project at the top
    fig.suptitle("Labelled LLM-related issue reports per project (Table I)", x=0.01,
                 ha="left", fontsize=11)
    fig.tight_layout()
    return fig
