"""What the keywords stage writes (the stage contract of :mod:`analysis.core.stage`): the
counts, every entry and the audit as tables, the website's numbers and examples, the
reproduced counts and the metrics."""

from __future__ import annotations

from collections import Counter

import pandas as pd

from analysis.core.artifacts import flat_vars
from analysis.core.stage import StageOutputs
from analysis.keywords.lists import Keywords

# The audit's finding kinds, with the words that introduce a list of their examples.
AUDIT_EXAMPLE_LABELS = {
    "exact_duplicate": "Exact duplicates", "case_duplicate": "Duplicates in another case",
    "short_keyword": "Short keywords found", "looks_merged": "Entries that look merged",
    "merged_literals": "Lists merged by implicit string concatenation",
    "contained_in_other": "Keywords contained in a longer one",
    "non_word_edge": "Keywords that begin or end with a non-word character",
    "ordinary_word": "Ordinary English or code words"}


def tables(result: Keywords) -> dict[str, pd.DataFrame]:
    return {"counts.csv": result.counts, "lists.csv": result.entries,
            "audit.csv": result.findings}


def claim_values(result: Keywords) -> dict[str, dict]:
    """Reproduced values keyed by claim id: ``keywords.count.<list>`` = distinct strings."""
    return {f"keywords.count.{r.list}": {
        "value": int(r.distinct),
        "note": f"distinct exact strings; {r.raw} entries as listed, {r.distinct_casefold} "
                "distinct ignoring case"} for r in result.counts.itertuples(index=False)}


def metrics(result: Keywords) -> dict:
    """Per list: the paper's count, raw entries, case-insensitive count; findings per kind."""
    table = result.counts
    return {
        "lists": int(len(table)),
        "count": {r.list: int(r.distinct) for r in table.itertuples(index=False)},
        "raw": {r.list: int(r.raw) for r in table.itertuples(index=False)},
        "distinct_casefold": {r.list: int(r.distinct_casefold)
                              for r in table.itertuples(index=False)},
        "findings": {k: int(v) for k, v in sorted(Counter(result.findings["kind"]).items())},
    }


def website_vars(result: Keywords) -> dict[str, object]:
    """Counts per list and the audit's findings per kind with examples, for the website.

    The examples quote keywords (data): they are under keys ending in ``_text``, which
    the report shows only as escaped HTML.
    """
    table, findings = result.counts, result.findings
    variables: dict[str, object] = {"keywords.lists": len(table),
                                    "keywords.available": "yes" if len(table) else "no",
                                    "keywords.findings": int(len(findings))}
    for r in table.itertuples(index=False):
        variables[f"keywords.count.{r.list}"] = int(r.distinct)
        variables[f"keywords.raw.{r.list}"] = int(r.raw)
        variables[f"keywords.casefold.{r.list}"] = int(r.distinct_casefold)
    for kind, label in AUDIT_EXAMPLE_LABELS.items():
        sel = findings[findings["kind"] == kind]
        variables[f"keywords.audit.{kind}"] = int(len(sel))
        examples = ", ".join(sorted(dict.fromkeys(repr(k) for k in sel["keyword"]))[:8])
        variables[f"keywords.audit.{kind}.examples_text"] = f"{label}: {examples or 'none'}."
    variables["keywords.counts_note"] = (
        "Keywords per list: entries as listed, distinct exact strings (the paper's count) and "
        "distinct ignoring case.")
    return flat_vars(variables)


def build(result: Keywords) -> StageOutputs:
    return StageOutputs(tables=tables(result), website_vars=website_vars(result),
                        claim_values=claim_values(result), metrics=metrics(result))
