"""The stages' table declarations (``analysis/<stage>/schemas.yaml``) and the schemas
:mod:`analysis.core.table_schemas` builds from them: every stage's tables are declared once
and described, a column checks its values, and the format's pieces (kinds, options, words,
columns named by the rows) build what they say."""

from __future__ import annotations

import fnmatch
import tomllib

import pandas as pd
import pytest

from analysis.core import paths as paths_module
from analysis.core.columns import count, text
from analysis.core.paths import PACKAGE, ROOT, STAGES, stage_declaration
from analysis.core.pipeline import P, rel
from analysis.core.table_schemas import (
    SHARED_WORDS,
    column_of,
    expand,
    shared_words,
    stage_schemas,
    table_of,
)
from tests.support.table_checks import column_accepts, declared_problems

# --------------------------------------------------------------------------- every stage

# Per stage: a table, a column, a value it accepts and one it refuses.
ACCEPTS = {
    "clean": (P.clean.processed_file("exclusions.csv"), "recorded", True, "maybe"),
    "table1": (P.table1.table("false_positives.csv"), "false_positive_percent", 12.5, 120),
    "taxonomy": (P.taxonomy.table("types.csv"), "issues", 3, -1),
    "agreement": (P.agreement.table("statistics.csv"), "statistic", "gwet_ac1", "cohen"),
    "interviews": (P.interviews.processed_file("rejected.csv"), "reason", "no_role", "other"),
    "compare": (P.compare.table("projects.csv"), "status", "new", "gone"),
    "keywords": (P.keywords.table("audit.csv"), "kind", "exact_duplicate", "typo"),
    "findings": (P.findings.table("scorecard.csv"), "status", "exact", "close"),
    "explorer": (P.explorer.table("release_examples.csv"), "agreement", "contested", "split"),
}


def test_every_stage_has_an_example():
    assert set(ACCEPTS) == set(STAGES)


@pytest.mark.parametrize("stage", STAGES)
def test_every_csv_the_stage_writes_is_declared_and_described(stage):
    assert not declared_problems(stage, stage_schemas(stage))


@pytest.mark.parametrize("stage", STAGES)
def test_a_column_checks_its_values(stage):
    path, column, good, bad = ACCEPTS[stage]
    schemas = stage_schemas(stage)
    assert column_accepts(schemas, rel(path), column, good)
    assert not column_accepts(schemas, rel(path), column, bad)


@pytest.mark.parametrize("stage", STAGES)
def test_every_declared_file_has_a_description_and_only_csvs_have_columns(stage):
    declared = stage_declaration(stage)
    assert set(declared) <= {"words", "tables", "processed", "figures"}
    for section in ("tables", "processed"):
        for name, about in (declared.get(section) or {}).items():
            assert about["description"].strip(), name
            assert ("columns" in about) == name.endswith(".csv"), name
    for name, about in (declared.get("figures") or {}).items():
        assert isinstance(about, str) and about.strip(), name


def test_the_paths_list_the_declared_files_in_order():
    assert P.agreement.TABLES == tuple(stage_declaration("agreement")["tables"])
    assert P.agreement.FIGURES == tuple(stage_declaration("agreement")["figures"])
    assert P.agreement.STUDY_TABLES == ("batches.csv", "annotators_by_batch.csv",
                                        "pairs_by_batch.csv")
    assert P.compare.STUDY_TABLES == ("additions.csv", "drift.csv", "drift_tests.csv")
    assert "issues.parquet" in P.clean.PROCESSED and not P.clean.TABLES
    assert P.clean.STUDY_PROCESSED == ("people.csv",) and not P.agreement.STUDY_PROCESSED
    assert "details.html" in P.taxonomy.TABLES  # not a CSV: declared, without columns
    assert P.table1.FIGURES == ("counts",) and not P.clean.FIGURES


def test_a_stage_without_a_declaration_declares_nothing(monkeypatch, tmp_path):
    monkeypatch.setattr(paths_module, "PACKAGE", tmp_path)
    stage_declaration.cache_clear()
    try:
        assert stage_declaration("clean") == {}
    finally:
        stage_declaration.cache_clear()


