"""Figures of the agreement stage, drawn from its tables (in the figure style of
analysis.core.figures)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from analysis.core.figures import PAGE_WIDTH_IN, PALETTE, TYPE_COLOURS, apply_style, wrap_label
from analysis.core.textsafe import visible

STAT_STYLE = {  # statistic -> (label, colour, marker)
    "fleiss_kappa": ("Fleiss' κ (complete rows)", PALETTE[0], "o"),
    "krippendorff_alpha": ("Krippendorff's α", PALETTE[1], "s"),
    "gwet_ac1": ("Gwet's AC1", PALETTE[2], "^"),
}
THEME_LABEL_CHARS = 40  # a longer theme label wraps (at 8 pt, 40 characters are ~2.5 in)


def _errorbar(ax, x, y, low, high, **kw) -> None:
    x, low, high = (np.asarray(v, dtype=float) for v in (x, low, high))
    err = np.vstack([x - low, high - x])
    err = np.where(np.isfinite(err), err, 0)
    ax.errorbar(x, y, xerr=err, linestyle="none", capsize=2, elinewidth=1, **kw)


def kappas_figure(statistics: pd.DataFrame, paper: dict[str, float],
                  confidence_level: float = 0.95) -> plt.Figure:
    """Forest plot: the three coefficients per issue type and overall, bootstrap intervals."""
    apply_style()
    s = pd.concat([statistics[statistics["grouping"] == "type"],
                   statistics[statistics["grouping"] == "all"]])
    groups = list(dict.fromkeys(s["group"]))
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.75 * len(groups) + 1.3))
    offsets = {"fleiss_kappa": -0.22, "krippendorff_alpha": 0.0, "gwet_ac1": 0.22}
    for name, (label, colour, marker) in STAT_STYLE.items():
        sel = s[s["statistic"] == name].set_index("group").reindex(groups)
        y = np.arange(len(groups)) + offsets[name]
        _errorbar(ax, sel["value"], y, sel["boot_low"], sel["boot_high"], color=colour,
                  marker=marker, markersize=5, label=label)
    marked = [(i, paper[g.lower()]) for i, g in enumerate(groups) if g.lower() in paper]
    if marked:
        ax.plot([v for _, v in marked], [i + offsets["fleiss_kappa"] for i, _ in marked],
                marker="D", color="black", markerfacecolor="none", markersize=9,
                linestyle="none", label="paper's κ")
    ax.set_yticks(np.arange(len(groups)),
                  [f"{visible(g)}\n({int(n):,} issues)" for g, n in
                   zip(groups, s.drop_duplicates("group")["issues"], strict=True)])
    ax.invert_yaxis()
    ax.set_xlabel(f"coefficient ({confidence_level:.0%} bootstrap interval)")
    ax.grid(axis="x", color="0.9")
    ax.legend(frameon=False, fontsize=8, loc="upper center", ncol=4,
              bbox_to_anchor=(0.5, -0.18 if len(groups) > 2 else -0.3))
    ax.set_title("Inter-annotator agreement by issue type (final label)", loc="left")
    fig.tight_layout()
    return fig


def pairwise_figure(pairwise: pd.DataFrame, versus_final: pd.DataFrame,
                    annotators: list[str]) -> plt.Figure:
    """Heatmap of Cohen's kappa: annotator x annotator, plus a final-label column. The
    annotators are numbered on axes titled "annotator" (a short "A1" reads like the
    theme code "A.1")."""
    apply_style()
    short = [visible(a).replace("annotator_", "") for a in annotators]
    k = len(annotators)
    grid = np.full((k, k + 1), np.nan)
    pos = {a: i for i, a in enumerate(annotators)}
    for r in pairwise.itertuples(index=False):
        grid[pos[r.annotator_a], pos[r.annotator_b]] = np.nan if r.kappa is None else r.kappa
    for r in versus_final.itertuples(index=False):
        grid[pos[r.annotator], k] = np.nan if r.kappa is None else r.kappa
    size = min(PAGE_WIDTH_IN, 0.62 * (k + 1) + 1.8)
    fig, ax = plt.subplots(figsize=(size, 0.55 * k + 1.4))
    finite = grid[np.isfinite(grid)]
    vmin = float(np.floor(finite.min() * 20) / 20) if finite.size else 0.0
    im = ax.imshow(grid, cmap="Blues", vmin=vmin, vmax=1.0, aspect="auto")
    for i in range(k):
        for j in range(k + 1):
            if np.isfinite(grid[i, j]):
                dark = grid[i, j] > vmin + 0.6 * (1 - vmin)
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
    ax.axvline(k - 0.5, color="white", linewidth=3)
    ax.set_xticks(range(k + 1), [*short, "final"])
    ax.set_yticks(range(k), short)
    ax.set_xlabel("annotator")
    ax.set_ylabel("annotator")
    ax.tick_params(length=0)
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)
    fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02, label="Cohen's κ")
    ax.set_title(f"Cohen's kappa between annotators 1–{k} and with the final label",
                 loc="left", fontsize=10)
    fig.tight_layout()
    return fig


def theme_label(code: object, name: object, width: int = THEME_LABEL_CHARS) -> str:
    """``"C.7  Interface Design and\nConfiguration Management"``: a theme's code and full
    name, wrapped at ``width`` characters so that a long name is never cut."""
    return wrap_label(f"{visible(code)}  {visible(name)}", width)


def categories_figure(categories: pd.DataFrame, confidence_level: float = 0.95) -> plt.Figure:
    """Per-theme kappa with bootstrap intervals, one row per theme, coloured by type.

    Theme names are shown in full, wrapped over two lines (or more) when long; rows grow
    with the longest label so that wrapped lines never touch.
    """
    apply_style()
    c = categories[categories["ratings"] > 0].reset_index(drop=True)
    labels = [theme_label(r.code, r.name) for r in c.itertuples(index=False)]
    lines = max((label.count("\n") + 1 for label in labels), default=1)
    row_in = max(0.26, 0.17 * lines)
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, row_in * len(c) + 1.3))
    y = np.arange(len(c))
    for t, sel in c.groupby("type", sort=False):
        colour = TYPE_COLOURS.get(t, PALETTE[7])
        defined = sel[sel["kappa"].notna()]
        _errorbar(ax, defined["kappa"], defined.index.to_numpy(), defined["boot_low"],
                  defined["boot_high"], color=colour, marker="o", markersize=4,
                  label=visible(t))
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"Fleiss' per-category κ ({confidence_level:.0%} bootstrap interval)")
    ax.grid(axis="x", color="0.9")
    ax.legend(frameon=False, fontsize=8, loc="lower left", bbox_to_anchor=(0.0, 1.0),
              ncol=3, borderaxespad=0.2)
    fig.suptitle("Agreement per theme", x=0.01, ha="left", fontsize=11)
    fig.tight_layout()
    return fig


def groups_figure(statistics: pd.DataFrame, names: dict[str, str]) -> plt.Figure:
    """Fleiss' kappa (all themes) per project and per year, bootstrap intervals.

    Both panels share one x-range, so a difference between years looks as large as the
    same difference between projects.
    """
    apply_style()
    s = statistics[statistics["statistic"] == "fleiss_kappa"]
    proj = s[s["grouping"] == "project"].reset_index(drop=True)
    year = s[s["grouping"] == "year"].reset_index(drop=True)
    fig, axes = plt.subplots(1, 2, figsize=(PAGE_WIDTH_IN, 0.3 * max(len(proj), 4) + 1.4),
                             sharex=True)  # same range and width: same scale
    for ax, sel, title, label in (
            (axes[0], proj, "Per project", lambda g: visible(names.get(g, g))),
            (axes[1], year, "Per year", visible)):
        y = np.arange(len(sel))
        _errorbar(ax, sel["value"], y, sel["boot_low"], sel["boot_high"], color=PALETTE[0],
                  marker="o", markersize=4)
        ax.set_yticks(y, [f"{label(g)} ({int(n):,})" for g, n in
                          zip(sel["group"], sel["issues"], strict=True)], fontsize=8)
        ax.invert_yaxis()
        ax.grid(axis="x", color="0.9")
        ax.set_title(title, loc="left")
        ax.set_xlabel("Fleiss' κ, all themes, complete rows")
    fig.suptitle("Agreement per project and per year (issues in brackets)", x=0.01,
                 ha="left", fontsize=11)
    fig.tight_layout()
    return fig


def audit_final_figure(final_by_project: pd.DataFrame, names: dict[str, str]) -> plt.Figure:
    """Heatmap: share of each annotator's labels equal to the final label, per project."""
    apply_style()
    table = final_by_project.pivot(index="stratum", columns="annotator", values="share")
    order = list(dict.fromkeys(final_by_project["stratum"]))
    table = table.reindex(order)[list(dict.fromkeys(final_by_project["annotator"]))]
    grid = table.to_numpy(dtype=float)
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.3 * len(order) + 1.3))
    im = ax.imshow(grid, cmap="Blues", vmin=np.nanmin(grid) - 0.05, vmax=1.0, aspect="auto")
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            v = grid[i, j]
            if np.isfinite(v):
                text = "1" if v == 1.0 else f"{v:.3f}".lstrip("0")
                ax.text(j, i, text, ha="center", va="center", fontsize=7.5,
                        color="white" if v > 0.93 else "black",
                        fontweight="bold" if v == 1.0 else "normal")
    ax.axhline(0.5, color="white", linewidth=3)
    ax.set_xticks(range(grid.shape[1]),
                  [visible(c).replace("annotator_", "annotator ") for c in table.columns],
                  fontsize=8)
    ax.set_yticks(range(len(order)), ["all projects" if s == "all"
                                      else visible(names.get(s, s)) for s in order],
                  fontsize=8)
    ax.tick_params(length=0)
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label="share equal to final label")
    ax.set_title("Share of each annotator's labels that equal the final label", loc="left",
                 fontsize=10)
    fig.tight_layout()
    return fig


