"""The includes of the evaluator's page (``evaluate.qmd``): the measured fresh clone step
by step, and what the release cannot reproduce, grouped by the reason the scorecard
gives."""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import count
from analysis.report.htmlsafe import esc, html_table, linkify, raw_html_block
from analysis.report.pages.base import FD, Include, P, rel

FRESH_CLONE = rel(P.fresh_clone)
BY_REASON = FD("not_reproducible_by_reason.csv")
# The steps of the measured fresh clone, in the order they ran, and what each is.
STEPS = {"clone": "git clone", "setup": "make venv: the environment from PyPI, caches empty",
         "quarto_setup": "finding Quarto (or trying to install it)",
         "fetch": "fetching the release into data/release/",
         "pipeline": "every stage (ingest to report; the report stage renders the site)",
         "render": "render --if-needed: checks the site shows the current outputs"}


def fresh_clone_steps(record: dict) -> str:
    """The measured fresh clone (``data/fresh_clone.json``), one row per step: wall and
    CPU seconds and the peak memory of the step's processes."""
    steps = record.get("steps") or {}
    rows = [{"step": name, "what it does": STEPS.get(name, ""),
             "seconds": f"{float(s.get('seconds', 0)):.1f}",
             "CPU seconds": f"{float(s.get('cpu_seconds', 0)):.1f}",
             "peak memory (MiB)": count(s.get("peak_memory_mib", 0))}
            for name, s in steps.items()]
    order = list(STEPS)
    rows.sort(key=lambda r: order.index(r["step"]) if r["step"] in order else len(order))
    shown = pd.DataFrame(rows, columns=["step", "what it does", "seconds", "CPU seconds",
                                        "peak memory (MiB)"])
    return raw_html_block(html_table(shown, numeric=["seconds", "CPU seconds",
                                                     "peak memory (MiB)"],
                                     classes="table compact cards fresh-clone"))


KINDS = {"printed": "The numbers the paper prints",
         "examples": "The example reports the paper cites"}


def not_reproduced(by_reason: pd.DataFrame) -> str:
    """Every claim the release cannot give, by kind and reason (the findings stage's
    ``not_reproducible_by_reason``): a reason, how many claims, which (the first six)."""
    if by_reason.empty:
        return raw_html_block("<p>Every claim of the paper can be recomputed.</p>")
    out = []
    for kind, heading in KINDS.items():
        mine = by_reason[by_reason["kind"] == kind]
        if mine.empty:
            continue
        items = "".join(
            f"<li><strong>{count(r.claims)}</strong>: {linkify(r.reason)} "
            f'<span class="claim-id">({esc(", ".join(str(r.claim_ids).split()[:6]))}'
            f"{', …' if int(r.claims) > 6 else ''})</span></li>"
            for r in mine.itertuples(index=False))
        out.append(f"<p><strong>{esc(heading)}</strong> "
                   f"({count(int(mine['claims'].sum()))})</p>"
                   f'<ul class="not-reproduced">{items}</ul>')
    return raw_html_block("".join(out))


INCLUDES: tuple[Include, ...] = (
    Include("evaluate/fresh_clone.md", (FRESH_CLONE,),
            lambda i: fresh_clone_steps(i.json(FRESH_CLONE))),
    Include("evaluate/not_reproduced.md", (BY_REASON,),
            lambda i: not_reproduced(i.csv(BY_REASON))),
)
