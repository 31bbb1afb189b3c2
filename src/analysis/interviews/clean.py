"""The interview files cleaned together, with the quality report that accounts for them.

The codebook and the background sheet are cleaned separately
(:mod:`~analysis.interviews.codebook`, :mod:`~analysis.interviews.background`) and never
joined: they share no participant key, and their row orders do not line up (the codebook
calls five users *Beginner*, the sheet lists one user under one year). Their group sizes
are compared instead. The guideline becomes safe Markdown
(:func:`~analysis.interviews.markup.guideline_markdown`). Every anomaly of the three files,
and the row accounting of the first two, go into one quality report
(:func:`analysis.core.quality.quality_report`, rules in
:data:`~analysis.interviews.rules.RULES`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.core.dump import Quirk
from analysis.core.quality import Anomaly, make_anomaly, quality_report, quirk_anomaly
from analysis.core.taxonomy import Taxonomy
from analysis.interviews.background import clean_sheet
from analysis.interviews.codebook import clean_codebook, node_sort_key
from analysis.interviews.markup import guideline_markdown
from analysis.interviews.params import InterviewsParams
from analysis.interviews.read import InterviewFiles
from analysis.interviews.rules import PRIVATE_COLUMNS, RULES, TYPES


@dataclass
class InterviewData:
    """The cleaned interview files and their quality report."""

    background: pd.DataFrame  # one row per participant of the background sheet
    codebook: pd.DataFrame  # one row per participant of the codebook
    nodes: pd.DataFrame  # one row per (participant, linked node)
    rejected: pd.DataFrame  # rows and node links set aside, with the reason
    quality: dict
    guideline_md: str = ""  # the guideline as safe Markdown (report material)


def clean_interviews(files: InterviewFiles, taxonomy: Taxonomy, params: InterviewsParams
                     ) -> InterviewData:
    """Clean the codebook, the background sheet and (if read) the guideline; build the
    quality report. ``params`` is the params.yaml section ``interviews``."""
    cb_rel, bg_rel = files.codebook.name, files.background.name
    anomalies = quirk_anomalies(files.codebook.quirks)
    codebook, nodes, cb_anoms, cb_rejected, cb_acc = clean_codebook(
        files.codebook.text, cb_rel, taxonomy, params.groups)
    background, bg_anoms, bg_rejected, bg_acc = clean_sheet(files.background, params)
    anomalies += cb_anoms + bg_anoms
    anomalies += compare_files(codebook, background, cb_rel, bg_rel)
    guide_md = ""
    if files.guideline is not None:
        anomalies += quirk_anomalies(files.guideline.quirks)
        guide_md, g_anoms = guideline_markdown(files.guideline.text, files.guideline.name)
        anomalies += g_anoms
    rejected = pd.DataFrame(bg_rejected + cb_rejected,
                            columns=["file", "line", "column", "value", "reason"])
    rejected = rejected.sort_values(["file", "line"], kind="mergesort").reset_index(drop=True)
    unknown = sorted(set(nodes.loc[~nodes["in_taxonomy"], "node"]), key=node_sort_key)
    summary = {
        "participants_background": len(background),
        "participants_codebook": len(codebook),
        "by_type_background": type_counts(background),
        "by_type_codebook": type_counts(codebook),
        "node_links": len(nodes),
        "nodes_not_in_taxonomy": unknown,
        "private_columns": list(PRIVATE_COLUMNS),
        "joined": False,
    }
    quality = quality_report(anomalies, RULES, [*cb_acc, bg_acc], summary)
    return InterviewData(background, codebook, nodes, rejected, quality, guide_md)


def quirk_anomalies(quirks: list[Quirk]) -> list[Anomaly]:
    """The decoding quirks of a text file (BOM, line endings) as anomalies; the stage has
    no rule for the others (an empty file is refused when read)."""
    return [quirk_anomaly(RULES, q) for q in quirks if q.kind in RULES]


def type_counts(frame: pd.DataFrame) -> dict[str, int]:
    """Participants per type (a participant id listed twice counts once)."""
    if "participant" in frame:
        frame = frame.drop_duplicates("participant")
    counts = frame["type"].value_counts()
    return {t: int(counts[t]) for t in sorted(counts.index, key=lambda t: (
        TYPES.index(t) if t in TYPES else len(TYPES), t))}


def compare_files(codebook: pd.DataFrame, background: pd.DataFrame, cb_rel: str,
                  bg_rel: str) -> list[Anomaly]:
    """Cross-file checks: there is no shared key; group sizes should agree."""
    out = [make_anomaly(RULES, "no_shared_key", bg_rel, f"{bg_rel} has no participant id; "
                        f"not joined with {cb_rel}")]
    cb, bg = type_counts(codebook), type_counts(background)
    for t in sorted(set(cb) | set(bg)):
        if cb.get(t, 0) != bg.get(t, 0):
            out.append(make_anomaly(RULES, "group_size_mismatch", bg_rel,
                                    f"{t}: {bg.get(t, 0)} in {bg_rel}, {cb.get(t, 0)} in "
                                    f"{cb_rel}", value=t))
    return out
