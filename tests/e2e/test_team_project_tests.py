"""The project's own tests, run in a project where a team has committed two batches: no
test may depend on which batches the project holds (the batches' names in params.yaml,
their folders under labels/, their merge stages in dvc.lock). Cheap: only the tests that
read the project's files (dvc.yaml, params.yaml, dvc.lock, labels/), fast tier."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from analysis.core.paths import ROOT
from tests.support.workspace import copy_project, dvc, pipeline_env, set_params
from tests.unit.study.test_study import write_records

pytestmark = pytest.mark.slow

# the unit tests that read the project's own pipeline, params, lock or records
READERS = ("tests/unit/report/test_dag.py", "tests/unit/test_dvc_yaml.py",
           "tests/unit/tools/test_pipeline.py", "tests/unit/core/test_paths.py",
           "tests/unit/core/test_params.py", "tests/unit/test_named_paths.py",
           "tests/unit/test_stage_names.py", "tests/unit/report/test_pages.py",
           "tests/unit/report/test_variables.py", "tests/unit/study/test_study.py",
           "tests/unit/labels/test_main.py", "tests/unit/test_properties.py",
           "tests/unit/test_docs.py", "tests/unit/core/test_pins.py",
           "tests/unit/report/test_release.py", "tests/unit/select/test_known.py")
GIT_PERSON = {"GIT_AUTHOR_NAME": "alice", "GIT_AUTHOR_EMAIL": "alice@lab.org",
              "GIT_COMMITTER_NAME": "alice", "GIT_COMMITTER_EMAIL": "alice@lab.org"}


def git(work, *args: str) -> None:
    subprocess.run(["git", *args], cwd=work, check=True, env={**os.environ, **GIT_PERSON})


def test_the_unit_tests_pass_in_a_project_with_two_committed_batches(tmp_path, taxonomy):
    work = copy_project(tmp_path / "project")
    shutil.copyfile(ROOT / "dvc.lock", work / "dvc.lock")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "The team's project")
    write_records(work, "2026-01", 2025, taxonomy)
    write_records(work, "2026-02", 2026, taxonomy)
    set_params(work, "study", batches="[2026-01, 2026-02]")
    dvc(work, "repro", "--single-item", "merge@2026-01", "merge@2026-02")
    git(work, "add", "labels", "merges", "params.yaml", "dvc.lock")
    git(work, "commit", "-q", "-m", "Batches 2026-01 and 2026-02")
    # the property tests read the project's params; what they search for does not depend on
    # the batches, so a few examples each are enough here (the fast tier runs the full count)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                           "-m", "not slow", *READERS], cwd=work,
                          env={**pipeline_env(work), "PROPERTY_EXAMPLES": "5"},
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
