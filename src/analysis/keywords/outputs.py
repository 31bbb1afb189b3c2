"""What the keywords stage writes (the stage contract of :mod:`analysis.core.stage`): the
counts (each with the claim it reproduces), every entry and the audit as tables, the
website's numbers and examples, the reproduced counts and the metrics."""

from __future__ import annotations

import pandas as pd

from analysis.core.stage import StageOutputs
from analysis.core.table_schemas import stage_schemas
from analysis.keywords.compute import Keywords


def count_claim_id(name: str) -> str:
    """The claim of the paper that counts keyword list ``name``: ``keywords.count.<list>``."""
    return f"keywords.count.{name}"


def tables(result: Keywords) -> dict[str, pd.DataFrame]:
    counts = result.counts.assign(claim_id=[count_claim_id(n) for n in result.counts["list"]])
    return {"counts.csv": counts, "lists.csv": result.entries, "audit.csv": result.findings}


def claim_values(result: Keywords) -> dict[str, dict]:
    """Reproduced values keyed by claim id: ``keywords.count.<list>`` = distinct strings."""
    return {count_claim_id(r.list): {
        "value": int(r.distinct),
        "note": f"distinct exact strings; {r.raw} entries as listed, {r.distinct_casefold} "
                "distinct ignoring case"} for r in result.counts.itertuples(index=False)}


def metrics(result: Keywords) -> dict:
    """The lists, the paper's count of each (distinct exact strings) and the audit's
    findings (entries, case-insensitive counts and findings per kind are in the tables)."""
    table = result.counts
    return {"lists": int(len(table)),
            "count": {r.list: int(r.distinct) for r in table.itertuples(index=False)},
            "findings": int(len(result.findings))}


def audit(findings: pd.DataFrame, kind: str, label: str) -> tuple[int, str]:
    """The audit's findings of one ``kind``: how many, and the first eight keywords (sorted,
    quoted) after ``label``."""
    sel = findings[findings["kind"] == kind]
    examples = ", ".join(sorted(dict.fromkeys(repr(k) for k in sel["keyword"]))[:8])
    return int(len(sel)), f"{label}: {examples or 'none'}."


def website_vars(result: Keywords) -> dict[str, object]:
    """The lists and the audit's findings per kind with examples, for the website.

    The examples quote keywords (data): they are under keys ending in ``_text``, which
    the report shows only as escaped HTML.
    """
    table, findings = result.counts, result.findings
    v: dict[str, object] = {"lists": len(table), "available": "yes" if len(table) else "no",
                            "findings": int(len(findings))}
    v["audit_exact_duplicate"], v["audit_exact_duplicate_examples_text"] = audit(
        findings, "exact_duplicate", "Exact duplicates")
    v["audit_case_duplicate"], v["audit_case_duplicate_examples_text"] = audit(
        findings, "case_duplicate", "Duplicates in another case")
    v["audit_short_keyword"], v["audit_short_keyword_examples_text"] = audit(
        findings, "short_keyword", "Short keywords found")
    v["audit_looks_merged"], v["audit_looks_merged_examples_text"] = audit(
        findings, "looks_merged", "Entries that look merged")
    v["audit_contained_in_other"], _ = audit(
        findings, "contained_in_other", "Keywords contained in a longer one")
    _, v["audit_ordinary_word_examples_text"] = audit(
        findings, "ordinary_word", "Ordinary English or code words")
    v["counts_note"] = (
        "Keywords per list: entries as listed, distinct exact strings (the paper's count) and "
        "distinct ignoring case.")
    return v


def build(result: Keywords) -> StageOutputs:
    return StageOutputs(tables=tables(result), website_vars=website_vars(result),
                        claim_values=claim_values(result), metrics=metrics(result),
                        schemas=stage_schemas("keywords"))
