"""Merging filled sheets and decisions: the majority, exclusion by all, a split on
exclusion and no majority adjudicated, every annotator's rating kept, decisions applied
and reproduced byte for byte, comments kept, nothing written without rows."""

from __future__ import annotations

import csv
import json

import pytest

from analysis.core.paths import DumpLayout
from analysis.update.labels import merge
from analysis.update.labels.decisions import read_decisions
from tests.support.sheets import blank_sheets, candidates_frame, fill, read_rows

U = [f"https://github.com/pytorch/pytorch/issues/{i}" for i in range(1, 7)]
V = "https://github.com/vllm-project/vllm/issues/9"
CANDIDATES = candidates_frame(
    [("pytorch", u, f"202{3 + i % 2}-0{i}-01T00:00:00Z", f"issue {i}")
     for i, u in enumerate(U, 1)] + [("vllm", V, "2025-01-01T00:00:00Z", "=cmd")])
# url -> (label, excluded) for annotators 1..3
FILLS = [
    {U[0]: ("C.3", ""), U[1]: ("B.1", ""), U[2]: ("", "x"), U[3]: ("A.2", "x"),
     U[4]: ("C.1", ""), U[5]: ("C.2", ""), V: ("", "x")},
    {U[0]: ("C.3", ""), U[1]: ("B.2", ""), U[2]: ("", "yes"), U[3]: ("A.2", ""),
     U[4]: ("C.1", ""), U[5]: ("C.3", ""), V: ("", "x")},
    {U[0]: ("C.5", ""), U[1]: ("B.3", ""), U[2]: ("C.1", "x"), U[3]: ("A.2", ""),
     U[4]: ("", "x"), U[5]: ("C.4", ""), V: ("", "x")},
]
# the adjudicators' decisions on the four reports the merge lists
DECIDED = {U[1]: "B.2", U[3]: "A.2", U[4]: "excluded", U[5]: "c.4"}


@pytest.fixture
def filled(tmp_path, taxonomy):
    paths = blank_sheets(tmp_path / "sel", CANDIDATES, 3, taxonomy)
    fill(paths[0], FILLS[0])
    fill(paths[1], FILLS[1], delimiter=";", encoding="utf-8", line_end="\n")
    fill(paths[2], FILLS[2], encoding="utf-16")
    return paths


def decisions_file(path, listed, decided: dict[str, str]):
    """The adjudication list ``listed`` with its decision column filled, as saved."""
    rows = read_rows(listed)
    for row in rows[1:]:
        row[-1] = decided.get(row[0], "")
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


@pytest.mark.parametrize("labels, n, expected", [
    (["C.3", "C.3", "C.5"], 3, "C.3"), (["C.3", "C.5", "C.1"], 3, None),
    (["C.3", "C.3", ""], 3, "C.3"), (["C.3", "", ""], 3, None),
    (["A.1", "A.1", "B.1", "B.1"], 4, None), (["A.1"], 1, "A.1"), (["", ""], 2, None),
    (["C.1"] * 3 + ["C.2"] * 2 + ["C.3"] * 2, 7, None)])
def test_strict_majority_is_more_than_half_of_all_annotators(labels, n, expected):
    assert merge.strict_majority(labels, n) == expected


