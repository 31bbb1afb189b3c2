"""Figures that are byte-identical from run to run, readable at page width.

Every figure is written as SVG and PNG by :func:`save_figure`: matplotlib's SVG ids are
salted with a fixed string, and the date and software metadata are left out.

Text in figures is plain text: ``text.parse_math`` is off, so a ``$`` in a project name
or label is drawn as a dollar sign (Greek letters and the like are written as Unicode
characters, e.g. κ, α, χ²), and data strings pass through
:func:`analysis.core.textsafe.visible` before they become a label.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from analysis.core.artifacts import atomic_path  # noqa: E402
from analysis.core.textsafe import visible  # noqa: E402

STYLE = {
    "svg.hashsalt": "llm-framework-challenges",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "text.parse_math": False,  # data text is never mathtext: "$x$" stays "$x$"
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
}
# Colour-blind-safe palette (Okabe-Ito), in a fixed order.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000"]
TYPE_COLOURS = {"Question": "#E69F00", "Requirement": "#009E73", "Bug": "#0072B2"}
PAGE_WIDTH_IN = 7.0


def apply_style() -> None:
    """Set the deterministic house style (call before drawing)."""
    plt.rcParams.update(STYLE)


def wrap_label(text: str, width: int) -> str:
    """``text`` in full, broken at spaces into as few lines as lines of ``width``
    characters need, of even length (no lone last word); a longer word stays whole."""
    if len(text) <= width:
        return text
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    for even in range(-(-len(text) // max(len(lines), 1)), width):
        balanced = textwrap.wrap(text, even, break_long_words=False, break_on_hyphens=False)
        if len(balanced) <= len(lines):
            return "\n".join(balanced)
    return "\n".join(lines) or text


def save_figure(fig: plt.Figure, stem: str | os.PathLike[str]) -> list[Path]:
    """Write ``<stem>.svg`` and ``<stem>.png`` deterministically and close the figure.

    Matplotlib derives the SVG's clip-path ids from the repr of numpy floats, which numpy 2
    changed (``np.float64(0.5)``): the legacy repr keeps the ids, and so the files, the
    same under numpy 1 and 2.
    """
    stem = Path(stem)
    paths = []
    for ext, metadata in (("svg", {"Date": None, "Creator": None}),
                          ("png", {"Software": None})):
        target = stem.with_suffix(f".{ext}")
        with atomic_path(target) as tmp, np.printoptions(legacy="1.25"):
            fig.savefig(tmp, format=ext, metadata=metadata)
        paths.append(target)
    plt.close(fig)
    return paths


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


def table1_figure(table: pd.DataFrame) -> plt.Figure:
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
