"""The scorecard: every claim of the paper beside the value this run reproduced.

The stage's computation. Its other module, :mod:`analysis.findings.challenges`, counts the
reports each challenge of Section V.A rests on, which :func:`compute` adds to the result.

Each stage writes the values it reproduced, keyed by claim id (``{"value": x, "note":
"..."}``); :func:`compute` merges them (a claim id produced by two stages is a bug) and
gives every claim of the claims file a status with :func:`~analysis.core.claims.judge`. A
claim the paper marks not reproducible, or that no stage produced, is ``not_reproducible``
with its reason, unless a stage computed it from data the dump does hold (``"computed":
true``: Table I's false-positive rate of a dump that records its exclusions), so the card
follows Table I. The cited examples of ``data/examples.yaml`` are claims too (``kind:
label``, :func:`~analysis.core.examples.example_claims`): the release's final label of the
report against the theme the paper cites it for.

The card keeps the paper's value as printed (``paper_value``) and the comparator of its
statement (``relation``: ``=``, ``>``, ``>=``, ``<``, ``<=``, ``~``), so that a page shows
">3" for "over three", never "3".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from analysis.core.claims import CAUSES, STATUSES, format_value, judge
from analysis.findings import challenges as ch

SCORECARD_COLUMNS = ["claim_id", "description", "paper_value", "reproduced_value", "status",
                     "note", "source", "relation", "cause"]

def cause_of(status: str, kind: str, entry: dict) -> str:
    """The root cause of a claim's difference (:data:`CAUSES`); empty unless it differs."""
    if status != "differs":
        return ""
    if kind == "label":
        return "cited_example_label"
    cause = str(entry.get("cause") or "")
    return cause if cause in CAUSES else "other"


def scorecard(claims: pd.DataFrame, reproduced: dict[str, dict]) -> pd.DataFrame:
    """Compare every claim with its reproduced value (``{"value": x, "note": "..."}``)."""
    rows = []
    for claim in claims.itertuples(index=False):
        entry = reproduced.get(claim.claim_id) or {}
        kind = getattr(claim, "kind", "number")
        value = entry.get("value")
        note = entry.get("note", "")
        if not claim.reproducible and not entry.get("computed"):
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
            "cause": cause_of(status, kind, entry),
        })
    return pd.DataFrame(rows, columns=SCORECARD_COLUMNS)


def status_counts(card: pd.DataFrame) -> dict[str, int]:
    """How many claims have each status (every status listed, zeros included)."""
    counts = card["status"].value_counts()
    return {s: int(counts.get(s, 0)) for s in STATUSES}


def totals(card: pd.DataFrame) -> dict[str, object]:
    """The verdicts the pages quote: claims, claims per status, the claims the release can
    answer (``checkable``: all but the not reproducible), those reproduced (exact or within
    rounding) and their share of the checkable ones; then the two scoreboards the headline
    keeps apart (:func:`scoreboards`): the numbers the paper prints (``printed_*``) and the
    example reports it cites (``examples_*``), each with its claims per status; and for
    the cited examples, how many the release holds (``examples_in_release``) and how many
    carry the cited theme as their final label (``examples_cited_theme``)."""
    n = status_counts(card)
    checkable = len(card) - n["not_reproducible"]
    reproduced = n["exact"] + n["rounding"]
    boards = scoreboards(card)
    p, e = boards["printed"], boards["examples"]
    p_checkable = p["claims"] - p["not_reproducible"]
    p_reproduced = p["exact"] + p["rounding"]
    return {"claims": len(card), "exact": n["exact"], "rounding": n["rounding"],
            "differs": n["differs"], "not_reproducible": n["not_reproducible"],
            "checkable": checkable, "reproduced": reproduced,
            "reproduced_pct": _pct(reproduced, checkable),
            "printed": p["claims"], "printed_checkable": p_checkable,
            "printed_reproduced": p_reproduced,
            "printed_reproduced_pct": _pct(p_reproduced, p_checkable),
            "printed_exact": p["exact"], "printed_rounding": p["rounding"],
            "printed_differs": p["differs"], "printed_not_reproducible": p["not_reproducible"],
            "examples_cited": e["claims"],
            "examples_in_release": e["claims"] - e["not_reproducible"],
            "examples_cited_theme": e["exact"],
            "examples_exact": e["exact"], "examples_rounding": e["rounding"],
            "examples_differs": e["differs"],
            "examples_not_reproducible": e["not_reproducible"]}


