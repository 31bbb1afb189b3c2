"""What the page modules share: where their inputs are, how an include is declared and
read, and the blocks more than one page shows (the paper's claims beside ours, an
anomaly list, an escaped table).

An include reads the artifacts the stages wrote (paths relative to the project root) and
formats them; it computes nothing. It reads only the artifacts it declares
(:attr:`Include.inputs`): :func:`write_includes` gives each include an :class:`Inputs`
that refuses any other. When an input is missing (its stage has not run) the include says
so instead of failing, so every page renders; an input a dump may lack (a study's tables,
:attr:`Include.optional`) is None instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd

from analysis.core.claims import paper_statement
from analysis.core.formatting import MISSING, count, interval
from analysis.core.paths import Paths, StagePaths
from analysis.report.generated import STATUS_LABELS, callout, status_badge
from analysis.report.htmlsafe import details_block, esc, html_table, raw_html_block

# Inputs by their path relative to the project root (from analysis.core.paths).
P = Paths(Path("."))


def rel(path: Path) -> str:
    """A path of :data:`P` as the text an include names its input by."""
    return path.as_posix()


SCORECARD = rel(P.findings.table("scorecard.csv"))


def tables_of(stage: StagePaths) -> Callable[[str], str]:
    """name -> the path of a table of ``stage``, as an include names its input."""
    return lambda name: rel(stage.table(name))


TX = tables_of(P.taxonomy)
AG = tables_of(P.agreement)
IV = tables_of(P.interviews)
KW = tables_of(P.keywords)
CP = tables_of(P.compare)
T1 = tables_of(P.table1)
FD = tables_of(P.findings)


class Missing(Exception):
    """An input of an include does not exist (its stage has not run)."""


class UndeclaredInput(Exception):
    """An include asked for an artifact it does not declare (a bug of the include)."""


@dataclass
class Inputs:
    """The artifacts, by path relative to the project root (the scorecard is read once):
    those of ``declared`` only, when given."""

    root: Path
    declared: frozenset[str] | None = None

    def path(self, rel: str) -> Path:
        if self.declared is not None and rel not in self.declared:
            raise UndeclaredInput(f"{rel} is not among the inputs the include declares "
                                  f"({', '.join(sorted(self.declared))})")
        p = self.root / rel
        if not p.is_file():
            raise Missing(rel)
        return p

    def csv(self, rel: str) -> pd.DataFrame:
        return pd.read_csv(self.path(rel), keep_default_na=False, na_values=[""])

    def optional_csv(self, rel: str) -> pd.DataFrame | None:
        """A table only some dumps have (a study's), or None."""
        try:
            return self.csv(rel)
        except Missing:
            return None

    def json(self, rel: str) -> dict:
        return json.loads(self.path(rel).read_text(encoding="utf-8"))

    def text(self, rel: str) -> str:
        return self.path(rel).read_text(encoding="utf-8")

    @cached_property
    def card(self) -> pd.DataFrame:
        return pd.read_csv(self.path(SCORECARD), dtype=str, keep_default_na=False)


@dataclass(frozen=True)
class Include:
    """One generated include: its name under ``report/_generated/``, every artifact it
    reads (relative to the project root), the function that writes its Markdown, and those
    of its inputs that a dump may lack (``optional``: written on a study only)."""

    name: str
    inputs: tuple[str, ...]
    make: Callable[[Inputs], str]
    optional: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not set(self.optional) <= set(self.inputs):
            raise ValueError(f"{self.name}: optional inputs must be among its inputs")


def missing_note(rel: str) -> str:
    """What an include says when one of its inputs was not written."""
    return (f"*Not available in this build: `{rel.replace('`', '')}` was not written (run "
            "`dvc repro`; the stage that writes it may not have run).*\n")


def write_includes(includes: tuple[Include, ...], root: Path) -> dict[str, str]:
    """name -> text of every include (a note where an input is missing), each made from
    its declared inputs only."""
    out = {}
    for inc in includes:
        inputs = Inputs(root, frozenset(inc.inputs))
        try:
            for path in inc.inputs:
                if path not in inc.optional:
                    inputs.path(path)
            out[inc.name] = inc.make(inputs)
        except Missing as exc:
            out[inc.name] = missing_note(str(exc))
    return out


def table(frame: pd.DataFrame, numeric: list[str], classes: str = "table sortable compact",
          raw: tuple[str, ...] = (), row_classes: list[str] | None = None) -> str:
    """An escaped HTML table (cells already formatted as text) as a raw block."""
    return raw_html_block(html_table(frame, numeric=numeric, classes=classes,
                                     raw_columns=raw, row_classes=row_classes))


def code_list(items: list[str]) -> str:
    """Items as escaped inline code, separated by spaces."""
    return " ".join(f"<code>{esc(i)}</code>" for i in items)


def annotator(name: object) -> str:
    """A label column as a reader names it: ``annotator_3`` -> ``annotator 3``."""
    return str(name).replace("annotator_", "annotator ")


def intervals(frame: pd.DataFrame, low: str, high: str) -> list[str]:
    """The interval of each row of ``frame`` as a cell (:func:`interval`), from its columns
    ``low`` and ``high``: the stages write an interval's two ends in two columns, the pages
    show it in one."""
    return [interval(a, b) for a, b in zip(frame[low], frame[high], strict=True)]


# -- the paper's claims beside ours ----------------------------------------------------

CLAIM_GROUPS = FD("claim_groups.csv")
STATUS_BY_GROUP = FD("status_by_group.csv")
CLAIMS_INPUTS = (SCORECARD, CLAIM_GROUPS, STATUS_BY_GROUP)


def claim_rows(r: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Scorecard rows as shown: what the paper says (with where it says it; the claim's
    id, a key for the downloads, folded under it), the paper's value with its comparator,
    ours, the verdict and the note; and the row classes that highlight the rows that are
    not exact."""
    what = [f'{esc(d)}<span class="claim-where">{esc(w)}</span>'
            f'<details class="claim-id"><summary>id</summary><code>{esc(c)}</code></details>'
            for d, c, w in zip(r["description"], r["claim_id"], r["source"], strict=True)]
    shown = pd.DataFrame({
        "what the paper says": what, "paper": [
            esc(paper_statement(v, rel_)) for v, rel_ in zip(
                r["paper_value"], r.get("relation", pd.Series("=", index=r.index)),
                strict=True)],
        "ours": r["reproduced_value"].map(lambda v: esc(v) if v != "" else MISSING),
        "verdict": [status_badge(s) for s in r["status"]], "note": r["note"].map(esc)})
    return shown, [f"st-{s}" if s != "exact" else "" for s in r["status"]]


def claims_table(card: pd.DataFrame, groups: pd.DataFrame, counts: pd.DataFrame,
                 group: str) -> str:
    """The scorecard rows of one claim ``group`` (the findings stage's ``claim_groups``):
    how many there are and their verdicts (its ``status_by_group``), then the rows, those
    that are not exact highlighted; the rows the stage folds (long runs of exact claims on
    one theme each) go into a collapsed list below."""
    mine = groups[groups["group"] == group]
    totals = counts[counts["group"] == group]
    if mine.empty or totals.empty:
        return "No number of the paper is checked here.\n"
    rows = card[card["claim_id"].isin(set(mine["claim_id"]))]
    folded = set(mine.loc[mine["folded"].astype(str).str.lower() == "true", "claim_id"])
    detail = rows["claim_id"].isin(folded)
    t = totals.iloc[0]
    summary = ", ".join(f"{count(t[s])} {label}" for s, label in STATUS_LABELS.items()
                        if int(t[s]) > 0)
    raw = ("what the paper says", "paper", "ours", "verdict", "note")
    shown, cls = claim_rows(rows[~detail])
    out = (f"{count(t['claims'])} numbers of the paper are checked here: {summary}.\n\n"
           + table(shown, numeric=["paper", "ours"], classes="table claims cards", raw=raw,
                   row_classes=cls))
    if detail.any():
        more, more_cls = claim_rows(rows[detail])
        out += callout("note", f"{count(t['folded'])} more, all exact",
                       table(more, numeric=["paper", "ours"], classes="table claims cards", raw=raw,
                             row_classes=more_cls), collapse=True)
    return out


def claims_include(page: str, group: str) -> Include:
    """The include ``<page>/claims.md``: the scorecard rows of claim ``group``."""
    def make(i: Inputs) -> str:
        return claims_table(i.card, i.csv(CLAIM_GROUPS), i.csv(STATUS_BY_GROUP), group)
    return Include(f"{page}/claims.md", CLAIMS_INPUTS, make)


# -- quality reports ---------------------------------------------------------------------

MAX_LISTED = 2000  # anomalies listed per kind on the page (all are in quality.json)


def anomalies_include(name: str, quality: Path) -> Include:
    """The include ``name``: every anomaly of the quality report ``quality`` (a stage's
    ``quality.json``), by kind (:func:`quality_anomalies`)."""
    source = rel(quality)
    return Include(name, (source,), lambda i: quality_anomalies(i.json(source)))


def quality_anomalies(quality: dict, max_listed: int = MAX_LISTED) -> str:
    """Every anomaly of a stage's quality report, by kind (with the count the report
    gives), each kind's list collapsed."""
    counts = quality.get("anomaly_counts", {})
    rules = quality.get("rules", {})
    frame = pd.DataFrame(quality.get("anomalies", []),
                         columns=["kind", "file", "line", "column", "message", "action"])
    if frame.empty:
        return "No anomaly was found.\n"
    kinds = sorted(counts)
    summary = pd.DataFrame([{
        "kind": kind, "count": int(counts[kind]),
        "severity": rules.get(kind, {}).get("severity", ""),
        "action": ", ".join(sorted(frame.loc[frame["kind"] == kind, "action"].dropna()
                                   .astype(str).unique())),
        "rule": rules.get(kind, {}).get("description", ""),
    } for kind in kinds])
    out = [raw_html_block(html_table(summary, numeric=["count"],
                                     classes="table sortable anomalies cards"))]
    for kind in kinds:
        group = frame[frame["kind"] == kind].sort_values(
            ["file", "line"], na_position="first", kind="mergesort")
        shown = group.head(max_listed)[["file", "line", "column", "message", "action"]].copy()
        shown["line"] = shown["line"].map(lambda v: "" if v is None or v != v else int(v))
        shown["column"] = shown["column"].fillna("")
        body = html_table(shown, numeric=["line"])
        if counts[kind] > max_listed:
            body += (f"<p>The first {max_listed:,} of {counts[kind]:,} are listed; "
                     "<code>quality.json</code> (Downloads) has all of them.</p>")
        out.append(details_block(f"{kind}: {counts[kind]:,}", body))
    return "\n".join(out)
