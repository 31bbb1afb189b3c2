"""Unit tests of the clean stage on synthetic dumps: every anomaly kind, the accounting."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analysis.clean.compute import RULES, clean_dump
from analysis.clean.rules import majority_label, repo_of
from analysis.clean.scan import EXCLUDED_COLUMNS
from analysis.core.errors import InputError
from tests.support.dumps import Project, expected_counts, write_dump


def run(root: Path, taxonomy, meta, **kw):
    return clean_dump(root, taxonomy, meta, **kw)


def label_file(root: Path, project: str) -> Path:
    return root / "Issue Report" / project / f"{project}.csv"


def kinds(result) -> dict[str, int]:
    return result.quality["anomaly_counts"]


def assert_balanced(result):
    q = result.quality
    assert q["summary"]["balanced"]
    for f in q["files"]:
        assert f["input"] == f["kept"] + f["set_aside"], f
    labels = q["accounting"]["labels"]
    assert labels["kept"] == len(result.issues)
    assert labels["set_aside"] == int((result.rejected["source_file"].str.endswith(".csv")).sum())


def test_clean_dump_counts_match_what_was_written(dump, taxonomy, projects_meta):
    root, written = dump
    result = run(root, taxonomy, projects_meta)
    expected = expected_counts(written)
    assert len(result.issues) == sum(e["total"] for e in expected.values())
    for name, exp in expected.items():
        sel = result.issues[result.issues["project"] == name]
        assert sel.groupby("year").size().to_dict() == {y: n for y, n in exp["years"].items()
                                                        if n}
        assert sel["type"].value_counts().to_dict() == exp["types"]
    assert result.annotators == [f"annotator_{i}" for i in range(1, 8)]
    assert kinds(result) == {"empty_file": 1}  # MindSpeed_2023.txt is empty
    assert_balanced(result)


def test_issue_columns_and_order(dump, taxonomy, projects_meta):
    root, _ = dump
    issues = run(root, taxonomy, projects_meta).issues
    for col in ["project", "issue_url", "year", "type", "final_label", "annotator_1",
                "annotator_7", "project_name", "kind", "theme", "flags"]:
        assert col in issues.columns
    # Table I order: pytorch (1) before vllm (6) before MindSpeed (10)
    assert list(dict.fromkeys(issues["project"])) == ["pytorch", "vllm", "MindSpeed"]
    assert issues.loc[issues["project"] == "MindSpeed", "project_name"].iloc[0] == "MindSpeed"
    assert set(issues["type"]) <= {"Question", "Requirement", "Bug"}


def test_unknown_project_and_new_year_are_processed(tmp_path, taxonomy, projects_meta):
    root = tmp_path / "d"
    write_dump(root, [Project("sglang", {2025: 3, 2026: 4}), Project("pytorch", {2026: 2})])
    result = run(root, taxonomy, projects_meta)
    assert kinds(result)["unknown_project"] == 1
    assert set(result.issues["year"]) == {2025, 2026}
    sg = result.issues[result.issues["project"] == "sglang"]
    assert len(sg) == 7 and set(sg["project_name"]) == {"sglang"} and set(sg["kind"]) == {
        "unknown"}


def test_five_annotators_are_discovered(tmp_path, taxonomy, projects_meta):
    root = tmp_path / "d"
    write_dump(root, [Project("pytorch", {2024: 5}, annotators=5)])
    result = run(root, taxonomy, projects_meta)
    assert result.annotators == [f"annotator_{i}" for i in range(1, 6)]


def test_row_level_defects_are_set_aside_with_reasons(dump, taxonomy, projects_meta):
    root, written = dump
    path = label_file(root, "pytorch")
    lines = path.read_text().splitlines()
    url = lines[1].split(",")[0]
    lines.insert(2, "")  # blank row
    lines.append("https://github.com/pytorch/pytorch/issues/9,C.1,C.1")  # malformed
    lines.append("not-a-url," + ",".join(["C.1"] * 8))  # invalid url
    lines.append("https://github.com/pytorch/pytorch/issues/10," + ",".join(["C.1"] * 7) + ",")
    lines.append("https://github.com/pytorch/pytorch/issues/11," + ",".join(["C.1"] * 7) +
                 ",C.99")  # unknown final label
    lines.append("https://github.com/pytorch/pytorch/issues/12," + ",".join(["C.2"] * 8))
    path.write_text("\n".join(lines) + "\n")
    result = run(root, taxonomy, projects_meta)
    reasons = result.quality["rejected_by_reason"]
    assert reasons == {"blank_row": 1, "malformed_row": 1, "invalid_url": 1,
                       "missing_final_label": 1, "unknown_final_label": 1, "no_year": 1}
    rej = result.rejected.set_index("reason")
    assert rej.loc["blank_row", "source_line"] == 3
    assert "issues/12" in rej.loc["no_year", "raw"]
    assert url in set(result.issues["issue_url"])
    assert_balanced(result)
    assert len(result.issues) == sum(len(r) for r in written.values())


def test_kept_row_flags(dump, taxonomy, projects_meta):
    root, _ = dump
    path = label_file(root, "vllm")
    lines = path.read_text().splitlines()
    first = lines[1].split(",")
    first[1] = ""  # missing rating
    first[2] = "X.9"  # unknown annotator label
    first[3] = " " + first[3]  # whitespace
    lines[1] = ",".join(first)
    second = lines[2].split(",")
    second[-1] = "A.1" if second[1] != "A.1" else "A.2"  # final label != majority
    second[1:8] = ["B.1"] * 7
    lines[2] = ",".join(second)
    third = lines[3].split(",")
    third[1:8] = ["C.1", "C.1", "C.1", "C.2", "C.2", "C.2", ""]  # tie
    lines[3] = ",".join(third)
    path.write_text("\n".join(lines) + "\n")
    result = run(root, taxonomy, projects_meta)
    k = kinds(result)
    assert k["missing_rating"] == 2 and k["unknown_label"] == 1 and k["whitespace"] == 1
    assert k["final_not_majority"] == 1 and k["majority_tie"] == 1
    iss = result.issues
    row = iss[(iss["project"] == "vllm") & (iss["source_line"] == 2)].iloc[0]
    assert row["annotator_1"] is None and row["annotator_2"] == "X.9"
    assert set(row["flags"].split(";")) >= {"missing_rating", "unknown_label", "whitespace"}
    assert row["n_ratings"] == 6
    assert_balanced(result)


@pytest.mark.parametrize("policy,kept", [("keep", 2), ("first", 1)])
def test_duplicate_urls_follow_the_policy(dump, taxonomy, projects_meta, policy, kept):
    root, _ = dump
    path = label_file(root, "pytorch")
    lines = path.read_text().splitlines()
    lines.insert(2, lines[1])
    path.write_text("\n".join(lines) + "\n")
    year = root / "Issue Report/pytorch/pytorch_2023.txt"
    ylines = year.read_text().splitlines()
    year.write_text("\n".join([ylines[0], *ylines]) + "\n")
    result = run(root, taxonomy, projects_meta, duplicates=policy)
    url = lines[1].split(",")[0]
    assert (result.issues["issue_url"] == url).sum() == kept
    assert kinds(result)["duplicate_url"] == 2
    assert_balanced(result)


def test_year_file_defects(dump, taxonomy, projects_meta):
    root, _ = dump
    year = root / "Issue Report/vllm/vllm_2024.txt"
    text = year.read_text()
    year.write_text(text + "\nnot a url\nhttps://github.com/vllm-project/vllm/issues/77777\n")
    result = run(root, taxonomy, projects_meta)
    k = kinds(result)
    assert k["year_blank_line"] == 1 and k["year_line_not_url"] == 1
    assert k["unlabelled_year_url"] == 1
    f = next(f for f in result.quality["files"] if f["file"].endswith("vllm_2024.txt"))
    assert f["set_aside"] == 3 and f["input"] == f["kept"] + 3
    assert_balanced(result)


def test_url_in_two_year_files(dump, taxonomy, projects_meta):
    root, _ = dump
    y23 = root / "Issue Report/pytorch/pytorch_2023.txt"
    y24 = root / "Issue Report/pytorch/pytorch_2024.txt"
    first = y23.read_text().splitlines()[0]
    y24.write_text(y24.read_text() + first + "\n")
    result = run(root, taxonomy, projects_meta)
    k = kinds(result)
    assert k["url_in_multiple_years"] == 1 and k["surplus_year_line"] == 1
    assert result.issues.loc[result.issues["issue_url"] == first, "year"].tolist() == [2023]


def test_encoding_quirks_are_normalised(dump, taxonomy, projects_meta):
    root, written = dump
    path = label_file(root, "pytorch")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_text().replace("\n", "\r\n").encode())
    y = root / "Issue Report/pytorch/pytorch_2024.txt"
    y.write_bytes(y.read_text().replace("\n", "\r\n").encode())
    result = run(root, taxonomy, projects_meta)
    k = kinds(result)
    assert k["utf8_bom"] == 1 and k["crlf_line_endings"] == 2
    assert len(result.issues) == sum(len(r) for r in written.values())


def test_foreign_repo_and_cross_project_urls(dump, taxonomy, projects_meta):
    root, _ = dump
    path = label_file(root, "vllm")
    lines = path.read_text().splitlines()
    py_url = label_file(root, "pytorch").read_text().splitlines()[1].split(",")[0]
    row = lines[1].split(",")
    old = row[0]
    row[0] = py_url
    lines[1] = ",".join(row)
    path.write_text("\n".join(lines) + "\n")
    for y in (root / "Issue Report/vllm").glob("vllm_*.txt"):
        y.write_text(y.read_text().replace(old + "\n", py_url + "\n"))
    result = run(root, taxonomy, projects_meta)
    k = kinds(result)
    assert k["foreign_repo_url"] == 1
    assert k["cross_project_duplicate"] == 2


def test_layout_quirks(dump, taxonomy, projects_meta):
    root, _ = dump
    folder = root / "Issue Report/vllm"
    (folder / "notes.md").write_text("hello")
    path = label_file(root, "vllm")
    lines = path.read_text().splitlines()
    lines = [lines[0] + ",Comment"] + [line + ",x" for line in lines[1:]]
    path.write_text("\n".join(lines) + "\n")
    result = run(root, taxonomy, projects_meta)
    k = kinds(result)
    assert k["unexpected_file"] == 1 and k["extra_column"] == 1


@pytest.mark.parametrize("defect,expect", [
    ("no_label_file", "has no label file"),
    ("missing_column", "missing column(s) Final_Label"),
    ("not_utf8", "not UTF-8"),
    ("no_issue_dir", "no 'Issue Report' folder"),
])
def test_fatal_defects_stop_with_one_clear_message(dump, taxonomy, projects_meta, defect,
                                                   expect):
    root, _ = dump
    path = label_file(root, "vllm")
    if defect == "no_label_file":
        path.unlink()
    elif defect == "missing_column":
        lines = path.read_text().splitlines()
        lines = [",".join(line.split(",")[:-1]) for line in lines]
        path.write_text("\n".join(lines) + "\n")
    elif defect == "not_utf8":
        path.write_bytes(path.read_bytes() + "https://x.org/a/b/issues/1,caf\u00e9\n".encode("latin-1"))
    elif defect == "no_issue_dir":
        (root / "Issue Report").rename(root / "Issues")
    with pytest.raises(InputError) as info:
        run(root, taxonomy, projects_meta)
    message = str(info.value)
    assert expect in message
    assert "->" in message  # says what to do
    if defect != "no_issue_dir":
        assert "vllm" in message


def test_empty_label_file_is_reported_not_fatal(dump, taxonomy, projects_meta):
    root, written = dump
    label_file(root, "vllm").write_text("")
    result = run(root, taxonomy, projects_meta)
    assert kinds(result)["empty_file"] == 2  # + MindSpeed_2023.txt
    assert "vllm" not in set(result.issues["project"])
    assert kinds(result)["unlabelled_year_url"] == len(written["vllm"])


def test_every_rule_is_documented():
    for kind, rule in RULES.items():
        assert rule.action in {"kept", "set_aside", "ignored", "stop"}, kind
        assert rule.severity in {"info", "warning", "error"}, kind
        assert len(rule.description) > 20, kind


def test_majority_label_and_repo():
    assert majority_label(["a", "a", "b", None]) == ("a", False)
    assert majority_label(["a", "b"]) == (None, True)
    assert majority_label([None, None]) == (None, False)
    assert repo_of("https://github.com/o/r/issues/1") == "github.com/o/r"


def test_excluded_candidates_are_counted_never_as_issues(dump, taxonomy, projects):
    """A project's ``<Project>_excluded.csv`` (written by the labels merge): its valid rows
    are the excluded candidates; blank lines, bad URLs, URLs that also have a label row
    and repeats are set aside with their rule; the exclusions table gives Table I its
    denominators, and a project without the file records nothing."""
    root, written = dump
    labelled = written["pytorch"][0][1][0]
    (root / "Issue Report" / "pytorch" / "pytorch_excluded.csv").write_text(
        "Issue_URL,Created_At\n"
        "https://github.com/pytorch/pytorch/issues/9001,2024-02-01T00:00:00Z\n"
        "\n"
        "not a url,2024-02-01\n"
        f"{labelled},2023-05-05\n"
        "https://github.com/pytorch/pytorch/issues/9001,2024-02-01T00:00:00Z\n"
        "https://github.com/pytorch/pytorch/issues/9002,someday\n", encoding="utf-8")
    result = clean_dump(root, taxonomy, projects)
    assert len(result.issues) == sum(len(r) for r in written.values())
    assert "https://github.com/pytorch/pytorch/issues/9001" not in set(
        result.issues["issue_url"])
    ex = result.excluded
    assert ex["issue_url"].tolist() == ["https://github.com/pytorch/pytorch/issues/9001",
                                        "https://github.com/pytorch/pytorch/issues/9002"]
    assert ex["year"].tolist()[0] == 2024 and pd.isna(ex["year"].tolist()[1])
    assert ex["source_line"].tolist() == [2, 7]
    rej = result.rejected[result.rejected["source_file"].str.endswith("_excluded.csv")]
    assert dict(zip(rej["source_line"], rej["reason"], strict=True)) == {
        3: "excluded_blank_row", 4: "excluded_invalid_url", 5: "excluded_also_labelled",
        6: "excluded_duplicate_url"}
    acc = result.quality["accounting"]["excluded"]
    assert acc == {"input": 6, "kept": 2, "set_aside": 4}
    assert result.quality["summary"]["balanced"]
    rows = result.exclusions.set_index("project")
    n = len(written["pytorch"])
    assert rows.loc["pytorch"].tolist() == [True, n, 2, n + 2]
    assert not rows.loc["vllm", "recorded"] and pd.isna(rows.loc["vllm", "candidates"])
    assert list(result.exclusions["project"]) == projects.order(written)


def test_a_study_dump_keeps_each_rows_batch_and_counts_exclusions_per_batch(
        tmp_path, taxonomy, projects_meta):
    """A study (release + batch b): the batch of every issue and excluded candidate; the
    false-positive counts per batch (the release's rows are not candidates of b); a
    decided tie is not flagged a majority tie."""
    from tests.support.studies import ADJUDICATED, write_study
    result = run(write_study(tmp_path / "study"), taxonomy, projects_meta)
    assert list(result.issues.columns)[-1] == "batch"
    assert result.issues.set_index("issue_url")["batch"].to_dict() == {
        "https://github.com/vllm-project/vllm/issues/1001": "release",
        "https://github.com/vllm-project/vllm/issues/1002": "release",
        "https://github.com/vllm-project/vllm/issues/1003": "release",
        "https://github.com/vllm-project/vllm/issues/1": "b", ADJUDICATED: "b"}
    assert "extra_column" not in kinds(result)  # Batch is read, not an extra column
    assert kinds(result).get("majority_tie", 0) == 1  # release 1003 (B.2/B.1), not 2
    # another batch's columns are empty by construction, not missing ratings
    assert "missing_rating" not in kinds(result)
    assert list(result.excluded["batch"]) == ["b", "b"]
    # one line per project and batch: the release records none, b its own
    ex = result.exclusions.set_index(["project", "batch"])
    assert list(ex.index) == [("tensorflow", "b"), ("vllm", "release"), ("vllm", "b")]
    assert (ex.loc[("vllm", "b"), "label_rows"], ex.loc[("vllm", "b"), "excluded"],
            ex.loc[("vllm", "b"), "candidates"]) == (2, 1, 3)
    assert not ex.loc[("vllm", "release"), "recorded"]
    assert ex.loc[("vllm", "release"), "label_rows"] == 3
    assert pd.isna(ex.loc[("vllm", "release"), "candidates"])
    assert (ex.loc[("tensorflow", "b"), "label_rows"],
            ex.loc[("tensorflow", "b"), "excluded"]) == (0, 1)
    assert ex.loc[[("vllm", "b"), ("tensorflow", "b")], "recorded"].all()
    # who labelled in which column, as labels/batches.json says (it names nobody here)
    assert list(result.people.itertuples(index=False, name=None)) == [
        ("release", "Label1", "annotator_1", None), ("release", "Label2", "annotator_2", None),
        ("b", "Label3", "annotator_3", None), ("b", "Label4", "annotator_4", None)]


def test_a_dump_without_batches_has_no_batch_column(dump, taxonomy, projects_meta):
    root, _ = dump
    result = run(root, taxonomy, projects_meta)
    assert "batch" not in result.issues.columns
    assert "batch" not in result.excluded.columns
    assert result.people is None


def test_an_unreadable_batch_record_is_one_line(tmp_path, taxonomy, projects_meta):
    from tests.support.studies import write_study
    root = write_study(tmp_path / "study")
    (root / "labels" / "batches.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="cannot read the study's batches") as err:
        run(root, taxonomy, projects_meta)
    assert "labels/batches.json" in str(err.value)


def test_the_steps_of_the_notebook(dump, taxonomy, projects_meta):
    """The steps the notebook takes one cell at a time: a scan, then each table of it."""
    from analysis.clean import compute as cleaning
    from analysis.clean.scan import scan_dump

    root, written = dump
    label_file(root, "vllm").write_text(label_file(root, "vllm").read_text()
                                        + "https://x/1,,,,\n")  # one row set aside
    anomalies = []
    scan = scan_dump(root, projects_meta, taxonomy, "keep", anomalies)
    assert not cleaning.has_batches(scan)
    issues = cleaning.issues_table(scan, taxonomy)
    assert len(issues) == sum(len(r) for r in written.values())
    assert len(issues) == int(scan.rows["reason"].isna().sum())
    rejected = cleaning.rejected_table(scan)
    assert len(rejected) >= 1
    assert list(rejected[["source_file", "source_line"]].itertuples(index=False)) == sorted(
        rejected[["source_file", "source_line"]].itertuples(index=False))
    quality = cleaning.quality_of(scan, anomalies, rejected, "keep")
    assert sum(quality["rejected_by_reason"].values()) == len(rejected)
    assert quality["summary"]["issues"] == len(issues)
    excluded = cleaning.excluded_table(scan)
    assert list(excluded.columns) == EXCLUDED_COLUMNS and "batch" not in excluded
    assert cleaning.people_table(scan) is None  # no study, no people
    whole = run(root, taxonomy, projects_meta)
    pd.testing.assert_frame_equal(issues, whole.issues)
    pd.testing.assert_frame_equal(rejected, whole.rejected)
    assert quality == whole.quality


def test_excluded_table_of_a_study_names_each_rows_batch(tmp_path, taxonomy, projects_meta):
    from analysis.clean import compute as cleaning
    from analysis.clean.scan import scan_dump
    from tests.support.studies import write_study

    scan = scan_dump(write_study(tmp_path / "study"), projects_meta, taxonomy, "keep", [])
    assert cleaning.has_batches(scan)
    excluded = cleaning.excluded_table(scan)
    assert list(excluded.columns)[-1] == "batch" and excluded["batch"].notna().all()