def test_undecided_reports_are_listed_and_left_out_of_the_batch(filled, tmp_path, taxonomy):
    out = tmp_path / "batch"
    result = merge.merge_inputs(filled, out, set(taxonomy.codes))
    layout = DumpLayout(out)
    rows = read_rows(layout.label_file("pytorch"))
    assert rows == [["Issue_URL", "Label1", "Label2", "Label3", "Final_Label"],
                    [U[0], "C.3", "C.3", "C.5", "C.3"]]          # majority 2 of 3
    assert layout.year_file("pytorch", 2024).read_text() == f"{U[0]}\n"
    assert not layout.year_file("pytorch", 2023).exists()
    assert read_rows(layout.excluded_file("pytorch")) == [
        ["Issue_URL", "Created_At"], [U[2], "2024-03-01T00:00:00Z"]]  # all three excluded
    assert read_rows(layout.label_file("vllm")) == [rows[0]]  # all excluded: header only
    assert read_rows(layout.excluded_file("vllm"))[1] == [V, "2025-01-01T00:00:00Z"]
    adj = read_rows(layout.adjudication)
    assert adj[0] == merge.adjudication_columns(3) == [
        "url", "project", "title", "created_at", "Label1", "Excluded1", "Comment1",
        "Label2", "Excluded2", "Comment2", "Label3", "Excluded3", "Comment3", "reason",
        "decision"]
    assert {r[0]: (r[2], r[4:13], r[13], r[14]) for r in adj[1:]} == {
        U[1]: ("issue 2", ["B.1", "", "", "B.2", "", "", "B.3", "", ""],
               "no majority (B.1: 1; B.2: 1; B.3: 1)", ""),
        U[3]: ("issue 4", ["A.2", "x", "", "A.2", "", "", "A.2", "", ""],
               "split on exclusion (1 of 3 excluded)", ""),
        U[4]: ("issue 5", ["C.1", "", "", "C.1", "", "", "", "x", ""],
               "split on exclusion (1 of 3 excluded)", ""),
        U[5]: ("issue 6", ["C.2", "", "", "C.3", "", "", "C.4", "", ""],
               "no majority (C.2: 1; C.3: 1; C.4: 1)", "")}
    assert result.undecided == [U[1], U[3], U[5], U[4]]  # the list's order
    record = json.loads(layout.merge_record.read_text())
    assert record["projects"]["pytorch"] == {
        "candidates": 6, "labelled": 1, "with_majority": 1, "decided": 0, "excluded": 1,
        "excluded_by_all": 1, "excluded_by_decision": 0, "no_majority": 2,
        "exclusion_splits": 2, "unsure": 0, "undecided": 4}
    assert (record["candidates"], record["undecided"], record["decisions"]) == (7, 4, None)
    assert record["selection_check"] == {"checked": False, "candidates": None}
    assert record["annotator_names"] == [None, None, None]  # given by number
    sources = json.loads((layout.labels / merge.SOURCES).read_text())["sources"]
    assert [s["encoding"] for s in sources] == ["utf-8 with BOM", "utf-8", "utf-16 with BOM"]
    assert record == result.record


def test_decisions_are_applied_and_every_rating_is_kept(filled, tmp_path, taxonomy):
    codes = set(taxonomy.codes)
    first = merge.merge_inputs(filled, tmp_path / "listed", codes)
    assert len(first.undecided) == 4
    decided = decisions_file(tmp_path / "decisions.csv",
                             DumpLayout(tmp_path / "listed").adjudication, DECIDED)
    out = tmp_path / "batch"
    result = merge.merge_inputs(filled, out, codes, decisions=read_decisions(decided, codes))
    layout = DumpLayout(out)
    rows = {r[0]: r[1:] for r in read_rows(layout.label_file("pytorch"))[1:]}
    assert rows == {U[0]: ["C.3", "C.3", "C.5", "C.3"],
                    U[1]: ["B.1", "B.2", "B.3", "B.2"],   # the decision; ratings as given
                    U[3]: ["A.2", "A.2", "A.2", "A.2"],
                    U[5]: ["C.2", "C.3", "C.4", "C.4"]}   # c.4 read as C.4
    assert [r[0] for r in read_rows(layout.excluded_file("pytorch"))[1:]] == [U[2], U[4]]
    assert layout.year_file("pytorch", 2023).read_text() == f"{U[1]}\n{U[3]}\n{U[5]}\n"
    assert result.undecided == []
    listed = {r[0]: r[-1] for r in read_rows(layout.adjudication)[1:]}
    assert listed == {U[1]: "B.2", U[3]: "A.2", U[4]: "excluded", U[5]: "C.4"}
    record = result.record
    assert record["decisions"] == {"file": "decisions.csv", "sha256": record["decisions"][
        "sha256"], "rows": 4, "decided": 4, "applied": 4, "lowercase_codes": 1}
    assert record["projects"]["pytorch"]["decided"] == 4
    assert record["projects"]["pytorch"]["excluded_by_decision"] == 1


