"""The site's downloads: the exclusion files are offered when the dump records any."""

from __future__ import annotations

from analysis.core.paths import Paths
from analysis.report.downloads import downloadable, records_exclusions


def test_exclusion_files_are_offered_when_the_dump_records_exclusions(tmp_path):
    paths = Paths(tmp_path)
    clean = paths.clean
    clean.processed.mkdir(parents=True)
    for path in (clean.issues_csv, clean.rejected_csv, clean.exclusions_csv):
        path.write_text("project\nx\n", encoding="utf-8")
    clean.excluded_csv.write_text("project,issue_url\n", encoding="utf-8")  # none recorded
    names = [name for _, name, _ in downloadable(paths)]
    assert not records_exclusions(paths) and "data/excluded.csv" not in names
    clean.excluded_csv.write_text("project,issue_url\nvllm,https://x.org/i/1\n",
                                  encoding="utf-8")
    names = [name for _, name, _ in downloadable(paths)]
    assert records_exclusions(paths)
    assert names[:4] == ["data/issues.csv", "data/rejected.csv", "data/excluded.csv",
                         "data/exclusions.csv"]