# The two kinds of claim, each with its own scoreboard: the numbers the paper prints, and
# the example reports it cites for a theme (whose verdict is the release's final label).
SCOREBOARDS = {"printed": "numbers the paper prints",
               "examples": "example reports the paper cites"}


def scoreboards(card: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per kind of claim (:data:`SCOREBOARDS`): its claims and how many have each status
    (zeros included); the two add up to the whole card."""
    examples = is_example(card).to_numpy()
    return {"printed": {"claims": int((~examples).sum()), **status_counts(card[~examples])},
            "examples": {"claims": int(examples.sum()), **status_counts(card[examples])}}


def _pct(part: int, whole: int) -> str | None:
    return f"{100 * part / whole:.0f}%" if whole else None


def is_example(card: pd.DataFrame) -> pd.Series:
    """The claims that are cited example reports (``examples.ref<n>``), not printed numbers."""
    return card["claim_id"].astype(str).str.startswith("examples.")


def differences_by_cause(card: pd.DataFrame) -> pd.DataFrame:
    """The ``differs`` claims per root cause (:data:`CAUSES`, in its order; causes without
    a difference left out): the cause, what it means, how many claims and their ids."""
    rows = []
    for cause, meaning in CAUSES.items():
        ids = card.loc[(card["status"] == "differs") & (card["cause"] == cause), "claim_id"]
        if len(ids):
            rows.append({"cause": cause, "meaning": meaning, "claims": len(ids),
                         "claim_ids": " ".join(ids.astype(str))})
    return pd.DataFrame(rows, columns=["cause", "meaning", "claims", "claim_ids"])


def reason_of(note: str, coarse: bool = False) -> str:
    """The reason a claim cannot be reproduced: its note up to the first ``;`` (a stage's
    own detail, where there is one, follows it); ``coarse``, up to the first ``:`` too (a
    cited example's note names its report after it)."""
    reason = str(note).split(";")[0]
    return (reason.split(":")[0] if coarse else reason).strip() or "no reason recorded"


def not_reproducible_by_reason(card: pd.DataFrame) -> pd.DataFrame:
    """The ``not_reproducible`` claims per kind (:data:`SCOREBOARDS`) and reason
    (:func:`reason_of`), most claims first (ties in the scorecard's order): what an
    evaluator reads as the list of what is not reproduced, and why."""
    rows = []
    examples = is_example(card)
    for kind in SCOREBOARDS:
        mine = card[(card["status"] == "not_reproducible")
                    & (examples if kind == "examples" else ~examples)]
        reasons = mine["note"].fillna("").map(lambda n, c=kind == "examples": reason_of(n, c))
        groups = [(r, mine.loc[reasons == r, "claim_id"].astype(str).tolist())
                  for r in dict.fromkeys(reasons)]
        rows += [{"kind": kind, "reason": r, "claims": len(ids), "claim_ids": " ".join(ids)}
                 for r, ids in sorted(groups, key=lambda g: -len(g[1]))]
    return pd.DataFrame(rows, columns=["kind", "reason", "claims", "claim_ids"])


# Claims shown folded under their group's table when exact: the sub-theme count of each
# theme, a long run of similar claims.
FOLDED_PREFIXES = ("taxonomy.subthemes.A", "taxonomy.subthemes.B", "taxonomy.subthemes.C")


def claim_groups(card: pd.DataFrame) -> pd.DataFrame:
    """Per claim: its group (the first part of its id, ``taxonomy`` for
    ``taxonomy.themes.bug``: the page that lists it) and whether that page folds it
    (an exact claim of :data:`FOLDED_PREFIXES`)."""
    ids = card["claim_id"].astype(str)
    return pd.DataFrame({
        "claim_id": ids, "group": ids.str.split(".", n=1).str[0],
        "folded": ids.str.startswith(FOLDED_PREFIXES) & (card["status"] == "exact")},
        columns=["claim_id", "group", "folded"])


def status_by_group(card: pd.DataFrame, groups: pd.DataFrame) -> pd.DataFrame:
    """Per claim group (in the scorecard's order): its claims, how many have each status,
    and how many are folded (:func:`claim_groups`)."""
    rows = []
    for group in dict.fromkeys(groups["group"]):
        mine = groups["group"] == group
        rows.append({"group": group, **_counts(card.loc[mine.to_numpy(), "status"]),
                     "folded": int(groups.loc[mine, "folded"].sum())})
    return pd.DataFrame(rows, columns=["group", "claims", *STATUSES, "folded"])


ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8}
# Where the paper prints each table, as a section, so that a table sorts with its section
TABLE_SECTIONS = {"Table I": "Section III.A"}


def paper_order(source: str) -> tuple:
    """A sort key that follows the paper: Abstract, then Sections I, II, III.A, III.B, ...
    (by their first place when a claim names several; a table sorts after the text of
    the section that prints it, unknown places last)."""
    first = re.sub(r"\s*\([^)]*\)", "", str(source)).split(";")[0].strip()
    if first == "Abstract":
        return (0,)
    table = first in TABLE_SECTIONS
    first = TABLE_SECTIONS.get(first, first)
    m = re.fullmatch(r"Section ([IVX]+)(?:\.([A-Z]))?(?:\.(\d+))?", first)
    if not m:
        return (99, first)
    return (ROMAN.get(m.group(1), 50), ord(m.group(2)) - 64 if m.group(2) else 0,
            int(m.group(3)) if m.group(3) else 0, 1 if table else 0)


def status_by_source(card: pd.DataFrame) -> pd.DataFrame:
    """Per place in the paper (a claim's ``source``), in the paper's order
    (:func:`paper_order`; places of one rank by name): its ``place`` (1 first; places the
    order cannot tell apart share one), its claims and how many have each status."""
    sources = sorted(set(card["source"].astype(str)))
    keys = {s: paper_order(s) for s in sources}
    ranks = {k: i for i, k in enumerate(sorted(set(keys.values())), 1)}
    rows = [{"source": s, "place": ranks[keys[s]],
             **_counts(card.loc[card["source"].astype(str) == s, "status"])}
            for s in sorted(sources, key=lambda s: keys[s])]
    return pd.DataFrame(rows, columns=["source", "place", "claims", *STATUSES])


def _counts(statuses: pd.Series) -> dict[str, int]:
    """claims -> how many, and per status (zeros included)."""
    return {"claims": len(statuses), **{s: int((statuses == s).sum()) for s in STATUSES}}


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
    """What the stage computes: the scorecard, one row per claim (:data:`SCORECARD_COLUMNS`),
    its verdicts per place in the paper and per claim group, and the challenges' coverage
    and dominance (:mod:`analysis.findings.challenges`) at the threshold used."""

    card: pd.DataFrame
    coverage: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=ch.CHALLENGE_COLUMNS))
    dominant: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=ch.DOMINANT_COLUMNS))
    dominant_share: float = 50.0


def compute(claims: pd.DataFrame, reproduced: list[dict[str, dict]],
            themes: pd.DataFrame | None = None, shares: pd.DataFrame | None = None,
            challenges: list[dict] | None = None, names: dict[str, str] | None = None,
            dominant_share: float = 50.0) -> Findings:
    """Returns one :class:`Findings`: the scorecard of ``claims``
    (:func:`~analysis.core.claims.load_claims`) against the stages' reproduced values (one
    mapping per stage, as read from their files), and, given the taxonomy stage's
    ``themes`` and ``shares`` tables, how many reports each of the ``challenges`` rests on
    and which one theme dominates (above ``dominant_share`` percent of its reports: params.yaml
    ``findings.dominant_share``, checked by :class:`~analysis.findings.params.FindingsParams`)."""
    card = scorecard(claims, merge_reproduced(reproduced))
    if themes is None or shares is None:
        return Findings(card, dominant_share=dominant_share)
    return Findings(card, ch.challenge_coverage(themes, shares, challenges or [], names or {}),
                    ch.dominant_themes(themes, challenges or [], dominant_share),
                    dominant_share)
