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

from analysis.core.paths import ROOT


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


def copy_run(project: Path, dest: Path) -> Path:
    """Copy a project copy that has run (outputs, ``dvc.lock``, its ``.dvc/cache`` and git
    repository) to ``dest``: DVC takes the copy as up to date, so a test that changes a run
    starts from it instead of running the pipeline again. The copy reads the same dump (its
    params name it by its absolute path): never change that dump."""
    shutil.copytree(project, dest, symlinks=True)
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


def run_in(work: Path, command: list[str], check: bool = True,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``command`` in a copy, with the copy's code (:func:`pipeline_env`, updated with
    ``env``); raise with its output when it fails and ``check`` is set."""
    proc = subprocess.run(command, cwd=work, env={**pipeline_env(work), **(env or {})},
                          capture_output=True, text=True)
    if check and proc.returncode:
        raise RuntimeError(f"{' '.join(command)} failed ({proc.returncode}):\n"
                           f"{proc.stdout}\n{proc.stderr}")
    return proc


def dvc(work: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``dvc <args>`` in a copy."""
    return run_in(work, ["dvc", *args], check=check)


def reproduce(work: Path, *args: str,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the pipeline in a copy as ``make report`` does (``python -m
    analysis.tools.repro <args>``), with ``env`` added to its environment."""
    return run_in(work, [sys.executable, "-m", "analysis.tools.repro", *args], env=env)


SKIP_DIRS = {".git", ".dvc", "__pycache__", ".pytest_cache", ".ruff_cache"}
# What differs between two runs by design: the run record (times, machine), kept outside
# the outputs (docs/website.md).
RUN_RECORD = ("build/runs/", "report/_site/build.json", "report/_site/build-info.js")


def output_files(work: Path) -> list[str]:
    """Every file in a copy that the pipeline wrote (the copy's own files excluded)."""
    inputs = set(project_files(work))
    found = []
    for path in sorted(work.rglob("*")):
        rel = path.relative_to(work)
        if (path.is_file() and not SKIP_DIRS & set(rel.parts) and rel.as_posix() not in inputs
                and not rel.as_posix().startswith(RUN_RECORD)):
            found.append(rel.as_posix())
    return found


def first_difference(a: bytes, b: bytes) -> str:
    """Where two versions of a file first differ: the line (text) or the byte offset."""
    try:
        la, lb = a.decode("utf-8").splitlines(), b.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        pairs = enumerate(zip(a, b, strict=False))
        offset = next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))
        return f"byte {offset} (sizes {len(a)} and {len(b)})"
    for i, (x, y) in enumerate(zip(la, lb, strict=False), 1):
        if x != y:
            return f"line {i}: {x[:120]!r} != {y[:120]!r}"
    return f"line {min(len(la), len(lb)) + 1}: one file ends ({len(la)} vs {len(lb)} lines)"


def lock_difference(expected: str, actual: str) -> str:
    """Where two versions of a ``dvc.lock`` first differ, named by stage and path: ``stage
    clean: deps src/analysis/core: md5 1a.. != 2b..`` (empty if they are the same text)."""
    import yaml

    if expected == actual:
        return ""
    a, b = yaml.safe_load(expected) or {}, yaml.safe_load(actual) or {}
    sa, sb = a.get("stages") or {}, b.get("stages") or {}
    for stage in [*sa, *(s for s in sb if s not in sa)]:
        if stage not in sb:
            return f"stage {stage}: only in the first"
        if stage not in sa:
            return f"stage {stage}: only in the second"
        x, y = sa[stage], sb[stage]
        for key in [*x, *(k for k in y if k not in x)]:
            if x.get(key) == y.get(key):
                continue
            if key in ("deps", "outs") and isinstance(x.get(key), list) and isinstance(
                    y.get(key), list):
                ex = {e["path"]: e for e in x[key]}
                ey = {e["path"]: e for e in y[key]}
                for path in [*ex, *(q for q in ey if q not in ex)]:
                    if path not in ey:
                        return f"stage {stage}: {key} {path}: only in the first"
                    if path not in ex:
                        return f"stage {stage}: {key} {path}: only in the second"
                    if ex[path] != ey[path]:
                        field = next(f for f in [*ex[path], *ey[path]]
                                     if ex[path].get(f) != ey[path].get(f))
                        return (f"stage {stage}: {key} {path}: {field} "
                                f"{ex[path].get(field)} != {ey[path].get(field)}")
                return f"stage {stage}: {key}: the same paths in another order"
            return f"stage {stage}: {key}: {x.get(key)!r:.200} != {y.get(key)!r:.200}"
    return "the same stages, written differently: " + first_difference(
        expected.encode(), actual.encode())


def compare_outputs(first: Path, second: Path) -> list[str]:
    """Differences between the outputs of two copies: missing files and first differences."""
    a, b = set(output_files(first)), set(output_files(second))
    problems = [f"{rel}: only in the first run" for rel in sorted(a - b)]
    problems += [f"{rel}: only in the second run" for rel in sorted(b - a)]
    for rel in sorted(a & b):
        x, y = (first / rel).read_bytes(), (second / rel).read_bytes()
        if x != y:
            problems.append(f"{rel}: {first_difference(x, y)}")
    return problems
