"""Extending a study dump with a batch: the base's files carried byte for byte, the
batch's annotators in columns of their own, every row's batch recorded, year and excluded
files merged, new and all-excluded projects, a report in both refused, the batch record,
and --out replaced only when it holds an earlier extend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.core.paths import DumpLayout
from analysis.update.labels.extend import batches_file, extend_dump
from tests.support.dumps import Project, write_batch, write_dump
from tests.support.sheets import read_rows

T = "https://github.com/pytorch/pytorch/issues/"
S = "https://github.com/sgl-project/sglang/issues/"
RENAMES = {"microsoft/deepspeed": "deepspeedai/DeepSpeed"}


@pytest.fixture
def base(tmp_path) -> Path:
    """The release's shape: 7 annotators, study files, no Batch column."""
    root = tmp_path / "base"
    write_dump(root, [Project("pytorch", {2023: 2, 2024: 1}, repo="pytorch/pytorch"),
                      Project("DeepSpeed", {2024: 1}, repo="microsoft/DeepSpeed")])
    (root / "Issue Report" / "pytorch" / "notes.md").write_text("kept\n", encoding="utf-8")
    return root


@pytest.fixture
def batch(tmp_path) -> Path:
    return write_batch(tmp_path / "2026-05", {
        "pytorch": [(f"{T}7", "2024-12-30T00:00:00Z", ["C.1", "C.1", "C.2"], "C.1"),
                    (f"{T}8", "2026-01-02T00:00:00Z", ["B.1", "", "B.1"], "B.1")],
        "sglang": [(f"{S}1", "2026-02-01T00:00:00Z", ["A.1", "A.2", "A.3"], "A.2")]},
        excluded={"pytorch": [(f"{T}9", "2026-01-03T00:00:00Z")],
                  "mindnlp": [("https://github.com/mindspore-lab/mindnlp/issues/3",
                               "2026-01-04T00:00:00Z")]})


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_study_is_the_base_plus_the_batch(base, batch, tmp_path):
    out = tmp_path / "study"
    extension = extend_dump(base, batch, out, renames=RENAMES)
    layout = DumpLayout(out)
    rows = read_rows(layout.label_file("pytorch"))
    assert rows[0] == ["Issue_URL", *[f"Label{n}" for n in range(1, 11)], "Final_Label",
                       "Batch"]
    old = read_rows(base / "Issue Report/pytorch/pytorch.csv")
    assert [r[:8] + [r[11]] for r in rows[1:4]] == [r for r in old[1:]]  # every rating kept
    assert all(r[8:11] == ["", "", ""] and r[12] == "release" for r in rows[1:4])
    assert rows[4:] == [[f"{T}7", *[""] * 7, "C.1", "C.1", "C.2", "C.1", "2026-05"],
                        [f"{T}8", *[""] * 7, "B.1", "", "B.1", "B.1", "2026-05"]]
    # year files: the base's lines, then the batch's
    base_2024 = (base / "Issue Report/pytorch/pytorch_2024.txt").read_text()
    assert layout.year_file("pytorch", 2024).read_text() == base_2024 + f"{T}7\n"
    assert layout.year_file("pytorch", 2026).read_text() == f"{T}8\n"
    assert read_rows(layout.excluded_file("pytorch")) == [
        ["Issue_URL", "Created_At", "Batch"], [f"{T}9", "2026-01-03T00:00:00Z", "2026-05"]]
    assert not layout.excluded_file("DeepSpeed").exists()  # the base recorded none
    assert read_rows(layout.label_file("DeepSpeed"))[0] == rows[0]  # one header for all
    # a project new in the batch; one whose candidates were all excluded
    assert read_rows(layout.label_file("sglang"))[1][8:] == ["A.1", "A.2", "A.3", "A.2",
                                                            "2026-05"]
    assert read_rows(layout.label_file("mindnlp")) == [rows[0]]
    assert len(read_rows(layout.excluded_file("mindnlp"))) == 2
    # every other file of the base, byte for byte; the batch's records kept
    before, after = files(base), files(out)
    carried = ["CodeBook.csv", "Interview GuideLine.md", "Interviewee Background.xlsx",
               "filter_keywords", "Issue Report/bug_symptoms.csv",
               "Issue Report/question_intents.csv", "Issue Report/requirement_expections.csv",
               "Issue Report/pytorch/notes.md"]
    assert sorted(extension.copied) == sorted(carried)
    assert all(after[rel] == before[rel] for rel in carried)
    assert "labels/2026-05/merge.json" in after and "labels/2026-05/comments.csv" in after
    record = json.loads(batches_file(layout.root).read_text())
    assert [b["name"] for b in record["batches"]] == ["release", "2026-05"]
    release, new = record["batches"]
    assert release["annotator_columns"] == [f"Label{n}" for n in range(1, 8)]
    assert (release["label_rows"], release["records_exclusions"]) == (4, False)
    assert new["annotator_columns"] == ["Label8", "Label9", "Label10"]
    assert (new["label_rows"], new["excluded"], new["records_exclusions"]) == (3, 2, True)
    assert new["projects"]["mindnlp"] == {"label_rows": 0, "excluded": 1}
    assert len(new["inputs"]["merge_record_sha256"]) == 64
    assert record["label_columns"] == 10


