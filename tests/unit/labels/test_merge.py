"""Merging filled sheets: majority, exclusion by all, adjudication, every problem named,
nothing written on failure, the same bytes for the same sheets."""

from __future__ import annotations

import json

import pytest

from analysis.core.paths import DumpLayout
from analysis.labels import merge
from analysis.labels.__main__ import main
from analysis.labels.sheets import write_blank_sheets
from tests.support.sheets import candidates_frame, fill, read_rows

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


@pytest.fixture
def filled(tmp_path, taxonomy):
    paths = write_blank_sheets(tmp_path / "sel", CANDIDATES, 3, taxonomy)
    fill(paths[0], FILLS[0])
    fill(paths[1], FILLS[1], delimiter=";", encoding="utf-8", line_end="\n")
    fill(paths[2], FILLS[2], encoding="utf-16")
    return paths


@pytest.mark.parametrize("labels, n, expected", [
    (["C.3", "C.3", "C.5"], 3, "C.3"), (["C.3", "C.5", "C.1"], 3, None),
    (["C.3", "C.3", ""], 3, "C.3"), (["C.3", "", ""], 3, None),
    (["A.1", "A.1", "B.1", "B.1"], 4, None), (["A.1"], 1, "A.1"), (["", ""], 2, None),
    (["C.1"] * 3 + ["C.2"] * 2 + ["C.3"] * 2, 7, None)])
def test_strict_majority_is_more_than_half_of_all_annotators(labels, n, expected):
    assert merge.strict_majority(labels, n) == expected


def test_merge_writes_the_upstream_layout(filled, tmp_path, taxonomy):
    out = tmp_path / "dump"
    result = merge.merge_sheets(filled, out, set(taxonomy.codes))
    layout = DumpLayout(out)
    rows = read_rows(layout.label_file("pytorch"))
    assert rows[0] == ["Issue_URL", "Label1", "Label2", "Label3", "Final_Label"]
    by_url = {r[0]: r[1:] for r in rows[1:]}
    assert by_url[U[0]] == ["C.3", "C.3", "C.5", "C.3"]   # majority 2 of 3
    assert by_url[U[1]] == ["B.1", "B.2", "B.3", ""]      # no majority: adjudication
    assert U[2] not in by_url                             # all three excluded
    assert by_url[U[3]] == ["A.2", "A.2", "A.2", "A.2"]   # excluded by one only: kept
    assert by_url[U[4]] == ["C.1", "C.1", "", "C.1"]      # one excluded, two agree
    assert by_url[U[5]] == ["C.2", "C.3", "C.4", ""]
    # rows by creation date, whatever the sheets' order
    assert [r[0] for r in rows[1:]] == [U[1], U[3], U[5], U[0], U[4]]
    assert layout.year_file("pytorch", 2023).read_text() == f"{U[1]}\n{U[3]}\n{U[5]}\n"
    assert layout.year_file("pytorch", 2024).read_text() == f"{U[0]}\n{U[4]}\n"
    assert read_rows(layout.excluded_file("pytorch")) == [
        ["Issue_URL", "Created_At"], [U[2], "2024-03-01T00:00:00Z"]]
    assert read_rows(layout.label_file("vllm")) == [rows[0]]
    assert read_rows(layout.excluded_file("vllm"))[1] == [V, "2025-01-01T00:00:00Z"]
    adj = read_rows(layout.adjudication)
    assert adj[0] == ["project", "Issue_URL", "created_at", "Label1", "Label2", "Label3",
                      "label_counts", "excluded_by", "why"]
    why = {r[1]: (r[6], r[7], r[8]) for r in adj[1:]}
    assert why == {
        U[1]: ("B.1: 1; B.2: 1; B.3: 1", "0 of 3", "no majority"),
        U[3]: ("A.2: 3", "1 of 3", "disagreement on exclusion"),
        U[4]: ("C.1: 2", "1 of 3", "disagreement on exclusion"),
        U[5]: ("C.2: 1; C.3: 1; C.4: 1", "0 of 3", "no majority")}
    record = json.loads(layout.merge_record.read_text())
    assert record["projects"]["pytorch"] == {
        "candidates": 6, "labelled": 5, "with_majority": 3, "no_majority": 2,
        "exclusion_disagreements": 2, "excluded": 1}
    assert record["projects"]["vllm"]["excluded"] == 1 and record["candidates"] == 7
    assert [s["encoding"] for s in record["sheets"]] == ["utf-8 with BOM", "utf-8",
                                                         "utf-16 with BOM"]
    assert record == result.record


def test_the_same_sheets_give_the_same_bytes_in_any_row_order(filled, tmp_path, taxonomy):
    merge.merge_sheets(filled, tmp_path / "a", set(taxonomy.codes))
    rows = read_rows(filled[0])
    text = "\r\n".join(",".join(f'"{c}"' for c in r) for r in [rows[0], *rows[:0:-1]])
    filled[0].write_text(text + "\r\n", encoding="utf-8")  # sorted the other way
    merge.merge_sheets(filled, tmp_path / "b", set(taxonomy.codes))
    for rel in ("Issue Report/pytorch/pytorch.csv", "Issue Report/pytorch/pytorch_2023.txt",
                "labels/adjudication.csv"):
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()


