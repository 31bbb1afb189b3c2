"""The paper's published numbers, and the scorecard that sets ours beside them.

``data/claims.yaml`` is the only place where the paper's numbers live. Each claim has an
``id`` (``table1.pytorch.2023``), the value exactly as printed in the paper (``"1,234"``,
``"12.34%"``, ``"0.512"``), where it is printed, and optionally ``relation`` (``eq``, or
``gt``/``ge`` for "over N" statements), ``kind: count`` for a number of things (people,
parts) that is either right or wrong, and optionally ``reproducible: false`` with a
``reason``.

Stages write their reproduced values keyed by claim id (``data/reproduced/<stage>.json``);
:func:`scorecard` compares the two and gives each claim a status:

- ``exact``: equal at the paper's printed precision (our value, rounded half-up to as many
  decimals as the paper prints, equals the printed value); for ``gt``/``ge``, satisfied;
- ``rounding``: off by at most one unit in the paper's last printed digit (never for a
  ``kind: count`` claim: five people are not four after rounding);
- ``differs``: anything else (both values are shown);
- ``not_reproducible``: the released data cannot give this number (the reason is shown).
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

import pandas as pd

from analysis.core.config import CLAIMS_FILE, load_yaml
from analysis.core.errors import InputError

STATUSES = ("exact", "rounding", "differs", "not_reproducible")
RELATIONS = ("eq", "gt", "ge")
KINDS = ("number", "count")
SCORECARD_COLUMNS = ["claim_id", "description", "paper_value", "reproduced_value", "status",
                     "note", "source"]


def parse_printed(value: object) -> tuple[Decimal, int, bool]:
    """Parse a number as printed in the paper: (value, decimals printed, is_percent)."""
    text = str(value).strip()
    percent = text.endswith("%")
    text = text.rstrip("%").replace(",", "").strip()
    if not re.fullmatch(r"[-+]?\d+(\.\d+)?", text):
        raise ValueError(f"not a printed number: {value!r}")
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return Decimal(text), decimals, percent


def round_half_up(value: float, decimals: int) -> Decimal:
    """Round like a paper does (half away from zero), without binary-float surprises."""
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-decimals),
                                                 rounding=ROUND_HALF_UP)


def load_claims(path: str | Path = CLAIMS_FILE) -> pd.DataFrame:
    """Read and check the claims file; one row per claim."""
    data = load_yaml(path) or {}
    rows = []
    for i, claim in enumerate(data.get("claims", []), 1):
        cid = claim.get("id")
        if not cid or "value" not in claim:
            raise InputError(f"claim #{i} needs an id and a value", file=str(path),
                             fix="add the missing key")
        relation = claim.get("relation", "eq")
        if relation not in RELATIONS:
            raise InputError(f"claim {cid}: relation must be one of {RELATIONS}",
                             file=str(path), fix="fix the relation")
        kind = claim.get("kind", "number")
        if kind not in KINDS:
            raise InputError(f"claim {cid}: kind must be one of {KINDS}", file=str(path),
                             fix="fix the kind")
        try:
            parse_printed(claim["value"])
        except ValueError as exc:
            raise InputError(f"claim {cid}: {exc}", file=str(path),
                             fix="write the value as printed, e.g. '1,234' or '12.34%'") from exc
        rows.append({
            "claim_id": str(cid),
            "description": str(claim.get("description", "")),
            "paper_value": str(claim["value"]),
            "source": str(claim.get("source", "")),
            "relation": relation,
            "kind": kind,
            "reproducible": bool(claim.get("reproducible", True)),
            "reason": str(claim.get("reason", "") or ""),
            "group": str(cid).split(".", 1)[0],
        })
    frame = pd.DataFrame(rows)
    dup = frame["claim_id"][frame["claim_id"].duplicated()].tolist() if rows else []
    if dup:
        raise InputError(f"duplicate claim ids {dup}", file=str(path), fix="make ids unique")
    return frame


def judge(paper_value: str, reproduced: float | None, relation: str = "eq",
          kind: str = "number") -> str:
    """The status of one reproduced value against one printed paper value."""
    if reproduced is None or (isinstance(reproduced, float) and reproduced != reproduced):
        return "not_reproducible"
    paper, decimals, _ = parse_printed(paper_value)
    ours = Decimal(repr(float(reproduced)))
    if relation == "gt":
        return "exact" if ours > paper else "differs"
    if relation == "ge":
        return "exact" if ours >= paper else "differs"
    try:
        if round_half_up(float(reproduced), decimals) == paper:
            return "exact"
    except InvalidOperation:
        return "differs"
    if kind != "count" and abs(ours - paper) <= Decimal(1).scaleb(-decimals):
        return "rounding"
    return "differs"


def format_value(value: float | None, paper_value: str) -> str:
    """Show a reproduced value with the paper's precision plus two more digits."""
    if value is None:
        return ""
    _, decimals, percent = parse_printed(paper_value)
    if float(value).is_integer() and decimals == 0:
        text = f"{int(value):,}"
    else:
        text = f"{float(value):,.{decimals + 2}f}"
    return text + ("%" if percent else "")


def scorecard(claims: pd.DataFrame, reproduced: dict[str, dict]) -> pd.DataFrame:
    """Compare every claim with its reproduced value (``{"value": x, "note": "..."}``)."""
    rows = []
    for claim in claims.itertuples(index=False):
        entry = reproduced.get(claim.claim_id) or {}
        value = entry.get("value")
        note = entry.get("note", "")
        if not claim.reproducible:
            status = "not_reproducible"
            note = "; ".join(x for x in (claim.reason, note) if x)
        elif claim.claim_id not in reproduced:
            status = "not_reproducible"
            note = note or "no stage of the pipeline produced this value"
        else:
            status = judge(claim.paper_value, value, claim.relation,
                           getattr(claim, "kind", "number"))
        rows.append({
            "claim_id": claim.claim_id,
            "description": claim.description,
            "paper_value": claim.paper_value,
            "reproduced_value": format_value(value, claim.paper_value),
            "status": status,
            "note": note,
            "source": claim.source,
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
