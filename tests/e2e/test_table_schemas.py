"""The CSVs of a run on a synthetic dump validate against their schemas and are described
(:mod:`analysis.core.table_schemas`; the unit tests check the current run's, when there is
one, and the dictionaries themselves: tests/unit/core/test_table_schemas.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.core.paths import Paths
from analysis.core.table_schemas import all_schemas
from tests.support.table_checks import table_problems, written_csvs


@pytest.mark.slow
def test_every_csv_of_a_synthetic_run_validates_and_is_described(site_project):
    """Every stage's CSVs, on the hostile dump of :mod:`tests.support.sites` (shared with
    the site tests: conftest.py's ``site_project``)."""
    written = written_csvs(site_project)
    study = {path.as_posix() for stage in Paths(Path(".")).stages()
             for path in (*map(stage.table, stage.STUDY_TABLES),
                          *map(stage.processed_file, stage.STUDY_PROCESSED))
             }  # written on a study dump only
    assert set(written) == set(all_schemas().tables) - study, \
        "the run wrote other CSVs than the schemas name"
    problems = [p for rel in written for p in table_problems(site_project, rel)]
    assert not problems, "\n".join(problems)
