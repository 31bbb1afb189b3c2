"""The set-up of ``make venv`` (the Makefile's ``SETUP``): uv when it can be had, pip as the
fallback, the same hashed pins and flags for both, the installer recorded. Python, pip and
uv are recording stand-ins: nothing is installed or downloaded. The real installers run in
CI, whose fresh clone runs ``make test`` (so ``make venv``) with uv."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from analysis.core.paths import ROOT

# A stand-in for the base Python: `-c` (the version check) passes unless OLD is set; `-m
# venv DIR` makes DIR/bin/python, a stand-in for the environment's Python.
BASE_PYTHON = """#!/bin/bash
if [ "$1" = -c ]; then [ -z "$OLD" ]; exit; fi
if [ "$1 $2" = "-m venv" ]; then
  mkdir -p "$3/bin" && cp "$STUBS/venv_python" "$3/bin/python" && exit 0
fi
exit 9
"""
# The environment's Python: pip installs (recorded; PIP_FAILS makes them fail; the uv pin
# brings uv unless NO_UV), pip's version, and the run record's module.
VENV_PYTHON = """#!/bin/bash
here=$(dirname "$0")
if [ "$1 $2" = "-m pip" ]; then
  if [ "$3" = --version ]; then echo "pip 99.0 from somewhere"; exit 0; fi
  echo "pip ${*:3}" >> "$LOG"
  [ -z "$PIP_FAILS" ] || exit 1
  case "$*" in *requirements-uv.txt*) [ -n "$NO_UV" ] || cp "$STUBS/uv" "$here/uv";; esac
  exit 0
fi
[ "$1 $2" = "-m analysis.core.runlog" ] && exit 0
exit 9
"""
UV = """#!/bin/bash
if [ "$1" = --version ]; then echo "uv 0.13.9 (stand-in)"; exit 0; fi
echo "uv ${*}" >> "$LOG"
[ -z "$UV_FAILS" ] || exit 2
"""
PINS = ("requirements.txt", "requirements-no-deps.txt", "requirements-uv.txt", "pyproject.toml")


@pytest.fixture
def project(tmp_path):
    """The Makefile and the files of pins in a folder of their own, and the stand-ins."""
    work = tmp_path / "work"
    work.mkdir()
    for name in ("Makefile", *PINS):
        shutil.copyfile(ROOT / name, work / name)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name, text in (("python", BASE_PYTHON), ("venv_python", VENV_PYTHON), ("uv", UV)):
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    return work, stubs


def make_venv(project, *args, **env) -> tuple[subprocess.CompletedProcess, list[str]]:
    """``make venv`` with the stand-ins; its result and the install commands, in order."""
    work, stubs = project
    log = work / "log"
    log.unlink(missing_ok=True)
    proc = subprocess.run(["make", "-s", "venv", f"PYTHON={stubs / 'python'}", *args],
                          cwd=work, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "STUBS": str(stubs), "LOG": str(log),
                               **env})
    commands = log.read_text().splitlines() if log.is_file() else []
    return proc, [c.replace(str(work), "WORK") for c in commands]


PIP = "pip install --quiet --disable-pip-version-check --no-compile"
UV_PIP = "uv pip install --quiet --python .venv/bin/python"
SAME_STEPS = ["--require-hashes -r requirements.txt",
              "--no-deps --require-hashes -r requirements-no-deps.txt",
              "--no-deps --no-build-isolation -e ."]


def installed(project) -> str | None:
    venv = project[0] / ".venv"
    return (venv / ".installer").read_text().strip() if (venv / ".installed").exists() \
        else None


def test_uv_installs_the_hashed_pins_then_the_project(project):
    proc, commands = make_venv(project)
    assert proc.returncode == 0, proc.stderr
    assert commands == [f"{PIP} --only-binary :all: --require-hashes -r requirements-uv.txt",
                        *(f"{UV_PIP} {step}" for step in SAME_STEPS)]
    assert installed(project) == "uv 0.13.9"
    assert proc.stdout.strip().endswith(".venv: installed with uv 0.13.9")
    assert (project[0] / ".venv" / ".gitignore").read_text() == "*\n"


def test_when_uv_fails_pip_installs_the_same_files_with_the_same_hashes(project):
    proc, commands = make_venv(project, UV_FAILS="1")
    assert proc.returncode == 0, proc.stderr
    assert commands[-3:] == [f"{PIP} {step}" for step in SAME_STEPS]
    assert installed(project) == "pip 99.0 (uv failed)"
    assert proc.stderr.strip() == ".venv: uv failed; installing with pip instead"


def test_when_uv_cannot_be_had_pip_installs(project):
    proc, commands = make_venv(project, NO_UV="1")
    assert proc.returncode == 0, proc.stderr
    assert commands[1:] == [f"{PIP} {step}" for step in SAME_STEPS]
    assert installed(project) == \
        "pip 99.0 (uv could not be installed from requirements-uv.txt)"
    (project[0] / ".venv" / ".installed").unlink()  # as after a change to a pin
    proc, commands = make_venv(project, "INSTALLER=pip")
    assert proc.returncode == 0, proc.stderr
    assert commands == [f"{PIP} {step}" for step in SAME_STEPS]
    assert installed(project) == "pip 99.0 (INSTALLER=pip)"


def test_installer_uv_allows_no_fallback(project):
    proc, commands = make_venv(project, "INSTALLER=uv", UV_FAILS="1")
    assert proc.returncode != 0 and installed(project) is None
    assert ".venv: uv failed and INSTALLER=uv allows no fallback" in proc.stderr
    assert not any(c.startswith("pip") and "requirements.txt" in c for c in commands)


def test_a_failing_pip_or_an_old_python_is_one_message(project):
    proc, _ = make_venv(project, "INSTALLER=pip", PIP_FAILS="1")
    assert proc.returncode != 0 and installed(project) is None
    assert "pip failed (its message is above); fix that, then run make venv again" \
        in proc.stderr
    proc, commands = make_venv(project, OLD="1")
    assert proc.returncode != 0 and commands == []
    assert "is older than Python 3.11: run make with PYTHON=python3.11" in proc.stderr


def test_the_targets_named_like_folders_always_run():
    """``report/`` and ``tests/`` are folders: without .PHONY, make would take ``make
    report`` and ``make test`` as done."""
    proc = subprocess.run(["make", "-n", "report", "test"], cwd=ROOT, capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin"})
    assert "python -m analysis.tools.repro" in proc.stdout
    assert "python -m pytest" in proc.stdout
