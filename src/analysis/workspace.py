"""Throw-away copies of the project, for end-to-end tests and benchmarks.

A copy holds the project's tracked files (and new, not ignored ones), its own git
repository and DVC state, and runs with its own ``src/`` first on ``PYTHONPATH``, so
running the pipeline there never touches the working tree's outputs or cache.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .config import ROOT


def project_files(root: Path = ROOT) -> list[str]:
    """Tracked and untracked-but-not-ignored files of the project (relative paths)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=root, check=True, capture_output=True).stdout.decode()
    return sorted(f for f in out.split("\0") if f and (root / f).is_file())


def copy_project(dest: Path, root: Path = ROOT) -> Path:
    """Copy the project to ``dest`` (without outputs or caches) and make it a git repo."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel in project_files(root):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, dest / rel)
    (dest / "dvc.lock").unlink(missing_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)
    return dest


def pipeline_env(work: Path) -> dict[str, str]:
    """Environment for running ``dvc``/notebooks in a copy: its own code, this venv's tools."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "PYTHONPATH": str(work / "src"), "PYTHONHASHSEED": "0"}


def set_params(work: Path, section: str, **values: object) -> None:
    """Set ``section.key: value`` lines in the copy's params.yaml (keeps comments)."""
    path = work / "params.yaml"
    text = path.read_text(encoding="utf-8")
    for key, value in values.items():
        shown = "null" if value is None else str(value)
        pattern = rf"(^{re.escape(section)}:\n(?:(?:[ \t]+.*|)\n)*?[ \t]+{re.escape(key)}:)[^\n]*"
        text, n = re.subn(pattern, lambda m, s=shown: f"{m.group(1)} {s}", text, count=1,
                          flags=re.M)
        if not n:
            raise KeyError(f"{section}.{key} not in {path}")
    path.write_text(text, encoding="utf-8")


def dvc(work: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``dvc <args>`` in a copy; raise with its output when it fails and check is set."""
    proc = subprocess.run(["dvc", *args], cwd=work, env=pipeline_env(work),
                          capture_output=True, text=True)
    if check and proc.returncode:
        raise RuntimeError(f"dvc {' '.join(args)} failed ({proc.returncode}):\n"
                           f"{proc.stdout}\n{proc.stderr}")
    return proc