def count_label(value: float) -> str:
    """A bar's value as printed on the figure: thousands separators from 10 up, two
    significant digits below (an expected count of 2.3 issues), ``"0"`` for none."""
    if value == 0:
        return "0"
    return f"{value:,.0f}" if abs(value) >= 10 else f"{value:.2g}"


def log_range(values, headroom: float = 0.22) -> tuple[float, float]:
    """Limits of a log count axis: from the power of ten at or below the smallest
    positive value to above the largest, leaving ``headroom`` (a share of the axis
    height) free for labels over the tallest bar."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if not v.size:
        return 0.5, 10.0
    low = 10.0 ** np.floor(np.log10(v.min()))
    decades = max(np.log10(v.max() / low), 1.0)
    return float(low), float(low * 10 ** (decades / (1 - headroom)))


def audit_dissent_figure(dissent: pd.DataFrame) -> plt.Figure:
    """Bars: issues by number of dissenters, observed and expected under independence.

    The count axis is logarithmic, so that the few issues expected with four or more
    dissenters are as visible as the thousands with none; every bar carries its value,
    set vertically over the bar so that no label reaches into a neighbour. A count of
    zero has no bar and its "0" sits on the axis.
    """
    apply_style()
    d = dissent
    last = int(max(d.loc[d["observed"] > 0, "dissenters"].max(),
                   d.loc[d["expected_by_project"] >= 0.5, "dissenters"].max()))
    d = d[d["dissenters"] <= last]
    x = d["dissenters"].to_numpy()
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 3.4))
    series = [("observed", "observed", PALETTE[0]),
              ("expected_by_project", "expected: independent errors (rates per project)",
               PALETTE[1]),
              ("expected_by_project_majority",
               "expected: same, given the final label is a majority", PALETTE[2])]
    width = 0.27
    ax.set_yscale("log")
    low, high = log_range(d[[col for col, _, _ in series]].to_numpy().ravel())
    ax.set_ylim(low, high)
    for i, (col, label, colour) in enumerate(series):
        xs = x + (i - 1) * width
        ax.bar(xs, d[col], width=width, color=colour, label=label)
        for xi, v in zip(xs, d[col], strict=True):
            ax.annotate(count_label(v), (xi, max(v, low)), xytext=(0, 2),
                        textcoords="offset points", rotation=90, ha="center", va="bottom",
                        fontsize=6.5)
    ax.set_xticks(x)
    ax.set_xlabel("annotators whose label differs from the final label")
    ax.set_ylabel("issues (log scale)")
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1
                                               else f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.legend(frameon=False, fontsize=8, loc="upper right")
    ax.set_title("Dissent per issue: observed vs. independent annotators", loc="left")
    fig.tight_layout()
    return fig


def audit_targets_figure(targets: pd.DataFrame, types: dict[str, str]) -> plt.Figure:
    """Heatmap of dissenting labels: final theme (rows) x label given (columns), row shares
    in percent (cells and colour bar alike)."""
    apply_style()
    m = targets.set_index("final_label")
    m = m.loc[m.sum(axis=1) > 0]
    percent = 100 * m.div(m.sum(axis=1), axis=0).to_numpy(dtype=float)
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.3 * len(m) + 1.6))
    im = ax.imshow(percent, cmap="Blues", vmin=0, vmax=max(50.0, float(np.nanmax(percent))),
                   aspect="auto")
    for i in range(percent.shape[0]):
        for j in range(percent.shape[1]):
            if percent[i, j] >= 0.5:
                ax.text(j, i, f"{percent[i, j]:.0f}", ha="center", va="center",
                        fontsize=6.5, color="white" if percent[i, j] > 30 else "black")
    ax.set_xticks(range(m.shape[1]), [visible(c) for c in m.columns], fontsize=7,
                  rotation=90)
    ax.set_yticks(range(m.shape[0]), [visible(c) for c in m.index], fontsize=7)
    # type boundaries
    col_types = [types.get(c, "") for c in m.columns]
    for j in range(1, len(col_types)):
        if col_types[j] != col_types[j - 1]:
            ax.axvline(j - 0.5, color="0.3", linewidth=0.8)
    row_types = [types.get(c, "") for c in m.index]
    for i in range(1, len(row_types)):
        if row_types[i] != row_types[i - 1]:
            ax.axhline(i - 0.5, color="0.3", linewidth=0.8)
    ax.set_xlabel("label given by a dissenting annotator")
    ax.set_ylabel("final label")
    ax.tick_params(length=0)
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label="% of the row's dissent",
                 format=FuncFormatter(lambda v, _: f"{v:.0f}"))
    ax.set_title("Where dissenting labels go (percent of each row)", loc="left", fontsize=10)
    fig.tight_layout()
    return fig
