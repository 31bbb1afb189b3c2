"""The paper's published numbers, and how a reproduced value is judged against one.

``data/claims.yaml`` is the only place where the paper's numbers live. Each claim has an
``id`` (``table1.pytorch.2023``), the value exactly as printed in the paper (``"1,234"``,
``"12.34%"``, ``"0.512"``), where it is printed, and optionally ``relation`` (``eq``, or
``gt``/``ge`` for "over N" statements), ``kind: count`` for a number of things (people,
parts) that is either right or wrong, and optionally ``reproducible: false`` with a
``reason``.

Stages write their reproduced values keyed by claim id (``data/reproduced/<stage>.json``);
the findings stage (:mod:`analysis.findings.scorecard`) sets them beside the claims, and
:func:`judge` gives each claim a status:

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

from analysis.core.config import load_yaml
from analysis.core.errors import InputError
from analysis.core.paths import PATHS

STATUSES = ("exact", "rounding", "differs", "not_reproducible")
RELATIONS = ("eq", "gt", "ge")
KINDS = ("number", "count")


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


def load_claims(path: str | Path = PATHS.claims_file) -> pd.DataFrame:
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
