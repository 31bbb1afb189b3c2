"""The data dictionaries of the website's downloads (:mod:`analysis.core.table_schemas`).

Every CSV the pipeline writes has a pandera schema that describes each of its columns and
validates it: the tables of the current run (skipped before a pipeline run), and the list of
CSVs the notebooks write according to dvc.yaml (the tables of a run on a synthetic dump, so
that CI checks them too: tests/e2e/test_table_schemas.py). Then what the dictionary
promises: a column without a description cannot ship, and the example is the first
non-empty value.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pandera.errors import SchemaErrors

from analysis.core.columns import KINDS, count, share, table, text
from analysis.core.paths import ROOT, Paths
from analysis.core.table_schemas import (
    UndocumentedColumnError,
    all_schemas,
    data_dictionary,
    schema_for,
)
from tests.support.table_checks import table_problems, written_csvs

# --------------------------------------------------------------------------- (a) current run


def current_tables() -> list:
    """The current run's CSVs, or one skipped case before a pipeline run."""
    if not (ROOT / "report" / "tables").is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(
            reason="no pipeline run here: report/tables/ does not exist"))]
    return written_csvs(ROOT)


@pytest.mark.parametrize("rel", current_tables())
def test_every_csv_of_the_current_run_validates_and_is_described(rel):
    assert not table_problems(ROOT, rel)


def test_the_current_run_has_the_tables_the_brief_names():
    if not (ROOT / "report" / "tables").is_dir():
        pytest.skip("no pipeline run here: report/tables/ does not exist")
    written = set(written_csvs(ROOT))
    for rel in ("data/processed/clean/issues.csv", "data/processed/clean/rejected.csv",
                "report/tables/findings/scorecard.csv", "report/tables/table1/counts.csv"):
        assert rel in written


# --------------------------------------------------------------------------- (b) dvc.yaml


def notebook_csv_outs() -> set[str]:
    """The CSVs the notebook stages write: every CSV their paths list (the folders dvc.yaml
    declares hold exactly those)."""
    rel = Paths(Path("."))
    outs = set()
    for stage in rel.stages():
        outs |= {stage.table(n).as_posix() for n in stage.TABLES if n.endswith(".csv")}
        outs |= {stage.processed_file(n).as_posix() for n in stage.PROCESSED
                 if n.endswith(".csv")}
    return outs


def test_every_csv_a_notebook_writes_has_a_schema():
    outs = notebook_csv_outs()
    assert len(outs) >= 40
    assert not sorted(outs - set(all_schemas().tables))


def test_every_schema_names_a_csv_a_notebook_writes():
    assert not sorted(set(all_schemas().tables) - notebook_csv_outs())


# --------------------------------------------------------------------------- (c) dictionary


@pytest.mark.parametrize("rel", sorted(all_schemas().tables))
def test_every_column_of_every_schema_is_described(rel):
    schema = all_schemas().tables[rel]
    assert schema.name == rel and schema.description
    for name, col in schema.columns.items():
        assert col.description and col.description.strip(), f"{rel}: {name}"
        assert col.metadata["type"] in KINDS, f"{rel}: {name}"
        assert col.coerce is False


def test_data_dictionary_raises_on_an_undocumented_column():
    frame = pd.DataFrame({"project": ["pytorch", "Sum"], "name": ["PyTorch", "All projects"],
                          "kind": ["framework", None], "2024": [3, 3], "Bug": [3, 3],
                          "Total": [3, 3], "false_positive": [0.5, 0.5]})
    schema = schema_for("report/tables/table1/counts.csv", frame)
    with pytest.raises(UndocumentedColumnError, match="false_positive"):
        data_dictionary(schema, frame)
    with pytest.raises(SchemaErrors):  # the schemas are strict, too
        schema.validate(frame, lazy=True)


def test_data_dictionary_lists_columns_in_order_with_the_first_non_empty_example():
    schema = table("example.csv", "a table for the test", {
        "n": count("a count"),
        "name": text("a name", nullable=True),
        "share": share("a share"),
        r"^\d{4}$": count("a year", regex=True),
    })
    frame = pd.DataFrame({"name": [None, "", "b"], "n": [1, 2, 3],
                          "share": [np.nan, 0.25, 0.5], "2031": [np.nan, np.nan, 7.0]})
    dictionary = data_dictionary(schema, frame)
    assert list(dictionary.columns) == ["column", "type", "meaning", "example"]
    assert list(dictionary["column"]) == ["name", "n", "share", "2031"]
    assert list(dictionary["type"]) == ["text", "integer", "decimal number", "integer"]
    assert list(dictionary["example"]) == ["b", "1", "0.25", "7"]
    assert dictionary.loc[3, "meaning"] == "a year"
    empty = data_dictionary(schema, frame.iloc[:0])
    assert list(empty["example"]) == ["", "", "", ""]
    as_text = data_dictionary(schema, frame.fillna("").astype(str))
    assert list(as_text["example"]) == ["b", "1", "0.25", "7.0"]


