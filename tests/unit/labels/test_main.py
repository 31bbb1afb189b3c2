"""The labelling loop's command line: sheets (CSV or .xlsx, replaced only with --force),
merge (what it says, the undecided and what to do, the selection found beside the sheets
or not), extend (what it says), and one line for each user error."""

from __future__ import annotations

import json
import shlex

import pytest

from analysis.core.paths import ROOT
from analysis.update.labels.__main__ import find_selection, main
from analysis.update.labels.__main__ import parser as labels_parser
from analysis.update.select import engine, outputs
from analysis.update.select.__main__ import parser as select_parser
from tests.support.dumps import Project, write_dump
from tests.support.sheets import blank_sheets, fill, issues_of, read_rows

U, CANDIDATES = issues_of("pytorch/pytorch", 3)


@pytest.fixture
def filled(tmp_path, taxonomy):
    paths = blank_sheets(tmp_path / "sel", CANDIDATES, 3, taxonomy)
    labels = [("C.3", "C.3", "C.1"), ("B.1", "B.2", "B.3"), ("", "", "")]
    for k, path in enumerate(paths):
        fill(path, {U[0]: (labels[0][k], ""), U[1]: (labels[1][k], ""), U[2]: ("", "x")})
    return paths


def test_sheets_csv_or_xlsx_replaced_only_with_force(tmp_path, capsys):
    cand = tmp_path / "candidates.csv"
    CANDIDATES.to_csv(cand, index=False)
    out = tmp_path / "s"
    assert main(["sheets", str(cand), "--annotators", "2", "--out", str(out), "--details",
                 "none"]) == 0
    assert capsys.readouterr().out == (
        f"sheets: wrote 2 sheet(s) (csv) into {out}/sheets, each in an order of its own "
        "(seed 1); the codebook beside them (no detail files found: themes, sub-themes and "
        "definitions only)\n")
    assert len(read_rows(out / "sheets" / "annotator_2.csv")) == 4
    assert main(["sheets", str(cand), "--annotators", "2", "--out", str(out)]) == 1
    assert "annotator_1.csv is already written (it may hold labels)" in \
        capsys.readouterr().err
    assert main(["sheets", str(cand), "--annotators", "alice", "--out", str(out), "--format",
                 "xlsx"]) == 0  # beside the CSV sheets
    capsys.readouterr()
    assert main(["sheets", str(cand), "--annotators", "3", "--out", str(out), "--format",
                 "xlsx", "--force"]) == 0
    assert sorted(p.name for p in (out / "sheets").iterdir()) == [
        "annotator_1.xlsx", "annotator_2.xlsx", "annotator_3.xlsx", "codebook.csv",
        "sheets.json"]
    assert main(["sheets", str(tmp_path / "nope.csv"), "--annotators", "2", "--out",
                 str(tmp_path / "t")]) == 1
    assert "cannot read the candidates file" in capsys.readouterr().err
    (tmp_path / "empty.csv").write_text("project,url,created_at,title\n", encoding="utf-8")
    assert main(["sheets", str(tmp_path / "empty.csv"), "--annotators", "2", "--out",
                 str(tmp_path / "t")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sheets: no candidates: there is nothing to label") and \
        err.count("\n") == 1


def test_merge_says_what_it_did_and_what_is_left_to_decide(filled, tmp_path, capsys):
    out = tmp_path / "batch"
    assert main(["merge", *map(str, filled), "--out", str(out)]) == 0
    said = capsys.readouterr()
    lines = said.out.splitlines()
    assert lines[0] == (f"merge: 3 annotators, 3 candidates in 1 project(s): 1 labelled (1 by a "
                        f"majority, 0 by decision), 1 excluded (1 by all annotators, 0 by "
                        f"decision), 1 undecided (left out of the batch); 1 on "
                        f"labels/adjudication.csv; wrote {out}")
    assert lines[1] == f"merge: undecided, not in the batch: {U[1]}"
    assert lines[2].startswith(f"merge: decide them in the decision column of {out}/labels/"
                               "adjudication.csv (a theme code, or excluded), then: ")
    assert lines[2].endswith(f"--out {out} --decisions FILE --force")
    assert said.err == ""  # the selection was found beside the sheets and checked
    assert main(["merge", *map(str, filled), "--out", str(out)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith("the folder holds an earlier merge -> "
                           "choose another --out, or pass --force to replace it")
    assert err[-1] == "merge: 1 problem(s); nothing written"
    decisions = tmp_path / "decisions.csv"
    decisions.write_text(f"url,decision\n{U[1]},b.2\n", encoding="utf-8")
    assert main(["merge", *map(str, filled), "--out", str(out), "--decisions",
                 str(decisions), "--force"]) == 0
    said = capsys.readouterr().out
    assert "merge: decisions.csv: 1 decision(s) written in lower case" in said
    assert "2 labelled (1 by a majority, 1 by decision)" in said and "undecided:" not in said


def test_merge_warns_when_the_selection_is_not_found(filled, tmp_path, capsys):
    (tmp_path / "sel" / "selection" / "candidates.csv").unlink()
    assert main(["merge", *map(str, filled), "--out", str(tmp_path / "b")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("merge: warning: the sheets' selection") and err.count("\n") == 1
    assert main(["merge", *map(str, filled), "--out", str(tmp_path / "c"), "--selection",
                 "none"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["merge", *map(str, filled), "--out", str(tmp_path / "d"), "--selection",
                 str(tmp_path / "gone.csv")]) == 1
    assert "column '--selection': file not found" in capsys.readouterr().err


def test_the_selection_is_looked_for_beside_the_sheets_folder(tmp_path):
    sheet = tmp_path / "sel" / "sheets" / "annotator_1.csv"
    assert find_selection([str(sheet)], "NONE") == (None, None)
    found, warning = find_selection([str(sheet)], None)
    assert found is None and "pass --selection" in warning
    (tmp_path / "sel" / "selection").mkdir(parents=True)
    (tmp_path / "sel" / "selection" / "candidates.csv").write_text("x")
    assert find_selection([str(sheet)], None) == (
        tmp_path / "sel" / "selection" / "candidates.csv", None)


def test_extend_says_what_it_wrote_and_how_to_run_it(filled, tmp_path, capsys):
    assert main(["merge", *map(str, filled), "--out", str(tmp_path / "batch")]) == 0
    base = tmp_path / "base"
    write_dump(base, [Project("pytorch", {2024: 2}, repo="pytorch/pytorch")])
    capsys.readouterr()
    out = tmp_path / "study"
    assert main(["extend", "--base", str(base), "--batch", str(tmp_path / "batch"), "--out",
                 str(out), "--name", "new"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"extend: {base} (release: 2 label rows) + batch new (1 label rows, 1 excluded, "
        f"annotators in Label8..Label10); 7 other files carried; wrote {out}",
        f"extend: to run the pipeline on it, set ingest.source: {out} (and manifest: null, "
        "commit: null) in params.yaml, then make report; a team's batches are better "
        "listed in study.batches, which the pipeline merges and adds to the release itself "
        "(docs/update-loop.md)"]
    assert main(["extend", "--base", str(base), "--batch", str(tmp_path / "batch"), "--out",
                 str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("extend: ") and "holds an earlier extend" in err
    assert err.count("\n") == 1


def readme_commands(module: str) -> list[list[str]]:
    """The commands of ``module`` (``.venv/bin/python -m analysis.update.<module> ...``) that the
    update loop's reference page shows, continuation lines joined, as argument lists
    (tests/unit/test_doc_commands.py runs them)."""
    text = (ROOT / "docs" / "update-loop.md").read_text(encoding="utf-8").replace("\\\n", " ")
    prefix = f".venv/bin/python -m analysis.update.{module} "
    return [shlex.split(line.split(prefix, 1)[1].split("#")[0])
            for line in text.splitlines() if line.startswith(prefix)]


def test_the_readme_commands_are_commands_of_this_version():
    shown = {"select": readme_commands("select"), "labels": readme_commands("labels")}
    assert len(shown["select"]) == 2 and [c[0] for c in shown["labels"]] == [
        "sheets", "studio", "studio", "merge", "merge", "extend"]
    for command in shown["select"]:
        select_parser().parse_args(command)
    for command in shown["labels"]:
        labels_parser().parse_args(command)
    # one folder in all the examples: the batch's records
    assert {c[c.index("--out") + 1] for c in shown["select"]} == {"labels/2026-01"}
    assert shown["labels"][0][-1] == "labels/2026-01"


def test_the_keywords_page_command_is_a_command_of_this_version():
    """The select command report/keywords.qmd shows parses (no option of an old version)."""
    text = (ROOT / "report" / "keywords.qmd").read_text(encoding="utf-8").replace("\\\n", " ")
    prefix = ".venv/bin/python -m analysis.update.select "
    shown = [shlex.split(line.split(prefix, 1)[1]) for line in text.splitlines()
             if line.startswith(prefix)]
    assert len(shown) == 1
    select_parser().parse_args(shown[0])


def test_a_sheet_of_the_selection_left_out_of_a_merge_is_named(tmp_path, taxonomy, capsys):
    """Merging two of three annotators' sheets makes a batch of two: said in one warning
    naming the sheet left out (the batch is still written)."""
    paths = blank_sheets(tmp_path / "sel", CANDIDATES, ["alice", "bob", "chen"], taxonomy)
    for path in paths:
        fill(path, {U[0]: ("C.3", ""), U[1]: ("B.1", ""), U[2]: ("", "x")})
    assert main(["merge", str(paths[0]), str(paths[2]), "--out", str(tmp_path / "b")]) == 0
    err = capsys.readouterr().err
    assert err == (f"merge: warning: the sheet of bob ({paths[1]}) of this selection is not "
                   "among the inputs: the batch has 2 annotator(s), not 3 -> give it too, "
                   "unless bob labels no report of this batch\n")
    assert main(["merge", *map(str, paths), "--out", str(tmp_path / "c")]) == 0
    assert capsys.readouterr().err == ""


def test_the_merge_finds_the_selection_a_later_select_set_aside(filled, tmp_path, capsys):
    """select --force --set-aside replaced the candidates the sheets were made from and
    kept them as selection-<id>/: the merge of those sheets checks them against it (not
    against the newer selection, nor with a warning that none was found)."""
    sel = tmp_path / "sel"
    old = engine.selection_id(CANDIDATES)
    outputs.keep_aside(sel, old)
    _, newer = issues_of("vllm-project/vllm", 2)
    (sel / "selection").mkdir()
    newer.to_csv(sel / "selection" / "candidates.csv", index=False)
    assert main(["merge", *map(str, filled), "--out", str(tmp_path / "b")]) == 0
    said = capsys.readouterr()
    assert said.err == ""
    record = json.loads((tmp_path / "b" / "labels" / "merge.json").read_text())
    assert record["selection"] == old and record["selection_check"] == {
        "checked": True, "candidates": "candidates.csv"}
    assert find_selection([str(filled[0])], None, old) == (
        outputs.set_aside_folder(sel, old) / "candidates.csv", None)