def problems_of(paths, tmp_path, taxonomy) -> list[str]:
    out = tmp_path / "out"
    with pytest.raises(merge.SheetProblems) as err:
        merge.merge_sheets(paths, out, set(taxonomy.codes))
    assert not out.exists() and not list(tmp_path.glob(".out.merge-*"))
    return [str(p) for p in err.value.problems]


def test_every_problem_is_named_and_nothing_is_written(filled, tmp_path, taxonomy):
    fill(filled[0], {U[0]: ("C.13", ""), U[1]: ("", ""), U[3]: ("A.2", "maybe")})
    rows = read_rows(filled[1])
    del rows[2]  # annotator 2 deleted a row
    rows[1][7] = "sel-000000000000"
    filled[1].write_text("\n".join(",".join(f'"{c}"' for c in r) for r in rows) + "\n",
                         encoding="utf-8")
    found = problems_of(filled, tmp_path, taxonomy)
    name0, name1 = str(filled[0]), str(filled[1])
    assert f"{name0}, line 2, column 'label': 'C.13' is not a theme code" in found[0]
    assert any(f"{name0}, line 3, column 'label': the row has no label and is not "
               "excluded" in p for p in found)
    assert any(f"{name0}, line 5, column 'excluded': 'maybe' is not a yes/no" in p
               for p in found)
    assert any(f"{name1}, line 2, column 'selection'" in p for p in found)
    assert any(p.startswith(f"{name1}: {U[1]} (in {name0}, {filled[2]}) is missing")
               for p in found)
    assert all("\n" not in p and " -> " in p for p in found)


def test_other_selection_duplicates_and_the_same_file_twice(filled, tmp_path, taxonomy):
    other = write_blank_sheets(tmp_path / "other", CANDIDATES.iloc[:3], 1, taxonomy)[0]
    fill(other, {u: ("C.1", "") for u in U})
    rows = read_rows(filled[2])
    rows.append(rows[1])
    filled[2].write_text("\n".join(",".join(f'"{c}"' for c in r) for r in rows) + "\n",
                         encoding="utf-8")
    found = problems_of([filled[0], other, filled[2], filled[0]], tmp_path, taxonomy)
    assert any(f"{other}, column 'selection': a sheet of another selection" in p
               for p in found)
    assert any(f"{filled[2]}, line 9, column 'url': {U[0]} is also on line 2" in p
               for p in found)
    assert any(p.startswith(f"{filled[0]}: the same file as {filled[0]}") for p in found)


def test_the_command_line(filled, tmp_path, capsys):
    out = tmp_path / "dump"
    assert main(["merge", *map(str, filled), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "3 sheets, 7 candidates in 2 project(s): 5 labelled (3 with a majority), " \
           "2 excluded by all annotators, 4 for adjudication" in said
    assert main(["merge", *map(str, filled), "--out", str(out)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith("the folder holds an earlier merge -> "
                           "choose another --out, or pass --force to replace it")
    assert err[-1] == "merge: 1 problem(s); nothing written"
    assert main(["merge", *map(str, filled), "--out", str(out), "--force"]) == 0
    cand = tmp_path / "candidates.csv"
    CANDIDATES.to_csv(cand, index=False)
    assert main(["sheets", str(cand), "--annotators", "2", "--out", str(tmp_path / "s")]) == 0
    assert len(read_rows(tmp_path / "s" / "sheets" / "annotator_2.csv")) == 8
    capsys.readouterr()
    # sheets already written may hold labels: replaced only with --force
    assert main(["sheets", str(cand), "--annotators", "2", "--out", str(tmp_path / "s")]) == 1
    assert "already holds sheets" in capsys.readouterr().err
    assert main(["sheets", str(cand), "--annotators", "2", "--out", str(tmp_path / "s"),
                 "--force"]) == 0
    assert main(["sheets", str(tmp_path / "nope.csv"), "--annotators", "2", "--out",
                 str(tmp_path / "t")]) == 1
    assert "cannot read the candidates" in capsys.readouterr().err
    (tmp_path / "empty.csv").write_bytes(b"")
    assert main(["sheets", str(tmp_path / "empty.csv"), "--annotators", "2", "--out",
                 str(tmp_path / "t")]) == 1
    assert "cannot read the candidates" in capsys.readouterr().err


def test_force_never_replaces_files_a_merge_did_not_write(filled, tmp_path, capsys):
    out = tmp_path / "work"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["merge", *map(str, filled), "--out", str(out), "--force"]) == 1
    assert "holds files a merge did not write (notes.txt)" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