def test_the_declarations_ship_with_the_package():
    """The wheel's package data (pyproject.toml) takes every declaration file."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["analysis"]
    files = [*PACKAGE.glob("*/schemas.yaml"), SHARED_WORDS]
    assert len(files) == len(STAGES) + 1
    for path in files:
        name = path.relative_to(PACKAGE).as_posix()
        assert any(fnmatch.fnmatch(name, g) for g in globs), name


# --------------------------------------------------------------------------- the format

WORDS = {"A": "alpha ({B})", "B": "beta", **shared_words()}


def test_words_are_expanded_in_turn_and_patterns_keep_their_braces():
    assert expand("{A} and {B}", WORDS, "t") == "alpha (beta) and beta"
    assert expand(r"^\d{4}$", WORDS, "t") == r"^\d{4}$"
    assert "agreement.confidence_level" in expand("{ANALYTIC}", WORDS, "t")


def test_an_unknown_word_names_its_place():
    with pytest.raises(ValueError, match=r"x.csv: column c: no word \{NOPE\}"):
        expand("{NOPE}", WORDS, "x.csv: column c")


def test_a_column_is_its_builder_with_the_options():
    col = column_of({"count": "things of {B}", "low": 1, "nullable": True}, WORDS, "t")
    expected = count("things of beta", low=1, nullable=True)
    assert col.description == expected.description
    assert [c.name for c in col.checks] == [c.name for c in expected.checks]
    assert col.nullable and col.metadata == {"type": "integer"}
    listed = column_of({"text": "a verdict", "words": "STATUSES"}, WORDS, "t")
    assert "exact" in listed.checks[1].statistics["enum"]
    assert column_of({"text": "u", "pattern": "{ISSUE_URL_PATTERN}"}, WORDS, "t"
                     ).checks[1].statistics["pattern"].startswith("^https?://")


@pytest.mark.parametrize("spec", [{"text": "a", "count": "b"}, {"description": "a"}])
def test_a_column_has_exactly_one_kind(spec):
    with pytest.raises(ValueError, match="give one kind"):
        column_of(spec, WORDS, "t")


SQUARE = {"description": "square", "columns_named_by": "final_label", "columns": {
    "final_label": {"text": "the row"},
    "^(?!final_label$).+$": {"count": "a category", "regex": True}}}


def test_columns_named_by_the_rows_are_checked_and_exact_with_the_table():
    frame = pd.DataFrame({"final_label": ["A.1", "B.2"], "A.1": [0, 1], "B.2": [2, 0]})
    generic = table_of("t.csv", SQUARE, WORDS)
    generic.validate(frame)
    with pytest.raises(Exception, match="columns_are_the_rows"):
        generic.validate(frame[["final_label", "B.2", "A.1"]])
    exact = table_of("t.csv", SQUARE, WORDS, names=["A.1", "B.2"])
    assert list(exact.columns) == ["final_label", "A.1", "B.2"]
    assert not any(c.regex for c in exact.columns.values())
    with pytest.raises(Exception, match="B.2"):
        exact.validate(frame.drop(columns="B.2"))


def test_the_agreement_targets_use_the_rows_when_at_hand():
    schemas = stage_schemas("agreement")
    key = rel(P.agreement.table("audit_targets.csv"))
    frame = pd.DataFrame({"final_label": ["A.1"], "A.1": [0]})
    assert list(schemas.schema_for(key, frame).columns) == ["final_label", "A.1"]
    assert schemas.schema_for(key, frame.drop(columns="final_label")) is schemas.tables[key]


def test_builders_accept_the_regex_option():
    assert text("names from the data", regex=True).regex


# --------------------------------------------------------------------------- shared fields

def test_a_field_fills_in_kind_description_and_checks():
    from analysis.core.table_schemas import with_field

    fields = {"project": {"text": "the project's folder name", "words": ["a", "b"]}}
    assert with_field({"field": "project"}, fields, "t") == fields["project"]
    assert with_field({"field": "project", "also": "`Sum` on the last row", "nullable": True},
                      fields, "t") == {"text": "the project's folder name; `Sum` on the last row",
                                       "words": ["a", "b"], "nullable": True}
    assert with_field({"count": "n"}, fields, "t") == {"count": "n"}
    with pytest.raises(ValueError, match="t: no field 'projekt'.*fields: project"):
        with_field({"field": "projekt"}, fields, "t")


def test_a_column_several_tables_share_is_declared_once():
    """No column is declared in full, word for word, in two tables: the second names the
    field of core/columns.yaml (docs/adding-a-stage.md, "Declaring the tables")."""
    import json
    from collections import Counter

    seen: Counter = Counter()
    for stage in STAGES:
        declared = stage_declaration(stage)
        for section in ("tables", "processed"):
            for spec in (declared.get(section) or {}).values():
                for name, col in (spec.get("columns") or {}).items():
                    if "field" not in col:
                        seen[(name, json.dumps(col, sort_keys=True))] += 1
    assert [key for key, n in seen.items() if n > 1] == []