def test_a_second_batch_gets_columns_of_its_own_and_keeps_the_first(base, batch, tmp_path):
    study = tmp_path / "study"
    extend_dump(base, batch, study, renames=RENAMES)
    second = write_batch(tmp_path / "b2", {
        "pytorch": [(f"{T}20", "2026-06-01T00:00:00Z", ["C.3", "C.3"], "C.3")]},
        annotators=2)
    out = tmp_path / "study2"
    extend_dump(study, second, out, name="2026-06", renames=RENAMES)
    rows = read_rows(DumpLayout(out).label_file("pytorch"))
    assert rows[0][1:-2] == [f"Label{n}" for n in range(1, 13)]
    assert rows[-1] == [f"{T}20", *[""] * 10, "C.3", "C.3", "C.3", "2026-06"]
    assert [r[-1] for r in rows[1:]] == ["release"] * 3 + ["2026-05"] * 2 + ["2026-06"]
    assert read_rows(DumpLayout(out).excluded_file("pytorch"))[1][2] == "2026-05"
    record = json.loads(batches_file(out).read_text())
    assert [b["name"] for b in record["batches"]] == ["release", "2026-05", "2026-06"]
    assert record["batches"][2]["annotator_columns"] == ["Label11", "Label12"]
    assert (out / "labels/2026-05/merge.json").is_file()  # the earlier records carried
    with pytest.raises(InputError, match="already has a batch named '2026-05'"):
        extend_dump(study, second, tmp_path / "x", name="2026-05", renames=RENAMES)


@pytest.mark.parametrize("url", [
    "https://github.com/pytorch/pytorch/issues/1001",   # the same address
    "http://GitHub.com/PyTorch/pytorch/pull/1001/",     # written another way
    "https://github.com.:443/pytorch//pytorch/issues/01001",  # and another (issue_key)
    "https://github.com/deepspeedai/DeepSpeed/issues/1001"])  # under the current name
def test_a_report_in_both_is_refused_in_one_line(base, tmp_path, url):
    batch = write_batch(tmp_path / "b", {"pytorch": [(url, "2026-01-01", ["C.1"] * 3,
                                                      "C.1")]})
    with pytest.raises(InputError) as err:
        extend_dump(base, batch, tmp_path / "study", renames=RENAMES)
    text = str(err.value)
    assert "1 report(s) of the batch are already in the base (first: " in text
    assert "also at Issue Report/" in text and "\n" not in text
    assert not (tmp_path / "study").exists()


def test_out_is_replaced_only_when_it_holds_an_earlier_extend(base, batch, tmp_path):
    out = tmp_path / "study"
    extend_dump(base, batch, out, renames=RENAMES)
    first = files(out)
    with pytest.raises(InputError, match="holds an earlier extend -> .* --force"):
        extend_dump(base, batch, out, renames=RENAMES)
    extend_dump(base, batch, out, force=True, renames=RENAMES)
    assert files(out) == first  # the same inputs, the same bytes
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="holds files extend did not write"):
        extend_dump(base, batch, other, force=True, renames=RENAMES)
    with pytest.raises(InputError, match="--out is --base"):
        extend_dump(base, batch, base / "inside", renames=RENAMES)
    with pytest.raises(InputError, match="not a batch"):
        extend_dump(base, base, tmp_path / "x", renames=RENAMES)
    with pytest.raises(InputError, match="not a plain name"):
        extend_dump(base, batch, tmp_path / "y", name="a b", renames=RENAMES)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2026-05", "base", "mine", "study"]


