"""Pandera schemas of the CSVs the keywords stage writes: the keyword counts, the lists and
their audit (:data:`SCHEMAS`, checked as they are written; see
:mod:`analysis.core.columns`).
"""

from __future__ import annotations

from analysis.core.columns import (
    P,
    TableSchemas,
    count,
    table,
    text,
    yes_no,
)

KEYWORD_LIST = ("the keyword list: its variable name in upstream's filter_keywords without "
                "`_keywords` (e.g. pytorch)")
AUDIT_KINDS = ("exact_duplicate", "case_duplicate", "short_keyword", "contained_in_other",
               "merged_literals", "looks_merged", "non_word_edge", "ordinary_word")


COUNTS = table(
    P.keywords.table("counts.csv"),
    "The keyword lists of Section III.A, "
    "counted; no rows when the dump has no keyword file.", {
        "list": text(KEYWORD_LIST),
        "raw": count("entries as listed, repeats included"),
        "distinct": count("distinct exact strings: the paper's count"),
        "distinct_casefold": count("distinct keywords ignoring case"),
        "claim_id": text("the scorecard claim that reproduces the list's count "
                         "(`keywords.count.<list>`)"),
    })


LISTS = table(
    P.keywords.table("lists.csv"),
    "Every entry of every keyword list, in "
    "file order.", {
        "list": text(KEYWORD_LIST),
        "position": count("the entry's position in its list (1 = first)", low=1),
        "line": count("the line of filter_keywords the entry is on", low=1),
        "keyword": text("the keyword exactly as written", nullable=True),
        "counted": yes_no("yes for the first occurrence of this exact string in "
                          "the list (it counts in the paper's count), no for a "
                          "repeat"),
        "distinct_casefold": yes_no("yes for the first occurrence of this "
                                    "keyword ignoring case"),
    })


AUDIT = table(
    P.keywords.table("audit.csv"),
    "What the audit of the keyword lists "
    "found, one row per finding.", {
        "list": text(KEYWORD_LIST),
        "keyword": text("the keyword the finding is about", nullable=True),
        "kind": text("the finding: `exact_duplicate`, `case_duplicate` (the same "
                     "keyword in another case), `short_keyword` (3 characters "
                     "or fewer: matches inside words as a substring), "
                     "`contained_in_other` (another keyword contains it on word "
                     "boundaries), `merged_literals` (adjacent string literals "
                     "that Python joins), `looks_merged` (reads like two "
                     "keywords missing a comma), `non_word_edge` (begins or "
                     "ends with a non-word character) or `ordinary_word` (an "
                     "ordinary English or code word, data/ordinary_words.tsv)",
                     words=AUDIT_KINDS),
        "detail": text("the finding in words"),
        "line": count("the line of filter_keywords where the keyword first "
                      "appears", low=1),
    })


SCHEMAS = TableSchemas.of(
    COUNTS,
    LISTS,
    AUDIT)
