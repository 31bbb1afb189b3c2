"""Set up a virtual environment with the pinned dependencies: with uv when it can be had,
else with pip; and regenerate the hashes of the pins.

``make venv`` (so ``make report``, ``make test`` and ``make test-pythons``) runs this
module with the base Python, before the package is installed (``PYTHONPATH=src``), so it
and what it imports use the standard library only::

    PYTHONPATH=src python -m analysis.tools.install .venv                  # uv, else pip
    PYTHONPATH=src python -m analysis.tools.install .venv --installer pip  # pip only
    PYTHONPATH=src python -m analysis.tools.install .venv --pins           # make pins

Both installers run the same steps (:func:`install_steps`): the same files with the same
flags, every pin checked against its hashes (``--require-hashes``), then the project
itself, editable. Hashes name the exact files, so both put the same bytes into the
environment, the files CI tested. uv is itself a pin (``requirements-uv.txt``, one wheel
installed by pip); when it cannot be had or fails, pip does the whole install. The line
printed at the end and ``<venv>/.installer`` say which one ran.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from analysis.core.paths import Paths
from analysis.core.pins import (
    INSTALLER_RECORD,
    PinFile,
    changes,
    hashes,
    header,
    pin_files,
    pins,
    requirement_lines,
    uv_pins,
)

STAMP = ".installed"  # touched when the environment is complete (make's target)
INSTALLERS = ("auto", "uv", "pip")

Run = Callable[[Sequence[str]], int]


class SetupError(Exception):
    """A set-up that cannot go on; its message is the one line printed."""


# --- pins -------------------------------------------------------------------------------

def compile_command(uv: str, python: str, pin_file: PinFile, source: Path,
                    target: Path) -> list[str]:
    """uv's command that pins ``source`` with every file's hash into ``target``: for the
    platform and Python of ``python``, dependencies added unless the file is ``--no-deps``,
    extras kept (pip's hash-checking mode wants ``coverage[toml]`` pinned as such)."""
    return [uv, "pip", "compile", "--quiet", "--generate-hashes", "--no-strip-extras",
            "--no-header", "--no-annotate", "--python", python,
            *(["--no-deps"] if pin_file.no_deps else []), str(source), "-o", str(target)]


def write_atomic(path: Path, text: str) -> None:
    """Write ``path`` aside and move it into place: never half-written (the helpers of
    ``analysis.core.artifacts`` need pandas, which is not installed yet when this runs)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def repin(uv: str, python: str, pin_file: PinFile, run: Run | None = None) -> str:
    """Rewrite one file of pins with the hashes of every file of each pinned version (its
    opening comments kept; missing dependencies added at their newest version); return a
    line saying what changed."""
    run = run or _run
    name = pin_file.path.name
    old = pin_file.path.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="pins-") as tmp:
        source, target = Path(tmp) / "pins.in", Path(tmp) / "pins.txt"
        source.write_text("\n".join(requirement_lines(old)) + "\n", encoding="utf-8")
        if run(compile_command(uv, python, pin_file, source, target)) != 0:
            raise SetupError(f"{name}: uv could not pin these versions (see its message "
                             "above); correct the pin it names and run make pins again")
        new = header(old) + target.read_text(encoding="utf-8")
    write_atomic(pin_file.path, new)
    return f"{name}: {len(pins(new))} pins, {sum(hashes(new).values())} hashes" + \
        "".join(f", {change}" for change in changes(pins(old), pins(new)))


# --- install ------------------------------------------------------------------------------

def pip_prefix(python: str) -> list[str]:
    """pip's install command for the environment of ``python`` (``--no-compile``: as with
    uv, Python compiles what is imported, on first use; see :func:`uv_prefix`)."""
    return [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-compile"]


def uv_prefix(uv: str, python: str) -> list[str]:
    """uv's install command for the environment of ``python`` (uv reads its own settings,
    e.g. ``UV_DEFAULT_INDEX``, not pip's; by default it installs from PyPI).

    Without ``--compile-bytecode``: compiling every installed package (pandas, scipy, dvc,
    jupyter, ...) was most of the set-up's time (a minute of CPU, against 10 s for the
    rest). Python compiles what is imported instead, once, on first use, and later
    processes reuse it: the Makefile runs the project with ``PYTHONDONTWRITEBYTECODE``
    cleared (its ``RUN`` prefix), which the processes it starts (pytest's workers, dvc, the
    notebooks' kernels) inherit."""
    return [uv, "pip", "install", "--quiet", "--python", python]


def install_steps(prefix: Sequence[str], paths: Paths) -> list[list[str]]:
    """The installs, in order, behind either installer's command: each file of pins with
    its hashes required (with ``--no-deps`` where the file says so), then the project
    itself, editable, which has no hash, so it comes in a step of its own."""
    steps = [[*prefix, *(["--no-deps"] if f.no_deps else []), "--require-hashes",
              "-r", str(f.path)] for f in pin_files(paths)]
    return [*steps, [*prefix, "--no-deps", "--no-build-isolation", "-e", str(paths.root)]]


def uv_bootstrap(python: str, paths: Paths, require_hashes: bool = True) -> list[str]:
    """pip's command that installs the pinned uv wheel (a wheel only: uv's source archive
    needs a Rust compiler)."""
    return [*pip_prefix(python), "--only-binary", ":all:",
            *(["--require-hashes"] if require_hashes else []), "-r", str(uv_pins(paths).path)]


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def run_steps(steps: Sequence[Sequence[str]], run: Run) -> int:
    """Run the steps in order up to the first that fails; its exit status (0: all ran)."""
    for step in steps:
        if (status := run(step)) != 0:
            return status
    return 0


def install(venv: Path, installer: str, run: Run, paths: Paths) -> tuple[str, str]:
    """Install the pins into ``venv`` with uv (``auto``: pip when uv fails, ``uv``: no
    fallback) or with pip (``pip``); return the installer that ran and, for pip, why."""
    python = str(venv_python(venv))
    if installer == "pip":
        why = "INSTALLER=pip"
    else:
        uv = venv / "bin" / "uv"
        steps = install_steps(uv_prefix(str(uv), python), paths)
        if run(uv_bootstrap(python, paths)) != 0 or not uv.is_file():
            why = f"uv could not be installed from {uv_pins(paths).path.name}"
        elif status := run_steps(steps, run):
            why = f"uv failed with exit status {status}"
        else:
            return "uv", ""
        if installer == "uv":
            raise SetupError(f"{venv}: {why} and INSTALLER=uv allows no fallback; run "
                             "make venv without INSTALLER (or INSTALLER=pip)")
        print(f"{venv}: {why}; installing with pip instead", file=sys.stderr)
    if status := run_steps(install_steps(pip_prefix(python), paths), run):
        raise SetupError(f"{venv}: pip failed with exit status {status} (its message is "
                         f"above); fix that, then run make venv again")
    return "pip", why


def installer_version(venv: Path, installer: str) -> str:
    """``"uv 0.13.9"`` or ``"pip 24.0"``: the installer's name and version."""
    command = ([str(venv / "bin" / "uv"), "--version"] if installer == "uv"
               else [str(venv_python(venv)), "-m", "pip", "--version"])
    try:
        out = subprocess.run(command, capture_output=True, text=True, check=False).stdout
    except OSError:
        out = ""
    return " ".join(out.split()[:2]) or installer


def record_line(version: str, why: str) -> str:
    """What ``<venv>/.installer`` holds and the last line printed: the installer that ran,
    its version and, for pip, why."""
    return f"{version} ({why})" if why else version


def _run(command: Sequence[str]) -> int:
    return subprocess.run(list(command), check=False).returncode


def ensure_venv(venv: Path, run: Run) -> None:
    """Create ``venv`` with this Python if it has no interpreter yet."""
    if not venv_python(venv).exists() and run([sys.executable, "-m", "venv", str(venv)]) != 0:
        raise SetupError(f"{venv}: python -m venv failed (message above); on Debian or "
                         "Ubuntu install the python3-venv package")
    (venv / ".gitignore").write_text("*\n", encoding="utf-8")


def set_up(venv: Path, installer: str, run: Run = _run, paths: Paths | None = None) -> str:
    """Create ``venv`` if needed, install the pins and the project, record the installer;
    return the line saying which one ran."""
    ensure_venv(venv, run)
    (venv / STAMP).unlink(missing_ok=True)
    name, why = install(venv, installer, run, paths or Paths())
    line = record_line(installer_version(venv, name), why)
    (venv / INSTALLER_RECORD).write_text(line + "\n", encoding="utf-8")
    (venv / STAMP).touch()
    return line


def regenerate_pins(venv: Path, run: Run = _run, paths: Paths | None = None) -> list[str]:
    """Rewrite every file of pins with its hashes (uv from ``venv``, installed there if
    missing: its own pin may have changed, so without requiring hashes); one line per
    file."""
    paths = paths or Paths()
    ensure_venv(venv, run)
    python = str(venv_python(venv))
    uv = venv / "bin" / "uv"
    if not uv.is_file() and run(uv_bootstrap(python, paths, require_hashes=False)) != 0:
        raise SetupError(f"{venv}: uv could not be installed from "
                         f"{uv_pins(paths).path.name}; make pins needs uv and PyPI")
    return [repin(str(uv), python, f, run=run) for f in (*pin_files(paths), uv_pins(paths))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.tools.install",
        description="Set up a virtual environment with the pinned dependencies (uv, else "
                    "pip), or rewrite the hashes of the pins.")
    parser.add_argument("venv", type=Path, help="the environment's folder, e.g. .venv")
    parser.add_argument("--installer", choices=INSTALLERS, default="auto",
                        help="auto: uv, pip if uv fails (default); uv: uv only; pip: pip only")
    parser.add_argument("--pins", action="store_true",
                        help="rewrite requirements*.txt with the hashes of their pins")
    args = parser.parse_args(argv)
    if sys.version_info < (3, 11):  # noqa: UP036 (run by the base Python, which may be older)
        print(f"{sys.executable} is Python {sys.version.split()[0]}; the project needs 3.11 "
              "or later: run make with PYTHON=python3.11", file=sys.stderr)
        return 1
    try:
        if args.pins:
            for line in regenerate_pins(args.venv):
                print(line)
        else:
            print(f"{args.venv}: installed with {set_up(args.venv, args.installer)}")
    except SetupError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
