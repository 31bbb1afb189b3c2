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
from typing import TYPE_CHECKING

import numpy as np

from analysis.core.artifacts import atomic_path

if TYPE_CHECKING:
    from matplotlib.figure import Figure

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


def pyplot():
    """matplotlib's pyplot on the non-interactive Agg backend.

    Imported here, not at the top of the module: the stages that draw nothing write
    their outputs through :mod:`analysis.core.stage`, which
    imports this module, and need not pay for importing matplotlib (about 0.4 s).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def apply_style() -> None:
    """Set the project's figure style (the same bytes on every machine) (call before drawing)."""
    pyplot().rcParams.update(STYLE)


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


def save_figure(fig: Figure, stem: str | os.PathLike[str]) -> list[Path]:
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
    pyplot().close(fig)
    return paths
