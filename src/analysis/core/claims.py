"""The paper's published numbers, and how a reproduced value is judged against one.

``data/claims.yaml`` is the only place where the paper's numbers live. Each claim has an
``id`` (``<stage>.<what>``), the value exactly as printed in the paper (``"1,234"``,
``"12.34%"``, ``"0.512"``), where it is printed, and optionally ``relation``: the
comparator of the paper's statement, written as a quoted symbol (YAML reads a bare ``>``
as the start of a folded text block):

- ``"="`` (the default) the paper states the value;
- ``">"``, ``">="``, ``"<"``, ``"<="`` the paper states a bound ("over three years" is
  ``">"`` with value ``"3"``);
- ``"~"`` the paper states an approximate value ("an average of two years"): within
  :data:`APPROX_TOLERANCE` of it (relative).

(``eq``, ``gt``, ``ge`` are the older spellings of ``=``, ``>``, ``>=`` and still read.)
``kind: count`` marks a number of things (people, parts) that is either right or wrong,
``kind: label`` a theme code (a cited example's theme, :mod:`analysis.core.examples`),
and ``reproducible: false`` with a ``reason`` a number the release cannot give.

Stages write their reproduced values keyed by claim id (``data/reproduced/<stage>.json``);
the stage that writes the scorecard sets them beside the claims, and
:func:`judge` gives each claim a status:

- ``exact``: equal at the paper's printed precision (our value, rounded half-up to as many
  decimals as the paper prints, equals the printed value); for a bound or ``~``, the
  statement holds; for a label, the same theme;
- ``rounding``: off by at most one unit in the paper's last printed digit (only for ``=``
  and never for a ``kind: count`` claim: five people are not four after rounding);
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
RELATIONS = ("=", ">", ">=", "<", "<=", "~")
# older spellings of the claims file, read as the symbols
RELATION_ALIASES = {"eq": "=", "gt": ">", "ge": ">="}
KINDS = ("number", "count", "label")
# The root causes a difference is grouped by (the scorecard's ``cause`` of a ``differs``
# claim), in the order the Overview lists them: the
# stage that reproduces a value names the cause in its entry (``{"value": ..., "note": ...,
# "cause": ...}``); a cited example's label is one by its kind; any other difference is
# ``other``.
CAUSES = {
    "subtheme_numbering": "the released detail files' sub-themes are not the paper's "
                          "numbering (a sub-theme the paper does not number)",
    "cited_example_label": "a report the paper cites as an example of a theme carries "
                           "another final label in the release",
    "interview_roles": "how the background sheet's roles and experience years are read "
                       "into the paper's groups of interviewees",
    "different_quantity": "the release records another quantity than the one the paper "
                          "states (the claim's note names it)",
    "other": "no common cause: see the claim's note",
}
# "~": how far (relative to the printed value) a value may be and still be "about" it
APPROX_TOLERANCE = Decimal("0.1")


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
        relation = parse_relation(claim.get("relation", "="))
        if relation is None:
            raise InputError(f"claim {cid}: relation {claim.get('relation')!r} is not one of "
                             f"{', '.join(RELATIONS)}", file=str(path), row=i,
                             fix='write it quoted, e.g. relation: ">"')
        kind = claim.get("kind", "number")
        if kind not in KINDS:
            raise InputError(f"claim {cid}: kind must be one of {KINDS}", file=str(path),
                             fix="fix the kind")
        try:
            if kind != "label":
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


def parse_relation(value: object) -> str | None:
    """The comparator of a claim (one of :data:`RELATIONS`), or None if ``value`` is not
    one; an older spelling (``gt``) gives its symbol."""
    text = str(value).strip() if value is not None else ""
    text = RELATION_ALIASES.get(text, text)
    return text if text in RELATIONS else None


BOUNDS = {">": Decimal.__gt__, ">=": Decimal.__ge__, "<": Decimal.__lt__,
          "<=": Decimal.__le__}


def judge(paper_value: str, reproduced: float | str | None, relation: str = "=",
          kind: str = "number") -> str:
    """The status of one reproduced value against one printed paper value (see the module
    docstring); ``relation`` is one of :data:`RELATIONS` (or an older spelling)."""
    if reproduced is None or (isinstance(reproduced, float) and reproduced != reproduced):
        return "not_reproducible"
    if kind == "label":
        return "exact" if str(reproduced).strip() == str(paper_value).strip() else "differs"
    relation = parse_relation(relation) or "="
    paper, decimals, _ = parse_printed(paper_value)
    ours = Decimal(repr(float(reproduced)))
    if relation in BOUNDS:
        return "exact" if BOUNDS[relation](ours, paper) else "differs"
    if relation == "~":
        return "exact" if abs(ours - paper) <= APPROX_TOLERANCE * abs(paper) else "differs"
    try:
        if round_half_up(float(reproduced), decimals) == paper:
            return "exact"
    except InvalidOperation:
        return "differs"
    if kind != "count" and abs(ours - paper) <= Decimal(1).scaleb(-decimals):
        return "rounding"
    return "differs"


def format_value(value: float | str | None, paper_value: str, kind: str = "number") -> str:
    """Show a reproduced value with the paper's precision plus two more digits (a label as
    it is); a whole number has thousands separators, except where the paper prints four
    digits without one (a year: ``2023``, not ``2,023``)."""
    if value is None:
        return ""
    if kind == "label":
        return str(value)
    _, decimals, percent = parse_printed(paper_value)
    if float(value).is_integer() and decimals == 0:
        # thousands grouped ("38,742"), except where the paper prints four digits
        # without a separator: a year ("2023")
        year = re.fullmatch(r"\d{4}", str(paper_value).strip()) is not None
        text = str(int(value)) if year else f"{int(value):,}"
    else:
        text = f"{float(value):,.{decimals + 2}f}"
    return text + ("%" if percent else "")


def paper_statement(paper_value: str, relation: str = "=") -> str:
    """The paper's value with its comparator, as a page shows it: ``3`` for ``=``,
    ``>3``, ``≥8``, ``~2``."""
    relation = parse_relation(relation) or "="
    return {"=": "", ">=": "≥", "<=": "≤"}.get(relation, relation) + str(paper_value)