def test_schema_for_finds_tables_by_their_path_from_the_root():
    assert schema_for("./report/tables/table1/counts.csv").name == "report/tables/table1/counts.csv"
    assert schema_for(Path("report/tables/findings") / "scorecard.csv").name == (
        "report/tables/findings/scorecard.csv")
    assert schema_for("report/tables/table1.md") is None
    assert schema_for("report/tables/nothing.csv") is None


# --------------------------------------------------------------------------- another dump


def test_names_that_come_from_the_data_are_patterns():
    table1 = pd.DataFrame({"project": ["new", "Sum"], "name": ["New", "All projects"],
                           "kind": ["unknown", ""], "2019": [2, 2], "2031": [0, 0],
                           "Feature": [2, 2], "Total": [2, 2]})
    schema_for("report/tables/table1/counts.csv").validate(table1)
    matrix = pd.DataFrame({"node": ["A.1", "C.11"], "P7": [1, 0], "d12": [0, 1]})
    schema_for("report/tables/interviews/matrix.csv").validate(matrix)
    targets = pd.DataFrame({"final_label": ["A.1", "other"], "A.1": [0, 3], "other": [1, 0]})
    rel = "report/tables/agreement/audit_targets.csv"
    schema_for(rel).validate(targets)
    schema_for(rel, targets).validate(targets)
    extra = targets.assign(total=[1, 3])
    with pytest.raises(UndocumentedColumnError, match="total"):  # not one of the rows
        data_dictionary(schema_for(rel, extra), extra)
    with pytest.raises(SchemaErrors, match="category columns differ"):
        schema_for(rel).validate(extra, lazy=True)


def test_issues_of_another_dump_validate_with_other_annotators_and_missing_ratings():
    issues = pd.read_csv(io.StringIO(
        "project,project_name,kind,host,issue_url,year,type,final_label,theme,annotator_2,"
        "annotator_11,n_ratings,source_file,source_line,flags\n"
        "x,x,unknown,unknown,https://example.org/x/issues/1,2019,Bug,C.1,Some theme,C.1,,1,"
        "Issue Report/x/x.csv,2,missing_rating\n"))
    schema = schema_for("data/processed/clean/issues.csv", issues)
    schema.validate(issues)
    dictionary = data_dictionary(schema, issues).set_index("column")
    assert dictionary.loc["annotator_11", "example"] == ""
    assert "Label<n>" in dictionary.loc["annotator_2", "meaning"]


def test_values_the_code_never_writes_are_rejected():
    cases = {
        "report/tables/compare/years.csv": {"year": [2024], "status": ["gone"],
                                            "baseline": [1], "current": [2], "change": [1],
                                            "change_percent": [100.0]},
        "report/tables/agreement/audit_final_by_project.csv": {
            "stratum": ["all"], "annotator": ["annotator_1"], "rated": [2], "equal": [3],
            "share": [1.5]},
        "report/tables/keywords/counts.csv": {"list": ["pytorch"], "raw": [-1],
                                              "distinct": ["many"], "distinct_casefold": [1]},
    }
    for rel, columns in cases.items():
        with pytest.raises(SchemaErrors):
            schema_for(rel).validate(pd.DataFrame(columns), lazy=True)
    blank = pd.DataFrame({"list": [""], "raw": ["1"], "distinct": ["1"],
                          "distinct_casefold": ["1"], "claim_id": ["keywords.count."]})
    with pytest.raises(SchemaErrors, match="empty cell"):
        schema_for("report/tables/keywords/counts.csv").validate(blank, lazy=True)


def test_empty_tables_of_a_dump_without_keywords_validate():
    frame = pd.read_csv(io.StringIO("list,raw,distinct,distinct_casefold,claim_id\n"))
    schema_for("report/tables/keywords/counts.csv").validate(frame)
