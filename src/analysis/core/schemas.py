"""Pandera schemas of the label and year files' rows and of the processed issues table.

The input schemas are validated lazily, so every failing cell is found in one pass;
:func:`failures` turns pandera's failure cases into ``(row index, check, column)`` triples
that the reading stage maps back to file lines and rules (each check is named after the
anomaly kind it reports). Structural problems that make a file unreadable (encoding,
missing columns) are caught earlier, with the line, in :mod:`analysis.core.dump`; a
processed table that breaks :func:`issues_schema` is a bug and fails loudly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pandas as pd
import pandera.pandas as pa
from pandera.errors import SchemaErrors

from analysis.core.dump import URL_RE

ISSUE_URL_PATTERN = URL_RE.pattern


def _check(fn, name: str) -> pa.Check:
    return pa.Check(fn, name=name, ignore_na=False)


def label_rows_schema(annotator_columns: list[str], codes: list[str]) -> pa.DataFrameSchema:
    """Rows of a label file: ``url``, ``final_label``, ``annotator_<n>`` (stripped strings).

    Checks (named after the anomaly kinds): ``invalid_url``, ``missing_final_label``,
    ``unknown_final_label``, ``missing_rating``, ``unknown_label``.
    """
    code_set = set(codes)
    rating = pa.Column(object, nullable=True, checks=[
        _check(lambda s: s.notna(), "missing_rating"),
        _check(lambda s: s.isna() | s.isin(code_set), "unknown_label"),
    ])
    return pa.DataFrameSchema(
        {
            "line": pa.Column("int64", pa.Check.ge(2)),
            "url": pa.Column(str, _check(lambda s: s.str.match(ISSUE_URL_PATTERN),
                                         "invalid_url")),
            "final_label": pa.Column(str, [
                _check(lambda s: s != "", "missing_final_label"),
                _check(lambda s: (s == "") | s.isin(code_set), "unknown_final_label"),
            ]),
            **{col: rating for col in annotator_columns},
        },
        strict=False, name="label file rows")


def year_lines_schema() -> pa.DataFrameSchema:
    """Lines of a year file: ``url`` (the stripped line). Checks: ``year_blank_line``,
    ``year_line_not_url``."""
    return pa.DataFrameSchema(
        {
            "line": pa.Column("int64", pa.Check.ge(1)),
            "url": pa.Column(str, [
                _check(lambda s: s != "", "year_blank_line"),
                _check(lambda s: (s == "") | s.str.match(ISSUE_URL_PATTERN),
                       "year_line_not_url"),
            ]),
        },
        strict=False, name="year file lines")


# What each column of the processed issues table means, for the schema below and for the
# data dictionary of the processed issues (:mod:`analysis.core.table_schemas`).
ISSUE_DESCRIPTIONS: dict[str, str] = {
    "project": "the project the issue belongs to: its folder name under `Issue Report/` in "
               "the dump (e.g. pytorch, DeepSpeed)",
    "project_name": "the project's display name from data/projects.yaml (the folder name "
                    "when the project is not listed there)",
    "kind": "what the project is, from data/projects.yaml: `framework` (a deep learning "
            "framework) or `toolkit` (an LLM toolkit); `unknown` for a project not listed",
    "host": "where the project's issues are hosted, from data/projects.yaml (GitHub or "
            "Gitee); `unknown` for a project not listed",
    "issue_url": "the issue report's URL, as in the label file (Issue_URL, trimmed)",
    "year": "the year the issue belongs to: the year of the `<Project>_<year>.txt` file that "
            "lists its URL",
    "type": "the issue type of the final label (Question, Requirement or Bug, by the "
            "theme's letter A, B or C in data/taxonomy.yaml)",
    "final_label": "the theme code the annotators settled on (Final_Label of the label "
                   "file, e.g. C.3); always a code of data/taxonomy.yaml",
    "theme": "the name of the final label's theme in data/taxonomy.yaml",
    "n_ratings": "how many annotator columns of this row hold a label (missing ratings "
                 "are not counted)",
    "source_file": "the label file the row comes from, relative to data/raw "
                   "(e.g. Issue Report/pytorch/pytorch.csv)",
    "source_line": "the row's line number in that label file (counting from 1, the "
                   "header included)",
    "flags": "the kept anomalies of this row (rules of analysis.clean.rules.RULES such as "
             "whitespace, missing_rating, final_not_majority, duplicate_url), separated "
             "by `;` in alphabetical order; empty when the row has none",
}
ANNOTATOR_DESCRIPTION = (
    "one column per annotator, `annotator_<n>` for the column Label<n> of the label files "
    "(Label3 gives annotator_3): the theme code that annotator gave the issue (a label "
    "outside the taxonomy is kept as written); empty when the annotator gave no label "
    "(a missing rating)")
ANNOTATOR_RE = re.compile(r"annotator_(\d+)")


def annotator_columns(columns: Iterable[object]) -> list[str]:
    """The ``annotator_<n>`` columns of the processed issues table, in numeric order."""
    found = ((int(m[1]), c) for c in map(str, columns) if (m := ANNOTATOR_RE.fullmatch(c)))
    return [c for _, c in sorted(found)]


# --- study dumps (labels extend) -----------------------------------------------------
BATCH_DESCRIPTION = ("the batch the row came from: `release` for the base dump's rows, or "
                     "the name `python -m analysis.update.labels extend` gave a batch of new "
                     "labels (only in a study dump)")


def issues_schema(annotators: list[str], codes: list[str], types: list[str],
                  with_batch: bool = False) -> pa.DataFrameSchema:
    """The processed issues table (one row per labelled issue).

    Every column carries its meaning (:data:`ISSUE_DESCRIPTIONS`), so the data dictionary
    of the CSV copy is generated from the same words.
    """
    code_set = set(codes)
    d = ISSUE_DESCRIPTIONS
    return pa.DataFrameSchema(
        {
            "project": pa.Column(str, pa.Check.str_length(min_value=1),
                                 description=d["project"]),
            "project_name": pa.Column(str, description=d["project_name"]),
            "kind": pa.Column(str, description=d["kind"]),
            "host": pa.Column(str, description=d["host"]),
            "issue_url": pa.Column(str, pa.Check.str_matches(ISSUE_URL_PATTERN),
                                   description=d["issue_url"]),
            "year": pa.Column("int64", pa.Check.in_range(1970, 2100), description=d["year"]),
            "type": pa.Column(str, pa.Check.isin(types), description=d["type"]),
            "final_label": pa.Column(str, pa.Check.isin(code_set),
                                     description=d["final_label"]),
            "theme": pa.Column(str, description=d["theme"]),
            **{a: pa.Column(object, nullable=True, description=ANNOTATOR_DESCRIPTION)
               for a in annotators},
            "n_ratings": pa.Column("int64", pa.Check.in_range(0, max(len(annotators), 0)),
                                   description=d["n_ratings"]),
            "source_file": pa.Column(str, description=d["source_file"]),
            "source_line": pa.Column("int64", pa.Check.ge(2), description=d["source_line"]),
            "flags": pa.Column(str, description=d["flags"]),
            # --- study dumps (labels extend): the batch of each row ------------------
            **({"batch": pa.Column(str, pa.Check.str_length(min_value=1),
                                   description=BATCH_DESCRIPTION)} if with_batch else {}),
        },
        strict=True, ordered=True, name="processed issues")


def failures(schema: pa.DataFrameSchema, frame: pd.DataFrame) -> pd.DataFrame:
    """Every failing cell of ``frame`` under ``schema``: columns index, check, column.

    Empty when the frame is valid. Only cell-level failures are returned; a frame-level
    failure (a missing column, a wrong dtype) is raised as it is a bug in the caller.
    """
    cols = ["index", "check", "column"]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    try:
        schema.validate(frame, lazy=True)
    except SchemaErrors as exc:
        cases = exc.failure_cases
        cells = cases[cases["index"].notna()]
        if len(cells) != len(cases):
            raise
        out = cells[cols].copy()
        out["index"] = out["index"].astype("int64")
        return out.reset_index(drop=True)
    return pd.DataFrame(columns=cols)


def year_line_status(frame: pd.DataFrame) -> pd.DataFrame:
    """Add ``blank`` and ``is_url`` to parsed year-file lines, from :func:`year_lines_schema`."""
    failed = failures(year_lines_schema(), frame)
    out = frame.copy()
    out["blank"] = out.index.isin(failed.loc[failed["check"] == "year_blank_line", "index"])
    out["is_url"] = ~out["blank"] & ~out.index.isin(
        failed.loc[failed["check"] == "year_line_not_url", "index"])
    return out