def test_a_malformed_base_row_is_named(base, batch, tmp_path):
    label = base / "Issue Report/pytorch/pytorch.csv"
    label.write_text(label.read_text() + "https://x/y/issues/1,C.1\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"pytorch.csv, line 5: 2 fields, the header has 9"):
        extend_dump(base, batch, tmp_path / "study", renames=RENAMES)


VALID_BATCH = {"name": "release", "annotator_columns": ["Label1"], "label_rows": 3,
               "excluded": 0, "records_exclusions": False}


@pytest.mark.parametrize("record,problem", [
    ({"batches": ["x"]}, "batch 1 of 'batches' is a string, not an object"),
    ([{}], "not a record of batches (an object whose 'batches' lists them; found a list)"),
    ({"name": "a"}, "not a record of batches (an object whose 'batches' lists them; found "
                    "no 'batches')"),
    (None, "not a record of batches (an object whose 'batches' lists them; found null)"),
    ({"batches": {"name": "a"}}, "found 'batches' an object)"),
    ({"batches": []}, "found an empty 'batches')"),
    ({"batches": [{}]}, "batch 1 of 'batches' has no 'name'"),
    ({"batches": [{**VALID_BATCH, "name": 7}]},
     "batch 1 of 'batches': 'name' is 7, not a plain name"),
    ({"batches": [{**VALID_BATCH, "name": "../x"}]}, "'name' is \"../x\", not a plain name"),
    ({"batches": [{**VALID_BATCH, "annotator_columns": "Label1"}]},
     "'annotator_columns' is \"Label1\", not a list of column names Label<n>"),
    ({"batches": [{**VALID_BATCH, "annotator_columns": [1]}]},
     "'annotator_columns' is [1], not a list"),
    ({"batches": [VALID_BATCH, {**VALID_BATCH, "label_rows": "3"}]},
     "batch 2 of 'batches': 'label_rows' is \"3\", not a whole number of at least 0"),
    ({"batches": [{**VALID_BATCH, "excluded": True}]}, "'excluded' is true, not a whole"),
    ({"batches": [{**VALID_BATCH, "records_exclusions": "no"}]},
     "'records_exclusions' is \"no\", not true or false"),
    ({"batches": [VALID_BATCH, VALID_BATCH]},
     "batch 2 of 'batches' repeats the name 'release'"),
])
def test_a_base_whose_batch_record_has_another_shape_is_one_line(base, batch, tmp_path,
                                                                  capsys, record, problem):
    from analysis.update.labels.__main__ import main

    recorded = batches_file(base)
    recorded.parent.mkdir()
    recorded.write_text(json.dumps(record), encoding="utf-8")
    code = main(["extend", "--base", str(base), "--batch", str(batch), "--out",
                 str(tmp_path / "study")])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"extend: {recorded}: ")
    assert problem in err
    assert err.endswith(" -> give a study extend wrote, with its labels/batches.json as "
                        "extend wrote it\n")
    assert not (tmp_path / "study").exists()


def test_a_base_whose_batch_record_is_not_json_is_one_line(base, batch, tmp_path):
    recorded = batches_file(base)
    recorded.parent.mkdir()
    recorded.write_bytes(b"\xff{")
    with pytest.raises(InputError, match=r"batches.json: not a JSON file \("):
        extend_dump(base, batch, tmp_path / "study", renames=RENAMES)


@pytest.mark.parametrize("record,problem", [
    ([], "not a merge record (an object; found a list)"),
    (None, "not a merge record (an object; found null)"),
    ({"annotators": "3"}, "'annotators' is a string, not a whole number of at least 1"),
    ({"annotators": 0}, "'annotators' is a number, not a whole number of at least 1"),
    ({"annotators": 3, "sheets": "a.csv"}, "'sheets' is not a list of objects"),
    ({"annotators": 3, "sheets": ["a.csv"]}, "'sheets' is not a list of objects"),
    ({"annotators": 3, "decisions": "x"}, "'decisions' is a string, not an object or null"),
])
def test_a_batch_whose_merge_record_has_another_shape_is_one_line(base, batch, tmp_path,
                                                                  record, problem):
    merge_json = DumpLayout(batch).merge_record
    merge_json.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(InputError) as err:
        extend_dump(base, batch, tmp_path / "study", renames=RENAMES)
    assert str(err.value) == (f"{merge_json}: {problem} -> give the folder labels merge "
                              "wrote, with its labels/merge.json untouched")
    assert not (tmp_path / "study").exists()


