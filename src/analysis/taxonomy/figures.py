"""Figures of the taxonomy stage: the three-level taxonomy (Fig. 2), theme shares per
project and per year, and the residuals of the type-mix tests.

All are drawn at page width (7 in) in the figure style of :mod:`analysis.core.figures`;
:func:`analysis.taxonomy.outputs.figures` says which data each figure of the stage draws,
and :func:`analysis.core.stage.write_outputs` saves them. Names from the data pass
through :func:`analysis.core.textsafe.visible` before they are drawn.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm, to_rgb
from matplotlib.patches import Rectangle

from analysis.core.figures import PAGE_WIDTH_IN, PALETTE, TYPE_COLOURS, apply_style
from analysis.core.textsafe import visible

ROW_IN = 0.15  # height of one sub-theme row of the tree, inches
THEME_GAP = 0.55  # gap between themes, in rows
TYPE_GAP = 1.3  # gap between types, in rows


def type_colour(name: str, i: int = 0) -> str:
    """The colour of an issue type in every figure (a palette colour for an unknown type)."""
    return TYPE_COLOURS.get(name, PALETTE[(i + 3) % len(PALETTE)])


def tint(colour: str, amount: float) -> tuple[float, float, float]:
    """``colour`` mixed with white (``amount`` = share of white)."""
    r, g, b = to_rgb(colour)
    return (r + (1 - r) * amount, g + (1 - g) * amount, b + (1 - b) * amount)


def tree_layout(subthemes: pd.DataFrame, type_order: list[str]) -> pd.DataFrame:
    """y position (in rows) of every sub-theme leaf, grouped by type and theme.

    ``subthemes`` is the stage's sub-theme table (sorted); leaves without details in the
    released files are still placed (the paper numbers them).
    """
    y = 0.0
    out = []
    for t_i, type_name in enumerate(type_order):
        block = subthemes[subthemes["type"] == type_name]
        if block.empty:
            continue
        if t_i:
            y += TYPE_GAP
        for th_i, (_, theme) in enumerate(block.groupby("theme_code", sort=False)):
            if th_i:
                y += THEME_GAP
            for _, leaf in theme.iterrows():
                out.append({**leaf.to_dict(), "y": y})
                y += 1.0
    return pd.DataFrame(out)


def tree_figure(subthemes: pd.DataFrame, themes: pd.DataFrame, type_order: list[str],
                title: str = "LLM-centric taxonomy of challenges in DL frameworks (Fig. 2)",
                ) -> plt.Figure:
    """The three-level taxonomy: issue type -> theme (with its issues in the final labels)
    -> sub-theme (with its details in the released files), one row per sub-theme.

    Sub-themes outside the paper's numbering are hatched and starred.
    """
    apply_style()
    leaves = tree_layout(subthemes, type_order)
    height_rows = float(leaves["y"].max()) + 1.0 if len(leaves) else 1.0
    fig = plt.figure(figsize=(PAGE_WIDTH_IN, ROW_IN * (height_rows + 5.4)))
    ax = fig.add_axes([0.0, 0.0, 1.0, 1.0])
    ax.set_xlim(0, 1)
    ax.set_ylim(height_rows + 2.4, -3.0)
    ax.axis("off")
    x_type, x_theme, x_issue, x_sub, x_det = 0.0, 0.042, 0.272, 0.388, 0.85
    w_type, w_issue, w_det = 0.036, 0.06, 0.12
    fs = 6.4
    max_issues = max(int(themes["issues"].max()), 1) if len(themes) else 1
    max_det = max(int(leaves["details"].max()), 1) if len(leaves) else 1
    heads = [(x_theme, "Theme"), (x_issue, "Issues"), (x_sub, "Sub-theme (paper's code)"),
             (x_det, "Details")]
    for x, text in heads:
        ax.text(x, -1.1, text, fontsize=6.8, fontweight="bold", va="center")
    ax.text(0, -2.4, title, fontsize=9.5, fontweight="bold", va="center")
    issue_by_code = dict(zip(themes["code"], themes["issues"], strict=True))
    for t_i, type_name in enumerate(type_order):
        block = leaves[leaves["type"] == type_name]
        if block.empty:
            continue
        colour = type_colour(type_name, t_i)
        y0, y1 = block["y"].min() - 0.45, block["y"].max() + 0.45
        ax.add_patch(Rectangle((x_type, y0), w_type, y1 - y0, color=colour, lw=0))
        n_themes = block["theme_code"].nunique()
        ax.text(x_type + w_type * 0.32, (y0 + y1) / 2, visible(type_name), rotation=90,
                ha="center", va="center", fontsize=6.8, color="white", fontweight="bold")
        ax.text(x_type + w_type * 0.72, (y0 + y1) / 2, f"{n_themes} themes, {len(block)} "
                "sub-themes", rotation=90, ha="center", va="center", fontsize=5.8,
                color="white")
        for code, theme in block.groupby("theme_code", sort=False):
            ty0, ty1 = theme["y"].min() - 0.42, theme["y"].max() + 0.42
            ax.add_patch(Rectangle((x_theme, ty0), x_sub - 0.01 - x_theme, ty1 - ty0,
                                   color=tint(colour, 0.84), lw=0))
            name = visible(theme["theme"].iloc[0])
            label = f"{visible(code)} {name}" if code else name
            lines = textwrap.wrap(label, 29)
            max_lines = max(1, int((ty1 - ty0 + 0.3) / 0.9))
            if len(lines) > max_lines:
                lines = textwrap.wrap(label, 29, max_lines=max_lines, placeholder="…")
            ax.text(x_theme + 0.006, (ty0 + ty1) / 2, "\n".join(lines), fontsize=fs,
                    va="center", ha="left", linespacing=1.05)
            n = int(issue_by_code.get(code, 0))
            ym = (ty0 + ty1) / 2
            ax.add_patch(Rectangle((x_issue, ym - 0.32), w_issue * n / max_issues, 0.64,
                                   color=colour, lw=0))
            ax.text(x_issue + w_issue * n / max_issues + 0.004, ym, f"{n:,}", fontsize=fs,
                    va="center", color="black" if n else "#B00000")
        for _, leaf in block.iterrows():
            star = "" if leaf["in_paper"] else " *"
            code = visible(leaf["code"]) or "?"
            ax.text(x_sub, leaf["y"], f"{code}  {visible(leaf['name'])}{star}", fontsize=fs,
                    va="center", ha="left",
                    style="normal" if leaf["in_paper"] else "italic")
            d = int(leaf["details"])
            ax.add_patch(Rectangle((x_det, leaf["y"] - 0.36), w_det * d / max_det, 0.72,
                                   facecolor=tint(colour, 0.25) if leaf["in_paper"]
                                   else "white", edgecolor=colour, lw=0.5,
                                   hatch=None if leaf["in_paper"] else "/////"))
            ax.text(x_det + w_det * d / max_det + 0.004, leaf["y"], f"{d:,}", fontsize=fs,
                    va="center")
    notes = ("Issues: issues whose final label is the theme (0 in red: no issue). Details: "
             "items of the released detail files, split on every comma as the paper counts.")
    if (~leaves["in_paper"]).any():
        notes += "\n* In the released detail files but not in the paper's numbering."
    ax.text(0, height_rows + 0.2, notes, fontsize=6.2, va="top", color="#333333")
    return fig


def share_heatmap(counts: pd.DataFrame, row_labels: dict[str, str],
                  column_labels: dict[str, str], row_types: dict[str, str],
                  title: str, xlabel: str = "") -> plt.Figure:
    """Column-normalised shares (percent) of ``counts`` as an annotated heatmap.

    Rows are themes (labelled ``row_labels``), columns projects or years; each column
    sums to 100 %. Thin lines separate the issue types (``row_types``: row -> type).
    """
    apply_style()
    totals = counts.sum(axis=0)
    shares = 100.0 * counts / totals.replace(0, np.nan)
    n_rows, n_cols = shares.shape
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.24 * n_rows + 1.9))
    data = shares.to_numpy(dtype="float64")
    vmax = np.nanmax(data) if np.isfinite(data).any() else 1.0
    image = ax.imshow(np.nan_to_num(data), cmap="Blues", vmin=0, vmax=vmax, aspect="auto")
    for i in range(n_rows):
        for j in range(n_cols):
            v = data[i, j]
            if np.isnan(v):
                continue
            text = "0" if counts.iat[i, j] == 0 else ("<0.1" if v < 0.05 else f"{v:.1f}")
            ax.text(j, i, text, ha="center", va="center", fontsize=5.8,
                    color="white" if v > 0.6 * vmax else "#222222")
    ax.set_yticks(range(n_rows), [visible(row_labels.get(r, r)) for r in counts.index],
                  fontsize=6.5)
    ax.set_xticks(range(n_cols), [f"{visible(column_labels.get(c, c))} ({int(totals[c]):,})"
                                  for c in counts.columns], fontsize=6.3, rotation=45,
                  ha="right", rotation_mode="anchor")
    types = [row_types.get(r, "") for r in counts.index]
    for i in range(1, n_rows):
        if types[i] != types[i - 1]:
            ax.axhline(i - 0.5, color="black", lw=0.8)
    ax.tick_params(length=0)
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel(xlabel, fontsize=6.5)
    ax.set_title(title, loc="left", fontsize=9.5)
    bar = fig.colorbar(image, ax=ax, fraction=0.025, pad=0.01)
    bar.ax.tick_params(labelsize=6)
    bar.set_label("% of the column's issues", fontsize=6.5)
    fig.tight_layout()
    return fig


def year_shares_figure(counts: pd.DataFrame, row_labels: dict[str, str],
                       row_types: dict[str, str], title: str) -> plt.Figure:
    """Theme shares per year as a dot plot: one row per theme, one dot per year.

    Each year's shares sum to 100 %; a line joins the years of a theme, so a theme that
    grows or shrinks over the years stands out.
    """
    apply_style()
    totals = counts.sum(axis=0)
    shares = 100.0 * counts / totals.replace(0, np.nan)
    n_rows = len(shares)
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.22 * n_rows + 1.5))
    blues = plt.get_cmap("Blues")
    years = list(shares.columns)
    colours = [blues(0.4 + 0.55 * i / max(len(years) - 1, 1)) for i in range(len(years))]
    ys = np.arange(n_rows)
    for i, row in enumerate(shares.index):
        vals = shares.loc[row].to_numpy(dtype="float64")
        ax.plot(vals, [i] * len(vals), color="#BBBBBB", lw=1.2, zorder=1)
    markers = ["o", "s", "D", "^", "v", "P"]
    for j, year in enumerate(years):
        ax.scatter(shares[year], ys, s=16, color=colours[j], zorder=2,
                   marker=markers[j % len(markers)],
                   label=f"{visible(year)} (n={int(totals[year]):,})", edgecolor="black",
                   lw=0.3)
    ax.set_yticks(ys, [visible(row_labels.get(r, r)) for r in shares.index], fontsize=6.5)
    ax.invert_yaxis()
    types = [row_types.get(r, "") for r in shares.index]
    for i in range(1, n_rows):
        if types[i] != types[i - 1]:
            ax.axhline(i - 0.5, color="#888888", lw=0.6, ls=":")
    ax.set_xlabel("% of the year's issues", fontsize=7)
    ax.tick_params(axis="x", labelsize=6.5)
    ax.grid(axis="x", color="#EEEEEE", lw=0.6)
    ax.set_axisbelow(True)
    ax.legend(frameon=False, fontsize=6.5, loc="lower right")
    ax.set_title(title, loc="left", fontsize=9.5)
    fig.tight_layout()
    return fig


def residuals_figure(panels: list[tuple[pd.DataFrame, dict, str]], title: str,
                     clip: float = 20.0) -> plt.Figure:
    """Standardized residuals of chi-square tests as diverging heatmaps, side by side.

    ``panels``: (residuals table, column labels, panel title). Colours are clipped at
    ±``clip`` so a few huge cells do not wash out the rest; the numbers are exact.
    """
    apply_style()
    widths = [max(r.shape[1], 2) + 1.5 for r, _, _ in panels]
    fig, axes = plt.subplots(1, len(panels), figsize=(PAGE_WIDTH_IN, 2.6),
                             gridspec_kw={"width_ratios": widths}, squeeze=False,
                             layout="constrained")
    norm = TwoSlopeNorm(vmin=-clip, vcenter=0, vmax=clip)
    image = None
    for ax, (resid, col_labels, panel_title) in zip(axes[0], panels, strict=True):
        data = resid.to_numpy(dtype="float64")
        image = ax.imshow(np.clip(np.nan_to_num(data), -clip, clip), cmap="RdBu_r",
                          norm=norm, aspect="auto")
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                ax.text(j, i, f"{data[i, j]:.1f}", ha="center", va="center", fontsize=5.8,
                        color="white" if abs(data[i, j]) > 0.6 * clip else "#222222")
        ax.set_yticks(range(data.shape[0]), [visible(r) for r in resid.index], fontsize=6.5)
        ax.set_xticks(range(data.shape[1]), [visible(col_labels.get(c, c))
                                             for c in resid.columns],
                      fontsize=6.3, rotation=40, ha="right", rotation_mode="anchor")
        ax.tick_params(length=0)
        for side in ("top", "right", "left", "bottom"):
            ax.spines[side].set_visible(False)
        ax.set_title(panel_title, loc="left", fontsize=7.5)
    if image is not None:
        bar = fig.colorbar(image, ax=list(axes[0]), fraction=0.02, pad=0.01)
        bar.ax.tick_params(labelsize=6)
        bar.set_label(f"standardized residual (clipped at ±{clip:g})", fontsize=6.5)
    fig.suptitle(title, x=0.01, ha="left", fontsize=9.5)
    return fig
