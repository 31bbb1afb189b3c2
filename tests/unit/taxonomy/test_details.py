"""The detail-file parser: malformed CSV recovery, item splitting, name mapping."""

from __future__ import annotations

import csv
import io

import pytest

from analysis.core.errors import InputError
from analysis.core.taxonomy import load_taxonomy
from analysis.taxonomy.details import RULES, parse_detail_files, recover_line, split_items
from tests.support.mirror import MIRROR, needs_mirror, paper
from tests.support.taxonomy_fixtures import (
    HEADER,
    detail_line,
    small_detail_files,
    write_detail_files,
    write_small_taxonomy,
)


@pytest.fixture
def small(tmp_path):
    return load_taxonomy(write_small_taxonomy(tmp_path))


def kinds(result) -> dict[str, int]:
    return result.quality["anomaly_counts"]


def test_unescaped_quotes_are_recovered_without_loss(tmp_path, small):
    files = small_detail_files(tmp_path)
    raw = (tmp_path / "r.csv").read_text(encoding="utf-8").splitlines()[1]
    assert len(next(csv.reader(io.StringIO(raw)))) != 3  # the same defect as released
    result = parse_detail_files(tmp_path, files, small)
    row = result.rows[(result.rows["file"] == "r.csv") & (result.rows["line"] == 2)].iloc[0]
    assert row["recovery"] == "unescaped_quotes"
    assert (row["theme_code"], row["subtheme_code"]) == ("B.1", "B.1.i")
    items = result.items[(result.items["file"] == "r.csv") & (result.items["line"] == 2)]
    assert items["detail"].tolist() == ['support "npu" backend', 'support "xpu"']
    anomaly = [a for a in result.quality["anomalies"] if a["kind"] == "unescaped_quotes"]
    assert len(anomaly) == 1 and anomaly[0]["line"] == 2 and '"npu"' in anomaly[0]["message"]
    assert result.quality["summary"]["rows_recovered"] == 1


def test_recovered_cell_is_byte_for_byte_the_raw_text():
    cell = 'only "cuda" policy、extend "cpu" and "auto",next item'
    got = recover_line(f'Theme,Sub,"{cell}"')
    assert got == ("Theme", "Sub", cell, "unescaped_quotes")


@pytest.mark.parametrize("line, details, kind", [
    ('T,S,"a,b', "a,b", "unclosed_quote"),
    ("T,S,a,b,c", "a,b,c", "unquoted_details"),
    ('"T, quoted",S,"x ""y"" z"', 'x "y" z', "unescaped_quotes"),
])
def test_other_recoverable_defects(line, details, kind):
    got = recover_line(line)
    assert got is not None and got[2] == details and got[3] == kind


def test_unclosed_quote_line_is_recovered_and_next_rows_survive(tmp_path, small):
    text = (HEADER + 'Usage Gaps,Unclear Docs,"a "b,c\n'
            + detail_line("Install Trouble", "Missing Packages", ["x", "y"]))
    files = write_detail_files(tmp_path, {"q.csv": text})
    result = parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    assert result.rows["subtheme_code"].tolist() == ["A.2.i", "A.1.i"]
    assert result.rows["items_comma"].tolist() == [2, 2]
    assert files


def test_unrecoverable_line_stops_with_file_and_line(tmp_path, small):
    text = HEADER + detail_line("Usage Gaps", "Unclear Docs", ["a"]) + 'just "one cell\n'
    write_detail_files(tmp_path, {"q.csv": text})
    with pytest.raises(InputError) as err:
        parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    assert err.value.file == "q.csv" and err.value.line == 3
    assert "theme,sub-theme,details" in str(err.value)


def test_missing_file_is_reported_not_fatal(tmp_path, small):
    files = small_detail_files(tmp_path)
    result = parse_detail_files(tmp_path, {**files, "Question": "absent.csv"}, small)
    assert result.quality["summary"]["missing_types"] == ["Question"]
    assert kinds(result)["missing_file"] == 1
    assert set(result.rows["type"]) == {"Requirement"}
    assert result.quality["summary"]["balanced"]


