"""The interview stage's figures: which themes each interviewee linked (heatmap) and the
share of users and of developers linking each theme (bars).

Participant ids and theme names come from the data; they are drawn as visible text
(:func:`analysis.core.textsafe.visible`), so hidden characters cannot disguise them.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import to_rgb

from analysis.core.figures import PAGE_WIDTH_IN, apply_style
from analysis.core.taxonomy import Taxonomy
from analysis.core.textsafe import visible
from analysis.interviews.compute import node_labels
from analysis.interviews.read import CODEBOOK_FILE
from analysis.interviews.rules import TAXONOMY_FILE

GROUP_COLOURS = {"User": "#0072B2", "Developer": "#E69F00"}


def heatmap_figure(matrix: pd.DataFrame, codebook: pd.DataFrame, taxonomy: Taxonomy
                   ) -> plt.Figure:
    """Participants (columns, users then developers) x themes (rows): a filled cell is a
    link in the codebook, coloured by group; nodes outside the taxonomy are marked *.
    Participant ids and theme names are drawn as visible text (:mod:`analysis.core.textsafe`)."""
    apply_style()
    types = codebook.drop_duplicates("participant").set_index("participant")["type"]
    labels = node_labels(list(matrix.index), taxonomy)
    n_rows, n_cols = matrix.shape
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.24 * n_rows + 1.3))
    image = np.ones((n_rows, n_cols, 3))
    for j, p in enumerate(matrix.columns):
        colour = to_rgb(GROUP_COLOURS.get(types.get(p, ""), "#555555"))
        for i in range(n_rows):
            if matrix.iat[i, j]:
                image[i, j] = colour
    ax.imshow(image, aspect="auto", interpolation="nearest")
    ax.set_xticks(range(n_cols), [visible(p) for p in matrix.columns], fontsize=8,
                  rotation=90)
    ax.set_yticks(range(n_rows), [visible(labels[c]) + ("" if c in set(taxonomy.codes)
                                                        else " *") for c in matrix.index],
                  fontsize=8)
    ax.xaxis.tick_top()
    ax.set_xticks(np.arange(-0.5, n_cols, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, n_rows, 1), minor=True)
    ax.grid(which="minor", color="#dddddd", linewidth=0.6)
    ax.tick_params(which="minor", length=0)
    ax.tick_params(which="major", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    users = [j for j, p in enumerate(matrix.columns) if types.get(p) == "User"]
    if users and len(users) < n_cols:
        ax.axvline(max(users) + 0.5, color="#333333", linewidth=1.2)
    # separators between issue types
    letters = [c[:1] for c in matrix.index]
    for i in range(1, n_rows):
        if letters[i] != letters[i - 1]:
            ax.axhline(i - 0.5, color="#333333", linewidth=0.8)
    for ptype, colour in GROUP_COLOURS.items():
        cols = [j for j, p in enumerate(matrix.columns) if types.get(p) == ptype]
        if cols:
            ax.text((min(cols) + max(cols)) / 2, n_rows - 0.5 + 0.9,
                    f"{ptype}s ({len(cols)})", ha="center", va="top", fontsize=9,
                    color=colour, fontweight="bold")
    unknown = [c for c in matrix.index if c not in set(taxonomy.codes)]
    if unknown:
        fig.text(0.01, 0.005, f"* not in {TAXONOMY_FILE}: possibly a category added from "
                 "the interviews (Section IV.C)", fontsize=8, ha="left", va="bottom")
    fig.suptitle(f"Taxonomy themes linked by each interviewee ({CODEBOOK_FILE})", x=0.01,
                 ha="left", fontsize=11)
    fig.tight_layout()
    return fig


def theme_counts_figure(counts: pd.DataFrame, taxonomy: Taxonomy) -> plt.Figure:
    """Share of users and of developers linking each theme (grouped horizontal bars);
    theme names are drawn as visible text (:mod:`analysis.core.textsafe`)."""
    apply_style()
    labels = node_labels(list(counts["node"]), taxonomy)
    n = len(counts)
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.27 * n + 1.2))
    y = np.arange(n)
    h = 0.4
    for k, (ptype, col) in enumerate((("User", "users"), ("Developer", "developers"))):
        values = counts[f"{col}_percent"].fillna(0).to_numpy()
        ax.barh(y - h / 2 + k * h, values, height=h, color=GROUP_COLOURS[ptype],
                label=f"{ptype}s")
        for yy, v, c in zip(y - h / 2 + k * h, values, counts[col], strict=True):
            if c:
                ax.text(v, yy, f" {int(c)}", va="center", fontsize=7)
    ax.set_yticks(y, [visible(labels[c]) + ("" if ok else " *") for c, ok in
                      zip(counts["node"], counts["in_taxonomy"], strict=True)], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("share of the group linking the theme (%); numbers are participants")
    top = float(np.nanmax(counts[["users_percent", "developers_percent"]].to_numpy()))
    ax.set_xlim(0, max(top * 1.15, 10))
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    fig.suptitle(f"Themes linked by users and by developers ({CODEBOOK_FILE})", x=0.01, ha="left",
                 fontsize=11)
    if not counts["in_taxonomy"].all():
        fig.text(0.01, 0.005, f"* not in {TAXONOMY_FILE}: possibly a category added from "
                 "the interviews (Section IV.C)", fontsize=8, ha="left", va="bottom")
    fig.tight_layout()
    return fig


