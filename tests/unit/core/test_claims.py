"""Claims: parsing printed numbers, judging a value against one, the claims file."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest

from analysis.core.claims import (
    format_value,
    judge,
    load_claims,
    paper_statement,
    parse_printed,
    parse_relation,
)
from analysis.core.errors import InputError


@pytest.mark.parametrize("printed,expected", [
    ("1,234", (Decimal("1234"), 0, False)),
    ("12.34%", (Decimal("12.34"), 2, True)),
    ("0.512", (Decimal("0.512"), 3, False)),
    ("0.710", (Decimal("0.710"), 3, False)),
    (42, (Decimal("42"), 0, False)),
])
def test_parse_printed(printed, expected):
    assert parse_printed(printed) == expected


def test_parse_printed_rejects_words():
    with pytest.raises(ValueError):
        parse_printed("about two")


@pytest.mark.parametrize("paper,ours,relation,status", [
    ("1,234", 1234, "eq", "exact"),
    ("1,234", 1235, "eq", "rounding"),
    ("1,234", 1240, "eq", "differs"),
    ("0.512", 0.51245, "eq", "exact"),
    ("0.512", 0.5125, "eq", "rounding"),  # half-up gives 0.513
    ("0.512", 0.5129, "eq", "rounding"),
    ("0.512", 0.5136, "eq", "differs"),
    ("0.512", 0.5150, "eq", "differs"),
    ("2.50%", 2.498999, "eq", "exact"),
    ("45.67%", 45.6715, "eq", "exact"),
    ("8", 7, "gt", "differs"),
    ("3", 4, "gt", "exact"),
    ("3", 3, "gt", "differs"),
    ("3", 3, "ge", "exact"),
    ("3", None, "eq", "not_reproducible"),
    ("3", float("nan"), "eq", "not_reproducible"),
])
def test_judge(paper, ours, relation, status):
    assert judge(paper, ours, relation) == status


def test_format_value():
    assert format_value(1234, "1,234") == "1,234"
    assert format_value(2.498999, "2.50%") == "2.4990%"
    assert format_value(None, "3") == ""
    assert format_value(2023, "2023") == "2023"  # a year stays a year
    assert format_value(2091, "2,091") == "2,091" and format_value(38742, "38742") == "38,742"
    assert format_value(4, "3") == "4" and format_value(12000, "1") == "12,000"


def write_claims(tmp_path, body: str):
    path = tmp_path / "claims.yaml"
    path.write_text("claims:\n" + body)
    return path


@pytest.mark.parametrize("body,match", [
    ('  - {id: a, value: "1"}\n  - {id: a, value: "2"}\n', "duplicate claim ids"),
    ('  - {id: a}\n', "needs an id and a value"),
    ('  - {id: a, value: "many"}\n', "as printed"),
    ('  - {id: a, value: "1", relation: lt}\n', "relation"),
])
def test_bad_claims_files(tmp_path, body, match):
    with pytest.raises(InputError, match=match):
        load_claims(write_claims(tmp_path, body))


def test_project_claims_file_is_valid_and_table1_complete():
    claims = load_claims()
    assert claims["claim_id"].is_unique
    table1 = claims[claims["claim_id"].str.startswith("table1.")]
    # 11 projects + Sum, 6 count columns each; 11 false-positive rates and their average
    counts = table1[~table1["claim_id"].str.startswith("table1.share.") &
                    table1["claim_id"].str.match(r"^table1\.[^.]+\.(20\d\d|question|bug|"
                                                 r"requirement)$")]
    assert len(counts) == 12 * 6
    fp = table1[table1["claim_id"].str.endswith(".false_positive")]
    assert len(fp) == 11 and not fp["reproducible"].any()
    assert (fp["reason"].str.len() > 0).all()
    assert isinstance(claims, pd.DataFrame)


def test_every_count_of_table1_and_the_window_is_a_count_claim():
    """A count is right or wrong: 8 issues are not 7 'within rounding' (a study that adds
    one report to a cell must not read as a rounding of the paper's value)."""
    claims = load_claims()
    ids = claims["claim_id"]
    counted = claims[(ids.str.startswith("table1.") & ~claims["paper_value"].str.endswith("%"))
                     | ids.str.startswith("collection.window.")
                     & ids.str.endswith("_year")]
    assert len(counted) == 12 * 6 + 1 + 3 + 2  # the cells, the total, the projects, years
    assert set(counted["kind"]) == {"count"}, \
        sorted(counted.loc[counted["kind"] != "count", "claim_id"])
    for cid in ("table1.mindnlp.question", "table1.ColossalAI.bug",
                "collection.window.last_year"):
        row = claims.set_index("claim_id").loc[cid]
        ours = float(str(row["paper_value"]).replace(",", "")) + 1
        assert judge(row["paper_value"], ours, row["relation"], row["kind"]) == "differs"


@pytest.mark.parametrize("paper,ours,relation,status", [
    ("3", 3, ">", "differs"),        # "over three": three is not over three
    ("3", 4, ">", "exact"),
    ("8", 8, ">=", "exact"),
    ("8", 7.9, ">=", "differs"),
    ("5", 4, "<", "exact"),
    ("5", 5, "<", "differs"),
    ("5", 5, "<=", "exact"),
    ("2", 2.19, "~", "exact"),       # within 10% of 2
    ("2", 2.21, "~", "differs"),
    ("3", 4, "gt", "exact"),         # the older spelling still reads
])
def test_judge_honours_the_comparator(paper, ours, relation, status):
    assert judge(paper, ours, relation) == status


def test_judge_labels_compare_theme_codes():
    assert judge("C.1", "C.1", "=", "label") == "exact"
    assert judge("C.1", "B.1", "=", "label") == "differs"
    assert judge("C.1", None, "=", "label") == "not_reproducible"
    assert format_value("B.1", "C.1", "label") == "B.1"


def test_relation_spellings_and_display():
    assert parse_relation("gt") == ">" and parse_relation(">=") == ">="
    assert parse_relation("") is None and parse_relation("more") is None
    assert paper_statement("3", ">") == ">3"
    assert paper_statement("8", ">=") == "≥8"
    assert paper_statement("1,234", "=") == "1,234"
    assert paper_statement("2", "~") == "~2"


def test_an_unquoted_comparator_is_one_clear_error(tmp_path):
    # YAML reads a bare `>` as a folded block: the value arrives as text, not a symbol
    f = tmp_path / "claims.yaml"
    f.write_text("claims:\n  - id: a.b\n    value: '3'\n    relation: >\n  - id: c\n"
                 "    value: '1'\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"relation .* is not one of.*quoted"):
        load_claims(f)


def test_the_claims_file_uses_only_known_comparators():
    claims = load_claims()
    assert set(claims["relation"]) <= {"=", ">", ">=", "<", "<=", "~"}
    assert claims.set_index("claim_id").loc["interviews.users.engineers.min_years",
                                            "relation"] == ">"