@pytest.mark.parametrize("named", ["absolute", "../outside/q.csv", "linked.csv"])
def test_a_detail_file_outside_the_dump_is_refused_not_read(tmp_path, small, named):
    """An absolute path, ``..`` or a link out of the dump would put another file's text
    and path into the rows, the quality record and the site."""
    raw, outside = tmp_path / "raw", tmp_path / "outside"
    write_detail_files(outside, {"q.csv": HEADER + detail_line("Usage Gaps", "Unclear Docs",
                                                               ["a"])})
    raw.mkdir()
    (raw / "linked.csv").symlink_to(outside / "q.csv")
    value = str(outside / "q.csv") if named == "absolute" else named
    with pytest.raises(InputError) as err:
        parse_detail_files(raw, {"Question": value}, small)
    assert str(err.value).startswith(
        f"params.yaml, column 'taxonomy.detail_files.Question': taxonomy.detail_files."
        f"Question is {value!r}: ")
    assert str(err.value).endswith("-> set taxonomy.detail_files.Question in params.yaml "
                                   "to a file of the dump, relative to data/raw/")


def test_bad_header_and_unknown_type_stop(tmp_path, small):
    write_detail_files(tmp_path, {"q.csv": "a,b\n"})
    with pytest.raises(InputError, match="header has 2 columns"):
        parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    with pytest.raises(InputError, match="unknown issue types"):
        parse_detail_files(tmp_path, {"Questions": "q.csv"}, small)


def test_not_utf8_stops(tmp_path, small):
    (tmp_path / "q.csv").write_bytes(HEADER.encode() + b"T,S,\"\xff\"\n")
    with pytest.raises(InputError, match="not UTF-8") as err:
        parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    assert err.value.line == 2


def test_bom_cr_and_crlf_line_endings_are_told_apart(tmp_path, small):
    body = HEADER + "\r\n" + detail_line("Usage Gaps", "Unclear Docs", ["a"]) + "\r"
    (tmp_path / "q.csv").write_bytes(b"\xef\xbb\xbf" + body.encode())
    result = parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    found = [a for a in result.anomalies if a.kind.endswith("line_endings") or a.kind == "utf8_bom"]
    assert [(a.kind, a.action) for a in found] == [("utf8_bom", "kept"),
                                                   ("crlf_line_endings", "kept"),
                                                   ("cr_line_endings", "kept")]


def test_bom_crlf_and_blank_lines(tmp_path, small):
    body = HEADER + "\n" + detail_line("Usage Gaps", "Unclear Docs", ["a", "b"])
    (tmp_path / "q.csv").write_bytes(b"\xef\xbb\xbf" + body.replace("\n", "\r\n").encode())
    result = parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    assert result.rows["items_comma"].tolist() == [2]
    assert {"utf8_bom", "crlf_line_endings", "blank_line"} <= set(kinds(result))
    assert result.rows["line"].tolist() == [3]


def test_split_items_counts_both_ways():
    items, notes = split_items("a, b (e.g., c, d) e,,f（x, y）, g")
    assert [t for t, _ in items] == ["a", "b (e.g., c, d) e", "f（x, y）", "g"]
    assert sum(p for _, p in items) == 7  # every non-empty comma piece, as the paper counts
    assert notes["empty"] == 1 and notes["merged"] == 2
    items, notes = split_items("a (open, b, c")
    assert [t for t, _ in items] == ["a (open", "b", "c"] and notes["unbalanced"] == 1
    assert split_items("  ") == ([], {"empty": 0, "whitespace": 0, "merged": 0,
                                      "unbalanced": 0})


