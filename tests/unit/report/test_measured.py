"""Whether the evaluators' page measures the commit a release is built from
(:mod:`analysis.report.measured`), in a small git repository."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from analysis.core.paths import Paths
from analysis.report.measured import measurement_problem


def git(work: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org",
                           "-c", "commit.gpgsign=false", *args], cwd=work, check=True,
                          capture_output=True, text=True).stdout.strip()


def commit_all(work: Path, message: str) -> str:
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", message)
    return git(work, "rev-parse", "HEAD")


def measure(work: Path, commit: str) -> dict:
    """Write the record of ``commit`` and the dvc.lock of a site built from it."""
    record = work / "data" / "fresh_clone.json"
    record.write_text(json.dumps({"commit": commit, "total_seconds": 1.0}))
    md5 = hashlib.md5(record.read_bytes()).hexdigest()
    lock = {"stages": {"report": {"deps": [{"path": "data/fresh_clone.json", "md5": md5}]}}}
    (work / "dvc.lock").write_text(json.dumps(lock))
    return lock


def test_only_a_measurement_of_this_commit_passes(tmp_path):
    work = tmp_path / "p"
    (work / "data").mkdir(parents=True)
    (work / "code.py").write_text("x = 1\n")
    git(work, "init", "-q")
    paths = Paths(work)
    assert measurement_problem(paths, {}) == "no readable measurement of a fresh clone"
    measured = commit_all(work, "code")
    lock = measure(work, measured)
    commit_all(work, "the measurement")  # changes only the record and dvc.lock
    assert measurement_problem(paths, lock) is None
    # a site built from another record
    assert measurement_problem(paths, {"stages": {}}) == (
        "the site was built from another measurement (dvc.lock has another hash)")
    # code changed since the measurement
    for n in range(5):
        (work / f"m{n}.py").write_text("y = 2\n")
    commit_all(work, "more code")
    assert measurement_problem(paths, lock) == (
        f"it measures commit {measured[:7]}, and 5 files changed since then: m0.py, m1.py, "
        "m2.py and 2 more")
    lock = measure(work, "f" * 40)
    assert measurement_problem(paths, lock) == (
        f"it measures commit {'f' * 40!r}, which this repository does not have")
