"""The site's downloads: the exclusion files are offered when the dump records any; CSVs
are copied with every would-be formula neutralised."""

from __future__ import annotations

import csv

from analysis.core.paths import Paths
from analysis.core.textsafe import neutralise_cell
from analysis.report.downloads import downloadable, neutralise_csv, records_exclusions


def test_exclusion_files_are_offered_when_the_dump_records_exclusions(tmp_path):
    paths = Paths(tmp_path)
    clean = paths.clean
    clean.processed.mkdir(parents=True)
    for name in ("issues.csv", "rejected.csv", "exclusions.csv"):
        clean.processed_file(name).write_text("project\nx\n", encoding="utf-8")
    excluded = clean.processed_file("excluded.csv")
    excluded.write_text("project,issue_url\n", encoding="utf-8")  # none recorded
    names = [name for _, name, _ in downloadable(paths)]
    assert not records_exclusions(paths) and "data/excluded.csv" not in names
    excluded.write_text("project,issue_url\nvllm,https://x.org/i/1\n", encoding="utf-8")
    names = [name for _, name, _ in downloadable(paths)]
    assert records_exclusions(paths)
    assert names[:4] == ["data/issues.csv", "data/rejected.csv", "data/excluded.csv",
                         "data/exclusions.csv"]


def test_a_csv_is_copied_with_each_would_be_formula_neutralised(tmp_path):
    rows = [["title", "n", "note"], ["=HYPERLINK(1)", "-3", "plain"], ["a, b", "4", 'say "x"'],
            ["ok", "+1e3", "@user"], ["multi\nline", "", "-x"]]
    src, dest = tmp_path / "in.csv", tmp_path / "out.csv"
    with src.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    assert neutralise_csv(src, dest) == 3  # the formula, the mention, '-x'; not the numbers
    with dest.open(encoding="utf-8", newline="") as handle:
        copied = list(csv.reader(handle))
    assert copied == [[neutralise_cell(c) for c in row] for row in rows]
    assert copied[1] == ["'=HYPERLINK(1)", "-3", "plain"] and copied[2] == rows[2]
    assert dest.read_text(encoding="utf-8").splitlines()[2] == '"a, b",4,"say ""x"""'