def test_counts_and_spellings_on_the_small_taxonomy(tmp_path, small):
    result = parse_detail_files(tmp_path, small_detail_files(tmp_path), small)
    by_type = result.rows.groupby("type")[["items_comma", "items_parentheses"]].sum()
    assert by_type.loc["Question"].tolist() == [7, 6]
    assert by_type.loc["Requirement"].tolist() == [6, 6]
    assert result.rows["subtheme_code"].tolist() == ["A.1.i", "A.1.ii", "A.2.i", "B.1.i",
                                                     "B.1.ii", "B.1.x1"]
    # aliases are reported once per spelling and file, naming every line
    alias = [a for a in result.quality["anomalies"] if a["kind"] == "theme_alias"]
    assert sorted(a["value"] for a in alias) == ["Feature Wish", "Install Troubles"]
    assert kinds(result)["subtheme_not_in_paper"] == 1
    assert kinds(result)["comma_in_parentheses"] == 1
    assert result.quality["summary"]["balanced"]


def test_unknown_names_are_reported_not_dropped(tmp_path, small):
    text = (HEADER + detail_line("Mystery Theme", "Whatever", ["a", "b"])
            + detail_line("Usage Gaps", "Version Clash", ["c"])   # names A.1.ii / B.1.ii
            + detail_line("Usage Gaps", "Brand New", ["d"])
            + detail_line("Feature Wishes", "New Hardware", ["e"]))  # a Requirement theme
    write_detail_files(tmp_path, {"q.csv": text})
    result = parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    assert len(result.rows) == 4 and result.rows["items_comma"].sum() == 5
    counts = kinds(result)
    assert counts["unknown_theme"] == 1 and counts["unknown_subtheme"] == 1
    assert counts["subtheme_theme_mismatch"] == 1 and counts["theme_type_mismatch"] == 1
    mismatch = [a for a in result.quality["anomalies"] if a["kind"] == "subtheme_theme_mismatch"]
    assert "A.1.ii, B.1.ii" in mismatch[0]["message"]
    assert result.quality["summary"]["unmapped_themes"] == ["Mystery Theme"]
    assert result.quality["summary"]["unmapped_subthemes"] == ["Brand New", "Version Clash",
                                                               "Whatever"]


def test_duplicates_and_missing_subthemes(tmp_path, small):
    text = (HEADER + detail_line("Usage Gaps", "Unclear Docs", ["a", "a"])
            + detail_line("Usage Gaps", "Unclear Docs", ["b"]))
    write_detail_files(tmp_path, {"q.csv": text})
    result = parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    counts = kinds(result)
    assert counts["duplicate_item"] == 1 and counts["duplicate_subtheme"] == 1
    assert counts["missing_subtheme"] == 2  # A.1.i and A.1.ii have no row
    assert result.rows["items_comma"].sum() == 3


def test_every_rule_is_documented():
    for kind, rule in RULES.items():
        assert rule.description and rule.action in ("kept", "set_aside", "ignored", "stop"), kind


@needs_mirror
def test_released_detail_files(taxonomy):
    files = {"Question": "Issue Report/question_intents.csv",
             "Requirement": "Issue Report/requirement_expections.csv",
             "Bug": "Issue Report/bug_symptoms.csv"}
    result = parse_detail_files(MIRROR, files, taxonomy)
    rows = result.rows
    assert rows.groupby("type")["items_comma"].sum().to_dict() == {
        t: paper(f"taxonomy.details.{t.lower()}") for t in ("Bug", "Question", "Requirement")}
    assert int(rows.loc[rows["type"] == "Bug", "items_parentheses"].sum()) == 1574
    assert len(rows) == 70 and (rows["theme_code"] != "").all()
    assert (rows["subtheme_code"] != "").all()  # every released spelling maps to a code
    fixed = rows[rows["recovery"] != ""]
    assert fixed[["file", "line", "items_comma"]].values.tolist() == [
        ["Issue Report/requirement_expections.csv", 4, 23]]
    assert set(result.quality["summary"]["unmapped_themes"]) == set()
    assert "unknown_theme" not in result.quality["anomaly_counts"]
