"""Whether the evaluators' page measures the commit a release is built from.

The page shows the measured cost of a fresh clone (``data/fresh_clone.json``, written by
``python -m analysis.tools.fresh_clone``). A measurement is committed after the commit it
measures, so "this commit" means: the measured commit, or a later one that changed nothing
but the measurement and the ``dvc.lock`` that records its hash (:data:`MEASUREMENT_FILES`).
``make release`` refuses a checkout whose record measures another commit, or whose site
shows another record than the committed one (``dvc.lock``'s hash of it is not the file's:
``make report`` has not run since).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from analysis.core.paths import Paths

IN_PROJECT = Paths(Path("."))
MEASUREMENT_FILES = {IN_PROJECT.fresh_clone.as_posix(), IN_PROJECT.dvc_lock.as_posix()}
SHOWN = 3
FIX = ("measure this commit (python -m analysis.tools.fresh_clone --tests), commit "
       "data/fresh_clone.json, run make report and commit dvc.lock, then make release")


def changed_since(root: Path, commit: str) -> list[str] | None:
    """The files that differ between ``commit`` and HEAD (None if git does not know
    ``commit``)."""
    done = subprocess.run(["git", "diff", "--name-only", commit, "HEAD", "--"], cwd=root,
                          capture_output=True, text=True, check=False)
    return sorted(done.stdout.split("\n")[:-1]) if done.returncode == 0 else None


def locked_md5(lock: dict, path: str) -> str | None:
    """The MD5 ``dvc.lock`` records for the dependency ``path`` (of any stage)."""
    for stage in (lock.get("stages") or {}).values():
        for dep in stage.get("deps") or []:
            if dep.get("path") == path:
                return str(dep.get("md5"))
    return None


def measurement_problem(paths: Paths, lock: dict) -> str | None:
    """Why the committed measurement is not of HEAD, or not the one the site shows (see
    the module docstring); None when it is."""
    record_path = paths.fresh_clone
    try:
        data = record_path.read_bytes()
        commit = str(json.loads(data).get("commit") or "")
    except (OSError, ValueError, AttributeError):
        return "no readable measurement of a fresh clone"
    changed = changed_since(paths.root, commit) if commit else None
    if changed is None:
        return f"it measures commit {commit or '(none)'!r}, which this repository does not have"
    others = [f for f in changed if f not in MEASUREMENT_FILES]
    if others:
        listed = ", ".join(others[:SHOWN]) + (f" and {len(others) - SHOWN} more"
                                             if len(others) > SHOWN else "")
        return (f"it measures commit {commit[:7]}, and {len(others)} files changed since "
                f"then: {listed}")
    if locked_md5(lock, IN_PROJECT.fresh_clone.as_posix()) != hashlib.md5(data).hexdigest():
        return "the site was built from another measurement (dvc.lock has another hash)"
    return None
