"""End to end: `dvc repro` in a throw-away copy of the project, on a synthetic dump (the
shared run of conftest.py). (The run on the offline mirror, which must reproduce the
committed dvc.lock: test_release.py's offline rebuild of the archive; byte-for-byte
determinism: test_update_tutorial.py's fresh clone; newer and defective dumps:
test_dumps.py.)"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.support.dumps import expected_counts
from tests.support.workspace import (
    copy_run,
    dvc,
)

pytestmark = pytest.mark.slow


def test_pipeline_on_a_synthetic_dump_is_complete_stable_and_incremental(small_run, tmp_path):
    work = small_run.project
    table = pd.read_csv(work / "report/tables/table1/counts.csv", dtype={"project": str})
    table = table.set_index("project")
    for name, exp in expected_counts(small_run.written).items():
        assert table.loc[name, "Total"] == exp["total"]
        for year, n in exp["years"].items():
            assert table.loc[name, str(year)] == n
    assert (work / "report/_site/index.html").is_file()  # the report stage ran
    taxonomy = json.loads((work / "report/vars/taxonomy.json").read_text())
    assert str(taxonomy["n_details_bug"]).replace(",", "") == str(45 * 2)  # 2 per sub-theme
    # Nothing to do again, in a copy of the run (the copies the other tests start from).
    again = copy_run(work, tmp_path / "again")
    assert "Data and pipelines are up to date" in dvc(again, "repro").stdout
    status = json.loads(dvc(again, "metrics", "show", "--json").stdout)
    assert "metrics/table1.json" in json.dumps(status)