def test_a_named_annotator_keeps_their_column_across_batches(base, tmp_path):
    """A first batch by alice, bob and chen gets Label8..Label10; a second by bob, dan and
    alice fills bob's and alice's columns again and gives dan Label11; a batch of
    annotators given by number gets new columns (no one can tell who they are)."""
    first = write_batch(tmp_path / "b1", {"pytorch": [
        (f"{T}21", "2026-01-01T00:00:00Z", ["C.1", "C.1", "C.2"], "C.1")]},
        names=["alice", "bob", "chen"])
    second = write_batch(tmp_path / "b2", {"pytorch": [
        (f"{T}22", "2026-02-01T00:00:00Z", ["A.1", "A.2", "A.1"], "A.1")]},
        names=["bob", "dan", "alice"])
    third = write_batch(tmp_path / "b3", {"pytorch": [
        (f"{T}23", "2026-03-01T00:00:00Z", ["B.1", "B.1"], "B.1")]}, annotators=2)
    extend_dump(base, first, tmp_path / "s1", renames=RENAMES)
    extend_dump(tmp_path / "s1", second, tmp_path / "s2", renames=RENAMES)
    extend_dump(tmp_path / "s2", third, tmp_path / "s3", renames=RENAMES)
    rows = read_rows(DumpLayout(tmp_path / "s3").label_file("pytorch"))
    header = rows[0]
    assert header == ["Issue_URL", *[f"Label{n}" for n in range(1, 14)], "Final_Label",
                      "Batch"]
    by_url = {r[0]: dict(zip(header, r, strict=True)) for r in rows[1:]}
    assert [by_url[f"{T}21"][f"Label{n}"] for n in (8, 9, 10, 11)] == ["C.1", "C.1", "C.2", ""]
    assert [by_url[f"{T}22"][f"Label{n}"] for n in (8, 9, 10, 11)] == ["A.1", "A.1", "", "A.2"]
    assert [by_url[f"{T}23"][f"Label{n}"] for n in (8, 12, 13)] == ["", "B.1", "B.1"]
    record = json.loads(batches_file(tmp_path / "s3").read_text())
    assert [(b["name"], b["annotator_columns"]) for b in record["batches"][1:]] == [
        ("b1", ["Label8", "Label9", "Label10"]), ("b2", ["Label9", "Label11", "Label8"]),
        ("b3", ["Label12", "Label13"])]
    assert record["annotators"] == {"alice": "Label8", "bob": "Label9", "chen": "Label10",
                                    "dan": "Label11"}
    assert record["label_columns"] == 13


def test_a_record_giving_one_column_to_two_people_is_one_line(base, tmp_path):
    first = write_batch(tmp_path / "b1", {"pytorch": [
        (f"{T}21", "2026-01-01T00:00:00Z", ["C.1", "C.1", "C.2"], "C.1")]},
        names=["alice", "bob", "chen"])
    extend_dump(base, first, tmp_path / "s1", renames=RENAMES)
    path = batches_file(tmp_path / "s1")
    record = json.loads(path.read_text())
    record["batches"][1]["annotator_names"] = ["alice", "bob", "bob"]
    path.write_text(json.dumps(record), encoding="utf-8")
    second = write_batch(tmp_path / "b2", {"pytorch": [
        (f"{T}22", "2026-02-01T00:00:00Z", ["A.1"], "A.1")]}, annotators=1, names=["bob"])
    with pytest.raises(InputError, match="'annotator_names' names someone twice"):
        extend_dump(tmp_path / "s1", second, tmp_path / "s2", renames=RENAMES)


@pytest.mark.parametrize("when", ["9999-12-31T00:00:00Z", "2262-04-12T00:00:00Z",
                                  "1677-09-21T00:00:00Z"])
def test_a_batch_with_a_date_a_study_cannot_hold_is_refused(base, tmp_path, when):
    """A batch's year file or excluded candidate of a year the clean stage's schema
    refuses is one line naming the file (the check select and merge make too)."""
    batch = write_batch(tmp_path / "b", {"pytorch": [(f"{T}30", when, ["C.1"] * 3, "C.1")]})
    with pytest.raises(InputError) as err:
        extend_dump(base, batch, tmp_path / "study", renames=RENAMES)
    assert str(err.value).startswith(f"Issue Report/pytorch/pytorch_{when[:4]}.txt: a year "
                                     f"file of the year {int(when[:4])} is outside the years")
    batch = write_batch(tmp_path / "c", {"pytorch": [(f"{T}30", "2026-01-01", ["C.1"] * 3,
                                                      "C.1")]},
                        excluded={"pytorch": [(f"{T}31", when)]})
    with pytest.raises(InputError) as err:
        extend_dump(base, batch, tmp_path / "study", renames=RENAMES)
    text = str(err.value)
    assert text.startswith("Issue Report/pytorch/pytorch_excluded.csv, line 2, column "
                           f"'Created_At': the creation date {when[:10]}: the year")
    assert "\n" not in text and not (tmp_path / "study").exists()