def tree(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_a_rerun_with_the_decisions_gives_the_same_bytes(filled, tmp_path, taxonomy):
    codes = set(taxonomy.codes)
    out = tmp_path / "batch"
    merge.merge_inputs(filled, out, codes)
    decided = decisions_file(tmp_path / "decisions.csv", DumpLayout(out).adjudication,
                             DECIDED)
    merge.merge_inputs(filled, out, codes, force=True, decisions=read_decisions(decided, codes))
    once = tree(out)
    merge.merge_inputs(filled, out, codes, force=True, decisions=read_decisions(decided, codes))
    assert tree(out) == once
    # the filled list the merge wrote is itself a decisions file: the same batch
    again = DumpLayout(out).adjudication
    merge.merge_inputs(filled, tmp_path / "b", codes, decisions=read_decisions(again, codes))
    assert {k: v for k, v in tree(tmp_path / "b").items() if "merge.json" not in k} == {
        k: v for k, v in once.items() if "merge.json" not in k}


def test_unsure_goes_to_the_adjudicators_and_is_never_a_rating(filled, tmp_path, taxonomy):
    """An annotator unsure of a report (the label cell ``unsure``) gives no rating: the
    report goes on the adjudication list even though the two others agree, its Label<k>
    cell stays empty once decided, and annotations.csv says unsure."""
    fill(filled[2], {U[0]: ("unsure", "")})  # the others gave C.3, C.3
    codes = set(taxonomy.codes)
    first = merge.merge_inputs(filled, tmp_path / "listed", codes)
    listed = {r[0]: r for r in read_rows(DumpLayout(tmp_path / "listed").adjudication)[1:]}
    assert listed[U[0]][10:14] == ["unsure", "", "", "unsure (1 of 3)"]
    assert U[0] in first.undecided
    decided = decisions_file(tmp_path / "decisions.csv",
                             DumpLayout(tmp_path / "listed").adjudication,
                             {**DECIDED, U[0]: "C.3"})
    result = merge.merge_inputs(filled, tmp_path / "batch", codes,
                                decisions=read_decisions(decided, codes))
    rows = {r[0]: r[1:] for r in read_rows(DumpLayout(tmp_path / "batch").label_file(
        "pytorch"))[1:]}
    assert rows[U[0]] == ["C.3", "C.3", "", "C.3"]
    notes = read_rows(DumpLayout(tmp_path / "batch").labels / merge.ANNOTATIONS)
    assert notes[0] == merge.ANNOTATION_FILE_COLUMNS
    assert [r[2:7] for r in notes[1:] if r[1] == U[0]] == [
        ["1", "#1", "C.3", "", ""], ["2", "#2", "C.3", "", ""], ["3", "#3", "", "", "x"]]
    assert result.record["per_annotator"][2]["unsure"] == 1


def test_comments_and_added_columns_are_kept_in_the_batch_records(filled, tmp_path,
                                                                 taxonomy):
    rows = read_rows(filled[0])
    rows[0].append("second thoughts")
    for row in rows[1:]:
        row.append("")
    rows[1][rows[0].index("comment")] = "=not a formula, a comment"
    rows[2][-1] = "maybe B.2"
    filled[0].write_text("\r\n".join(",".join(f'"{c}"' for c in r) for r in rows) + "\r\n",
                         encoding="utf-8")
    fill(filled[2], {})  # unchanged
    result = merge.merge_inputs(filled, tmp_path / "batch", set(taxonomy.codes))
    comments = read_rows(DumpLayout(tmp_path / "batch").labels / merge.COMMENTS)
    assert comments[0] == merge.COMMENT_COLUMNS
    by_url = {(r[1], r[3]): (r[2], r[4]) for r in comments[1:]}
    url1, url2 = rows[1][1], rows[2][1]
    assert by_url[(url1, "comment")] == ("1", "'=not a formula, a comment")  # neutralised
    assert by_url[(url2, "second thoughts")] == ("1", "maybe B.2")
    assert result.sources[0]["extra_columns"] == ["second thoughts"]
    assert result.record["comments"] == 2
    # the label files keep the columns the pipeline reads
    assert read_rows(DumpLayout(tmp_path / "batch").label_file("pytorch"))[0][-1] == \
        "Final_Label"


def test_the_same_sheets_give_the_same_bytes_in_any_row_order(filled, tmp_path, taxonomy):
    merge.merge_inputs(filled, tmp_path / "a", set(taxonomy.codes))
    rows = read_rows(filled[0])
    text = "\r\n".join(",".join(f'"{c}"' for c in r) for r in [rows[0], *rows[:0:-1]])
    filled[0].write_text(text + "\r\n", encoding="utf-8")  # sorted the other way
    merge.merge_inputs(filled, tmp_path / "b", set(taxonomy.codes))
    for rel in ("Issue Report/pytorch/pytorch.csv", "Issue Report/pytorch/pytorch_2024.txt",
                "labels/adjudication.csv", "labels/comments.csv"):
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()


def test_sheets_without_rows_write_nothing_and_say_so(tmp_path, taxonomy):
    paths = blank_sheets(tmp_path / "sel", CANDIDATES, 2, taxonomy)
    for path in paths:
        path.write_bytes(path.read_bytes().split(b"\r\n", 1)[0] + b"\r\n")  # the header
    with pytest.raises(merge.SheetProblems) as err:
        merge.merge_inputs(paths, tmp_path / "batch", set(taxonomy.codes))
    assert [p.problem for p in err.value.problems] == [
        "the sheets hold no rows: nothing to merge, nothing written"]
    assert not (tmp_path / "batch").exists()


def test_decisions_for_reports_off_the_list_or_unknown_are_one_line_each(filled, tmp_path,
                                                                        taxonomy):
    codes = set(taxonomy.codes)
    path = tmp_path / "decisions.csv"
    path.write_text(f"url,decision\n{U[0]},C.1\nhttps://github.com/x/y/issues/1,C.2\n"
                    f"{U[1]},B.2\n", encoding="utf-8")
    with pytest.raises(merge.SheetProblems) as err:
        merge.merge_inputs(filled, tmp_path / "batch", codes,
                           decisions=read_decisions(path, codes))
    found = [str(p) for p in err.value.problems]
    assert found == [
        f"{path}, line 2, column 'decision': {U[0]} is not on the adjudication list "
        "(its annotators agree) -> remove the decision: only reports without a majority or "
        "with a split on exclusion are decided",
        f"{path}, line 3, column 'url': https://github.com/x/y/issues/1 is in no sheet "
        "-> decide only the reports of the adjudication list (copy its url cells as they "
        "are)"]
    assert not (tmp_path / "batch").exists()


def test_every_problem_of_a_decisions_file_is_told_in_one_run(filled, tmp_path, taxonomy):
    """A value that is no decision and a URL that is in no sheet: both at once, not the
    second only after the first is fixed."""
    codes = set(taxonomy.codes)
    path = tmp_path / "decisions.csv"
    path.write_text(f"url,decision\n{U[1]},C.13\nhttps://github.com/x/y/issues/1,C.2\n"
                    f"{U[0]},C.1\n", encoding="utf-8")
    with pytest.raises(merge.SheetProblems) as err:
        merge.merge_inputs(filled, tmp_path / "batch", codes,
                           decisions=read_decisions(path, codes))
    assert [(p.line, p.problem) for p in err.value.problems] == [
        (2, "'C.13' is neither a theme code nor excluded"),
        (3, "https://github.com/x/y/issues/1 is in no sheet"),
        (4, f"{U[0]} is not on the adjudication list (its annotators agree)")]
    assert not (tmp_path / "batch").exists()


@pytest.mark.parametrize("labels, marks, decision, expected", [
    (["C.1"] * 3, [False] * 3, None, ("labelled", "C.1", [])),
    (["C.1", "C.1", "C.2"], [False] * 3, "B.1", ("labelled", "C.1", [])),  # not listed
    (["", "", "C.1"], [True] * 3, None, ("excluded", "all annotators", [])),
    (["A.1", "A.2", "A.3"], [False] * 3, None,
     ("undecided", None, ["no majority (A.1: 1; A.2: 1; A.3: 1)"])),
    (["A.1", "A.2", "A.3"], [False] * 3, "A.2",
     ("labelled", "A.2", ["no majority (A.1: 1; A.2: 1; A.3: 1)"])),
    (["C.1"] * 3, [True, False, False], "excluded",
     ("excluded", "decision", ["split on exclusion (1 of 3 excluded)"])),
    (["", "A.1", "A.2"], [True, False, False], None,
     ("undecided", None, ["no majority (A.1: 1; A.2: 1)",
                          "split on exclusion (1 of 3 excluded)"]))])
def test_the_fate_of_one_report(labels, marks, decision, expected):
    assert merge.fate(labels, marks, decision) == expected


def test_a_working_folder_removed_by_another_program_is_said_so(tmp_path):
    """(Not 'check the free space': another program removed the folder being built; made
    again or not, nothing is published without what was written there.)"""
    import shutil

    from analysis.core.errors import InputError

    def remove_the_folder(target):
        shutil.rmtree(target.parent)

    out = tmp_path / "batch"
    for later in ({"b/c.csv": b"c\n"}, {}):  # (the next write makes the folder again)
        with pytest.raises(InputError) as err:
            merge.write_folder({"a.csv": remove_the_folder, **later}, out, "batch")
        text = str(err.value)
        assert text.startswith(f"{out}: the folder it was being built in ({tmp_path}/.batch-")
        assert text.endswith(") was removed by another program meanwhile, so nothing was "
                             "written -> run the command again, and keep other programs from "
                             "cleaning that folder while it runs")
        assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_blank_workbook_beside_the_csv_its_annotator_saved_is_said_first(tmp_path,
                                                                          taxonomy):
    from tests.support.sheets import fill_workbook

    team = ["alice", "bob", "chen"]
    folder = tmp_path / "2026-01"
    books = blank_sheets(folder, CANDIDATES, team, taxonomy, fmt="xlsx")
    fill_workbook(books[0], FILLS[0])
    fill_workbook(books[1], FILLS[1])
    # chen saved the workbook as CSV, which leaves the blank workbook beside it
    saved = blank_sheets(tmp_path / "elsewhere", CANDIDATES, team, taxonomy)[2]
    fill(saved, FILLS[2])
    (folder / "sheets" / "annotator_chen.csv").write_bytes(saved.read_bytes())
    with pytest.raises(merge.SheetProblems) as caught:
        merge.merge_folder(folder, tmp_path / "out", set(taxonomy.codes))
    problems = [str(p) for p in caught.value.problems]
    assert len(problems) == 1, problems
    assert "annotator_chen.xlsx" in problems[0] and "blank" in problems[0]
    assert "beside annotator_chen.csv" in problems[0]


def test_the_adjudication_list_names_the_annotators_as_the_study_does(tmp_path, taxonomy):
    paths = blank_sheets(tmp_path / "sel", CANDIDATES, ["alice", "bob", "chen"], taxonomy)
    for path, answers in zip(paths, FILLS, strict=True):
        fill(path, answers)
    out = tmp_path / "batch"
    merge.merge_inputs(paths, out, set(taxonomy.codes))
    header = read_rows(DumpLayout(out).adjudication)[0]
    assert header[4:13] == ["alice label", "alice excluded", "alice comment", "bob label",
                            "bob excluded", "bob comment", "chen label", "chen excluded",
                            "chen comment"]
