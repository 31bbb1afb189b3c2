"""Decisions files: codes (any letter case) and `excluded` read, empty cells undecided,
every wrong value one line; CSV or .xlsx alike."""

from __future__ import annotations

import openpyxl
import pytest

from analysis.update.labels.checks import MAX_LISTED
from analysis.update.labels.decisions import read_decisions, unused_problems

U = [f"https://github.com/pytorch/pytorch/issues/{i}" for i in range(1, 6)]


def test_codes_excluded_and_empty_cells(tmp_path, taxonomy):
    path = tmp_path / "decided.csv"
    path.write_text("url;project;decision;notes\n"
                    f"{U[0]};pytorch;C.3;\n{U[1]};pytorch; c.1 ;\n{U[2]};pytorch;Excluded;\n"
                    f"{U[3]};pytorch;;later\n{U[0]};pytorch;C.3;twice, the same\n",
                    encoding="utf-8")
    found = read_decisions(path, set(taxonomy.codes))
    assert found.problems == []
    assert {u: d for u, (d, _) in found.by_url.items()} == {
        U[0]: "C.3", U[1]: "C.1", U[2]: "excluded"}
    assert (found.name, found.rows, found.lowercase_codes) == ("decided.csv", 5, 1)
    assert found.get(U[3]) is None and len(found.sha256) == 64


def test_every_wrong_decision_is_one_line(tmp_path, taxonomy):
    path = tmp_path / "decided.csv"
    path.write_text(f"url,decision\n{U[0]},C.13\n{U[1]},B.2\n{U[1]},B.3\n,A.1\n"
                    f"{U[2]},maybe\n", encoding="utf-8")
    found = read_decisions(path, set(taxonomy.codes), name="decided.csv")
    assert [str(p) for p in found.problems] == [
        "decided.csv, line 2, column 'decision': 'C.13' is neither a theme code nor "
        "excluded -> write a theme code of sheets/codebook.csv (A.1 ... C.10), or excluded "
        "for a false positive, or leave the cell empty while undecided",
        f"decided.csv, line 4, column 'decision': {U[1]} is decided B.2 on line 3 and B.3 "
        "here -> keep one decision per report",
        "decided.csv, line 5, column 'url': a decision without a url -> keep the url of the "
        "adjudication list",
        "decided.csv, line 6, column 'decision': 'maybe' is neither a theme code nor "
        "excluded -> write a theme code of sheets/codebook.csv (A.1 ... C.10), or excluded "
        "for a false positive, or leave the cell empty while undecided"]


def test_a_workbook_of_decisions_reads_as_its_csv(tmp_path, taxonomy):
    book = openpyxl.Workbook()
    for row in (["url", "decision"], [U[0], "C.3"], [U[1], "excluded"], [U[2], None]):
        book.active.append(row)
    book.save(tmp_path / "decided.xlsx")
    found = read_decisions(tmp_path / "decided.xlsx", set(taxonomy.codes))
    assert {u: d for u, (d, _) in found.by_url.items()} == {U[0]: "C.3", U[1]: "excluded"}


def test_a_file_without_the_columns_is_refused(tmp_path, taxonomy):
    (tmp_path / "d.csv").write_text("url,label\nx,y\n", encoding="utf-8")
    with pytest.raises(Exception, match="not a decisions file header .no url and decision"):
        read_decisions(tmp_path / "d.csv", set(taxonomy.codes))


def test_decisions_off_the_list_are_named(tmp_path, taxonomy):
    path = tmp_path / "d.csv"
    path.write_text(f"url,decision\n{U[0]},C.3\n{U[1]},C.3\n{U[4]},C.3\n", encoding="utf-8")
    found = read_decisions(path, set(taxonomy.codes))
    problems = unused_problems(found, sheet_urls=set(U[:4]), listed={U[0]})
    assert [(p.line, p.problem) for p in problems] == [
        (3, f"{U[1]} is not on the adjudication list (its annotators agree)"),
        (4, f"{U[4]} is in no sheet")]


def test_long_lists_of_one_problem_are_cut_as_the_sheets_are(tmp_path, taxonomy):
    many = [f"https://github.com/pytorch/pytorch/issues/{i}" for i in range(100, 130)]
    path = tmp_path / "d.csv"
    path.write_text("url,decision\n" + "".join(f"{u},Z.{i}\n" for i, u in enumerate(many))
                    + "".join(f"{u},C.3\n" for u in many[:25]), encoding="utf-8")
    found = read_decisions(path, set(taxonomy.codes))
    assert len(found.problems) == MAX_LISTED + 1
    assert [p.line for p in found.problems[:MAX_LISTED]] == list(range(2, 2 + MAX_LISTED))
    assert str(found.problems[-1]) == (f"{path}: 10 more values that are no decision -> see "
                                       "the messages above")
    problems = unused_problems(found, sheet_urls=set(), listed=set())
    assert len(problems) == MAX_LISTED + 1
    assert str(problems[-1]) == (f"{path}: 5 more decisions for urls in no sheet -> see the "
                                 "messages above")
