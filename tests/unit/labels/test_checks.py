"""Every problem of a set of sheets named in one line, nothing written: per row, across
sheets, and against the selection the sheets were made from (a row deleted from every
sheet is caught); a sheet of another selection is one line, and nothing else is said of
it."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

from analysis.core.errors import InputError
from analysis.update.labels import merge
from analysis.update.labels.checks import most_common, most_counted, row_problems, table_problems
from analysis.update.labels.readers import read_sheet
from analysis.update.labels.sheets import check_candidates
from analysis.update.labels.tables import read_candidates
from analysis.update.select.formats import skip_reason
from tests.support.sheets import blank_sheets, candidates_frame, fill, issues_of, read_rows

U, CANDIDATES = issues_of("pytorch/pytorch", 4, 2024)


@pytest.fixture
def filled(tmp_path, taxonomy):
    paths = blank_sheets(tmp_path / "sel", CANDIDATES, 3, taxonomy)
    for path in paths:
        fill(path, {u: ("C.3", "") for u in U})
    return paths


def write_rows(path, rows) -> None:
    path.write_text("\n".join(",".join(f'"{c}"' for c in r) for r in rows) + "\n",
                    encoding="utf-8")


def problems_of(paths, tmp_path, taxonomy, **selection) -> list[str]:
    out = tmp_path / "out"
    with pytest.raises(merge.SheetProblems) as err:
        merge.merge_inputs(paths, out, set(taxonomy.codes), **selection)
    assert not out.exists() and not list(tmp_path.glob(".out-*"))
    return [str(p) for p in err.value.problems]


def test_every_problem_is_named_and_nothing_is_written(filled, tmp_path, taxonomy):
    fill(filled[0], {U[0]: ("C.13", ""), U[1]: ("", ""), U[3]: ("A.2", "maybe")})
    rows = read_rows(filled[1])
    del rows[2]  # annotator 2 deleted a row
    rows[1][rows[0].index("selection")] = "sel-000000000000"
    write_rows(filled[1], rows)
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
    other = blank_sheets(tmp_path / "other", CANDIDATES.iloc[:3], 1, taxonomy)[0]
    fill(other, {u: ("C.1", "") for u in U})
    rows = read_rows(filled[2])
    rows.append(rows[1])
    write_rows(filled[2], rows)
    found = problems_of([filled[0], other, filled[2], filled[0]], tmp_path, taxonomy)
    assert any(f"{other}, column 'selection': a sheet of another selection" in p
               for p in found)
    assert any(f"{filled[2]}, line 6, column 'url': {U[0]} is also on line 2" in p
               for p in found)
    assert any(p.startswith(f"{filled[0]}: the same file as {filled[0]}") for p in found)


def test_a_row_deleted_from_every_sheet_is_caught_against_the_selection(filled, tmp_path,
                                                                       taxonomy):
    for path in filled:
        rows = read_rows(path)
        del rows[3]  # every annotator deleted the same candidate
        write_rows(path, rows)
    candidates = tmp_path / "sel" / "selection" / "candidates.csv"
    selection = read_candidates(candidates)
    merge.merge_inputs(filled, tmp_path / "unchecked", set(taxonomy.codes))  # merges...
    found = problems_of(filled, tmp_path, taxonomy, selection=selection,
                        selection_name=str(candidates))  # ...unless checked
    assert found == [f"{candidates}: 1 candidate(s) of the selection are in no sheet (first: "
                     f"{U[2]}): a row deleted from every sheet would change the "
                     "false-positive denominator -> restore the rows from a blank sheet "
                     "(labels sheets writes them again), label them, and merge again"]


def test_rows_that_are_no_candidates_and_another_selection_are_one_line(filled, taxonomy):
    def selection_problems(candidates):
        reads = [read_sheet(p, codes=set(taxonomy.codes)) for p in filled]
        return [str(p) for p in table_problems(reads, None, candidates, "c.csv")]

    assert selection_problems(CANDIDATES) == []
    added = "https://github.com/pytorch/pytorch/issues/99"
    for path in filled:
        rows = read_rows(path)
        rows.append([rows[1][0], added, *rows[1][2:]])
        write_rows(path, rows)
    assert selection_problems(CANDIDATES) == [
        f"c.csv: 1 row(s) of the sheets are not candidates of the selection (first: {added}) "
        "-> remove the rows added to the sheets, or pass --selection the candidates.csv the "
        "sheets were made from"]
    fewer = CANDIDATES.iloc[:3]
    [problem] = selection_problems(fewer)
    assert "the sheets are of selection sel-" in str(problem) and "--selection" in str(
        problem)
    assert str(problem).startswith("c.csv: ")


def test_a_sheet_of_another_selection_is_one_line(filled, tmp_path, taxonomy):
    """A sheet of another selection (another run of select, 33 rows of other reports) is
    named in one line, and its rows are not listed as missing from the others, nor theirs
    from it: "restore the row" would be wrong advice there."""
    _, others = issues_of("pytorch/pytorch", 33, 2026)
    other = blank_sheets(tmp_path / "other", others, 1, taxonomy)[0]
    fill(other, {u: ("C.1", "") for u in others["url"]})
    found = problems_of([filled[0], other, filled[2]], tmp_path, taxonomy)
    assert len(found) == 1, found
    assert found[0].startswith(f"{other}, column 'selection': a sheet of another selection")
    assert "restore the row" not in found[0]


def test_a_label_in_lower_case_is_read_and_named_by_its_line(filled, tmp_path, taxonomy,
                                                            capsys):
    from analysis.update.labels.__main__ import main

    fill(filled[1], {U[2]: ("a.1", ""), U[3]: ("c.3", "")})
    assert main(["merge", *map(str, filled), "--out", str(tmp_path / "b")]) == 0
    said = capsys.readouterr().out
    assert (f"merge: {filled[1].name}: 2 label(s) written in lower case, read as the code: "
            "line 4 ('a.1' as A.1), line 5 ('c.3' as C.3)") in said


# What select accepts, the next steps accept: one address check and one date check.
IMG_URL = "https://github.com/pytorch/pytorch/issues/9#<img src=x onerror=alert(1)>"
ADDRESSES = ["https://github.com/pytorch/pytorch/issues/9", IMG_URL,
             "https://github.com/pytorch/pytorch/issues/9\u202e",
             "https://github.com/pytorch/pytorch/issues/9\x00", "https://gitee.com/a/b/issues/I1",
             "https://github.com/pytorch/pytorch/issues/9?x=1#a", "http://github.com/a/b/issues/1"]


def sheet_row(url: str) -> pd.DataFrame:
    """One sheet row as the sheet reader gives it to the row checks."""
    rows = pd.DataFrame([{"url": url, "project": "pytorch", "line": 2, "n_fields": 3,
                          "label": "C.3", "excluded": "", "confidence": "", "minutes": "",
                          "selection": "sel-1", "annotator": "a"}])
    rows.attrs["header_fields"] = 3
    return rows


@pytest.mark.parametrize("url", ADDRESSES)
def test_what_select_accepts_sheets_and_merge_accept(url, taxonomy):
    selected = skip_reason(url, "2025-01-01T00:00:00Z") is None
    merged = not [p for p in row_problems(sheet_row(url), "s.csv", set(taxonomy.codes))
                  if "column 'url'" in str(p)]
    try:
        check_candidates(candidates_frame([("pytorch", url, "2025-01-01T00:00:00Z", "t")]))
        sheets = True
    except InputError:
        sheets = False
    assert selected == merged == sheets
    assert selected == (url == ADDRESSES[0] or "?" in url or "gitee" in url
                        or url.startswith("http:"))


@pytest.mark.parametrize("when", ["9999-12-31T00:00:00Z", "2262-04-12T00:00:00Z",
                                  "1677-09-21T00:00:00Z", "0001-01-01T00:00:00Z"])
def test_sheets_and_merge_refuse_a_date_a_study_cannot_hold(when, filled, tmp_path, taxonomy):
    frame = candidates_frame([("pytorch", U[0], when, "t")])
    with pytest.raises(InputError, match="outside the years an issue may have"):
        check_candidates(frame)
    for path in filled:  # the date edited in every sheet: the same date, out of range
        rows = read_rows(path)
        at, url = rows[0].index("created_at"), rows[0].index("url")
        for row in rows[1:]:
            if row[url] == U[0]:
                row[at] = when
        write_rows(path, rows)
    found = problems_of(filled, tmp_path, taxonomy)
    assert any(f"{U[0]}: the creation date {when[:10]}: the year" in p for p in found)
    assert all("\n" not in p for p in found)


def test_the_most_common_value_is_the_first_in_sort_order_among_equals_and_never_empty():
    assert most_common(pd.Series(["b", "a", "b", "a", "", ""])) == "a"
    assert most_common(pd.Series(["sel-2", "sel-1", "sel-2"])) == "sel-2"
    assert most_common(pd.Series(["", ""])) == "" and most_common(pd.Series([], dtype=object)) == ""
    assert most_counted(Counter({"": 9, "x": 2, "w": 2, "y": 1})) == "w"
    assert most_counted(Counter({"": 3})) == ""
