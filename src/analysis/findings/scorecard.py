"""The scorecard: every claim of the paper beside the value this run reproduced.

Each stage writes the values it reproduced, keyed by claim id (``{"value": x, "note":
"..."}``); :func:`compute` merges them (a claim id produced by two stages is a bug) and
gives every claim of the claims file a status with :func:`~analysis.core.claims.judge`. A
claim the paper marks not reproducible, or that no stage produced, is ``not_reproducible``
with its reason. The cited examples of ``data/examples.yaml`` are claims too (``kind:
label``, :func:`~analysis.core.examples.example_claims`): the release's final label of the
report against the theme the paper cites it for.

The card keeps the paper's value as printed (``paper_value``) and the comparator of its
statement (``relation``: ``=``, ``>``, ``>=``, ``<``, ``<=``, ``~``), so that a page shows
">3" for "over three", never "3".
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.core.claims import STATUSES, format_value, judge

SCORECARD_COLUMNS = ["claim_id", "description", "paper_value", "reproduced_value", "status",
                     "note", "source", "relation"]


def scorecard(claims: pd.DataFrame, reproduced: dict[str, dict]) -> pd.DataFrame:
    """Compare every claim with its reproduced value (``{"value": x, "note": "..."}``)."""
    rows = []
    for claim in claims.itertuples(index=False):
        entry = reproduced.get(claim.claim_id) or {}
        kind = getattr(claim, "kind", "number")
        value = entry.get("value")
        note = entry.get("note", "")
        if not claim.reproducible:
            status = "not_reproducible"
            note = "; ".join(x for x in (claim.reason, note) if x)
        elif claim.claim_id not in reproduced:
            status = "not_reproducible"
            note = note or "no stage of the pipeline produced this value"
        else:
            status = judge(claim.paper_value, value, claim.relation, kind)
        rows.append({
            "claim_id": claim.claim_id,
            "description": claim.description,
            "paper_value": claim.paper_value,
            "reproduced_value": format_value(value, claim.paper_value, kind),
            "status": status,
            "note": note,
            "source": claim.source,
            "relation": claim.relation,
        })
    return pd.DataFrame(rows, columns=SCORECARD_COLUMNS)


def status_counts(card: pd.DataFrame) -> dict[str, int]:
    """How many claims have each status (every status listed, zeros included)."""
    counts = card["status"].value_counts()
    return {s: int(counts.get(s, 0)) for s in STATUSES}


def merge_reproduced(parts: list[dict[str, dict]]) -> dict[str, dict]:
    """Merge the per-stage reproduced-value files; a claim id produced twice is a bug."""
    merged: dict[str, dict] = {}
    for part in parts:
        clash = set(merged) & set(part)
        if clash:
            raise ValueError(f"claim ids produced by two stages: {sorted(clash)}")
        merged.update(part)
    return merged


@dataclass(frozen=True)
class Findings:
    """What the stage computes: the scorecard, one row per claim (:data:`SCORECARD_COLUMNS`)."""

    card: pd.DataFrame


def compute(claims: pd.DataFrame, reproduced: list[dict[str, dict]]) -> Findings:
    """The scorecard of ``claims`` (:func:`~analysis.core.claims.load_claims`) against the
    stages' reproduced values (one mapping per stage)."""
    return Findings(scorecard(claims, merge_reproduced(reproduced)))
