"""The compare stage's figures: issues per project and kappa per type, baseline vs current.

Project and type names and the baseline's label come from the data or the user: they are
drawn as visible text (:mod:`analysis.core.textsafe`), never as mathtext.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.core.figures import PAGE_WIDTH_IN, apply_style
from analysis.core.textsafe import visible


def counts_figure(projects: pd.DataFrame, label: str) -> plt.Figure:
    """Issues per project: baseline vs current bars, new and removed projects marked."""
    apply_style()
    frame = projects.iloc[::-1].reset_index(drop=True)
    y = np.arange(len(frame))
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.36 * len(frame) + 1.3))
    ax.barh(y + 0.2, frame["baseline"], height=0.38, color="#BBBBBB", label=f"baseline "
            f"({visible(label)})")
    ax.barh(y - 0.2, frame["current"], height=0.38, color="#0072B2", label="current run")
    top = max(frame[["baseline", "current"]].max().max(), 1)
    for i, r in frame.iterrows():
        note = {"new": "  new", "removed": "  removed"}.get(r["status"], "")
        text = f" {int(r['current']):,}" + (f" ({int(r['change']):+,})" if r["change"] else "")
        ax.text(max(r["current"], r["baseline"]), i, text + note, va="center", fontsize=8)
    ax.set_yticks(y, [visible(n) for n in frame["name"]])
    ax.set_xlim(0, top * 1.35)
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{int(v):,}"))
    ax.set_xlabel("issues")
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    ax.set_title("Issues per project: baseline vs current run", loc="left")
    fig.tight_layout()
    return fig


def kappa_figure(kappa: pd.DataFrame, label: str) -> plt.Figure:
    """Kappa per type with its interval, baseline and current side by side."""
    apply_style()
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.5 * max(len(kappa), 1) + 1.3))
    y = np.arange(len(kappa))
    for offset, prefix, colour, name in ((0.15, "baseline", "#888888",
                                          f"baseline ({visible(label)})"),
                                         (-0.15, "current", "#0072B2", "current run")):
        vals = kappa[prefix].to_numpy(dtype=float)
        low = kappa[f"{prefix}_ci_low"].to_numpy(dtype=float)
        high = kappa[f"{prefix}_ci_high"].to_numpy(dtype=float)
        err = np.vstack([np.where(np.isfinite(low), vals - low, 0),
                         np.where(np.isfinite(high), high - vals, 0)])
        ok = np.isfinite(vals)
        ax.errorbar(vals[ok], (y + offset)[ok], xerr=err[:, ok], fmt="o", color=colour,
                    capsize=3, label=name)
        for v, yy in zip(vals[ok], (y + offset)[ok], strict=True):
            ax.annotate(f"{v:.3f}", (v, yy), xytext=(6, 4), textcoords="offset points",
                        fontsize=8, color=colour)
    ax.set_yticks(y, [visible(t) for t in kappa["type"]])
    ax.set_xlabel("Fleiss' kappa")
    ax.invert_yaxis()
    ax.legend(frameon=False, fontsize=8, loc="best")
    ax.set_title("Agreement per issue type: baseline vs current run", loc="left")
    fig.tight_layout()
    return fig
