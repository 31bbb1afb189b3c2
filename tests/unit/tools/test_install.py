"""The set-up (analysis.tools.install, run by `make venv`): uv when it can be had, pip as the
fallback, the same hashed pins and flags for both, the installer recorded; `make pins`
rewrites the hashes. The installers are replaced by a recording stand-in: nothing is
installed and nothing is downloaded (a command that reaches the real runner fails the
test)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.core import pins
from analysis.core.paths import ROOT, Paths
from analysis.tools import install

PATHS = Paths(ROOT)
PINS_TEXT = """\
# Opening comments, kept by make pins.
aiohttp==3.14.5 \\
    --hash=sha256:aaaa
tomli==2.5.0 ; python_version < "3.11"
"""


@pytest.fixture(autouse=True)
def no_real_commands(monkeypatch):
    """Every test passes its own runner: the real one (which would install from PyPI)
    fails the test."""
    def refuse(command):
        raise AssertionError(f"a real command ran: {command}")
    monkeypatch.setattr(install, "_run", refuse)


class Recorder:
    """Stands in for the installers: records each command, fails the ones that hold any of
    ``fail``, makes the environment's python, and its uv when pip installs uv's pins."""

    def __init__(self, venv: Path, fail: tuple[str, ...] = (), paths: Paths = PATHS):
        self.venv, self.fail, self.paths, self.commands = venv, fail, paths, []

    def __call__(self, command) -> int:
        command = list(command)
        self.commands.append(command)
        if any(f in " ".join(command) for f in self.fail):
            return 2
        if command[-3:] == ["-m", "venv", str(self.venv)]:
            (self.venv / "bin").mkdir(parents=True)
            (self.venv / "bin" / "python").touch()
        if command[-1] == str(self.paths.requirements_uv):
            (self.venv / "bin" / "uv").touch()
        return 0

    def by(self, tool: str) -> list[list[str]]:
        """The install steps run by "pip" (``python -m pip install``) or "uv" (``uv pip
        install``)."""
        ends = {str(f.path) for f in pins.pin_files(self.paths)} | {str(self.paths.root)}
        return [c for c in self.commands if c[-1] in ends and (c[1] == "pip") == (tool == "uv")]


@pytest.fixture
def versions(monkeypatch):
    monkeypatch.setattr(install, "installer_version", lambda venv, name: f"{name} 9.9")


# --- the steps -----------------------------------------------------------------------------

def test_both_installers_run_the_same_steps():
    pip_prefix, uv_prefix = install.pip_prefix("py"), install.uv_prefix("uv", "py")
    pip = [s[len(pip_prefix):] for s in install.install_steps(pip_prefix, PATHS)]
    uv = [s[len(uv_prefix):] for s in install.install_steps(uv_prefix, PATHS)]
    assert pip == uv == [
        ["--require-hashes", "-r", str(PATHS.requirements)],
        ["--no-deps", "--require-hashes", "-r", str(PATHS.requirements_no_deps)],
        ["--no-deps", "--no-build-isolation", "-e", str(ROOT)]]


def test_uv_installs_into_the_environments_python():
    assert install.uv_prefix("u", "p") == ["u", "pip", "install", "--quiet", "--python", "p"]
    assert install.pip_prefix("p") == ["p", "-m", "pip", "install", "--quiet",
                                        "--disable-pip-version-check", "--no-compile"]


def test_uv_comes_as_a_hashed_wheel():
    """uv's source archive needs a Rust compiler: a wheel only, its hash checked except when
    make pins rewrites uv's own pin."""
    command = install.uv_bootstrap("py", PATHS)
    assert command[-2:] == ["-r", str(PATHS.requirements_uv)]
    assert command[command.index("--only-binary") + 1] == ":all:"
    assert "--require-hashes" in command
    assert "--require-hashes" not in install.uv_bootstrap("py", PATHS, require_hashes=False)


def test_run_steps_stops_at_the_first_failure():
    ran = []

    def run(step):
        ran.append(step[0])
        return 3 if step[0] == "b" else 0
    assert install.run_steps([["a"], ["b"], ["c"]], run) == 3
    assert ran == ["a", "b"]
    assert install.run_steps([], run) == 0


# --- set_up --------------------------------------------------------------------------------

def test_uv_installs_when_it_can_be_had(tmp_path, versions):
    venv = tmp_path / ".venv"
    run = Recorder(venv)
    assert install.set_up(venv, "auto", run) == "uv 9.9"
    assert run.commands[0] == [sys.executable, "-m", "venv", str(venv)]
    assert run.commands[1] == install.uv_bootstrap(str(venv / "bin" / "python"), PATHS)
    assert run.by("uv") == install.install_steps(
        install.uv_prefix(str(venv / "bin" / "uv"), str(venv / "bin" / "python")), PATHS)
    assert run.by("pip") == []
    assert len(run.commands) == 5
    assert (venv / ".installer").read_text() == "uv 9.9\n"
    assert (venv / ".installed").is_file() and (venv / ".gitignore").read_text() == "*\n"


def test_uv_leaves_the_bytecode_to_first_use(tmp_path, versions, monkeypatch):
    """Compiling every installed package was most of the set-up's time: uv never does,
    even where Python is told to write no bytecode (the Makefile's runs clear that)."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    run = Recorder(tmp_path / ".venv")
    install.set_up(tmp_path / ".venv", "auto", run)
    assert len(run.by("uv")) == 3
    assert not [c for c in run.commands if "--compile-bytecode" in c]


def test_an_existing_environment_is_reused(tmp_path, versions):
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    run = Recorder(venv)
    install.set_up(venv, "pip", run)
    assert not [c for c in run.commands if "venv" in c[1:3]]


@pytest.mark.parametrize(("fail", "why"), [
    ("requirements-uv.txt", "uv could not be installed from requirements-uv.txt"),
    ("uv pip install", "uv failed with exit status 2")])
def test_pip_installs_when_uv_cannot(tmp_path, versions, capsys, fail, why):
    venv = tmp_path / ".venv"
    run = Recorder(venv, fail=(fail,))
    assert install.set_up(venv, "auto", run) == f"pip 9.9 ({why})"
    assert run.by("pip") == install.install_steps(
        install.pip_prefix(str(venv / "bin" / "python")), PATHS)
    assert capsys.readouterr().err == f"{venv}: {why}; installing with pip instead\n"
    assert (venv / ".installer").read_text() == f"pip 9.9 ({why})\n"


def test_pip_installs_when_pip_put_no_uv_in_place(tmp_path, versions, capsys):
    """pip said yes but left no uv (e.g. a wheel for another platform's layout)."""
    venv = tmp_path / ".venv"

    class NoUv(Recorder):
        def __call__(self, command):
            status = super().__call__(command)
            (self.venv / "bin" / "uv").unlink(missing_ok=True)
            return status
    assert install.set_up(venv, "auto", NoUv(venv)) == \
        "pip 9.9 (uv could not be installed from requirements-uv.txt)"


def test_installer_pip_never_runs_uv(tmp_path, versions):
    venv = tmp_path / ".venv"
    run = Recorder(venv)
    assert install.set_up(venv, "pip", run) == "pip 9.9 (INSTALLER=pip)"
    assert not [c for c in run.commands  # uv neither installed nor run
                if Path(c[0]).name == "uv" or str(PATHS.requirements_uv) in c]
    assert len(run.by("pip")) == 3 and len(run.commands) == 4


def test_installer_uv_allows_no_fallback(tmp_path, versions):
    venv = tmp_path / ".venv"
    run = Recorder(venv, fail=("uv pip install",))
    with pytest.raises(install.SetupError) as raised:
        install.set_up(venv, "uv", run)
    assert str(raised.value) == (
        f"{venv}: uv failed with exit status 2 and INSTALLER=uv allows no fallback; run "
        "make venv without INSTALLER (or INSTALLER=pip)")
    assert run.by("pip") == []


def test_a_failed_set_up_leaves_no_stamp(tmp_path):
    """make runs the set-up again next time (the stamp is make's target)."""
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (venv / ".installed").touch()
    with pytest.raises(install.SetupError, match="pip failed with exit status 2"):
        install.set_up(venv, "pip", Recorder(venv, fail=("requirements.txt",)))
    assert not (venv / ".installed").exists() and not (venv / ".installer").exists()


def test_a_failed_venv_says_what_to_install(tmp_path):
    venv = tmp_path / ".venv"
    with pytest.raises(install.SetupError, match="install the python3-venv package"):
        install.set_up(venv, "auto", Recorder(venv, fail=("-m venv",)))


# --- the installer's name and version -------------------------------------------------------

@pytest.mark.parametrize(("name", "out", "line"), [
    ("uv", "uv 0.13.9 (1a2b3c 2026-11-01)\n", "uv 0.13.9"),
    ("pip", "pip 24.0 from /x/.venv/lib/python3.11/site-packages/pip (python 3.11)\n",
     "pip 24.0"),
    ("pip", "", "pip")])
def test_installer_version_is_the_first_two_words(tmp_path, monkeypatch, name, out, line):
    asked = []

    def fake_run(command, **kwargs):
        asked.append(command)
        return subprocess.CompletedProcess(command, 0, stdout=out, stderr="")
    monkeypatch.setattr(install.subprocess, "run", fake_run)
    assert install.installer_version(tmp_path, name) == line
    assert asked[0][0] == str(tmp_path / "bin" / ("uv" if name == "uv" else "python"))


def test_installer_version_without_the_installer(tmp_path, monkeypatch):
    def missing(command, **kwargs):
        raise FileNotFoundError(command[0])
    monkeypatch.setattr(install.subprocess, "run", missing)
    assert install.installer_version(tmp_path, "uv") == "uv"


def test_record_line_says_why_pip_ran():
    assert install.record_line("uv 0.13.9", "") == "uv 0.13.9"
    assert install.record_line("pip 24.0", "INSTALLER=pip") == "pip 24.0 (INSTALLER=pip)"


# --- main -----------------------------------------------------------------------------------

def test_main_prints_which_installer_ran(monkeypatch, capsys):
    monkeypatch.setattr(install, "set_up", lambda venv, installer: f"{installer} 1.0")
    assert install.main([".venv", "--installer", "pip"]) == 0
    assert capsys.readouterr().out == ".venv: installed with pip 1.0\n"


def test_set_up_errors_end_in_one_line(tmp_path, monkeypatch, capsys):
    def fail(venv, installer):
        raise install.SetupError(f"{venv}: pip failed with exit status 1")
    monkeypatch.setattr(install, "set_up", fail)
    assert install.main([str(tmp_path / "v")]) == 1
    assert capsys.readouterr().err == f"{tmp_path / 'v'}: pip failed with exit status 1\n"


def test_an_unknown_installer_is_refused(capsys):
    with pytest.raises(SystemExit) as raised:
        install.main([".venv", "--installer", "conda"])
    assert raised.value.code == 2
    assert "invalid choice: 'conda'" in capsys.readouterr().err


def test_main_pins_prints_a_line_per_file(monkeypatch, capsys):
    monkeypatch.setattr(install, "regenerate_pins", lambda venv: ["a: 1 pins", "b: 2 pins"])
    assert install.main([".venv", "--pins"]) == 0
    assert capsys.readouterr().out == "a: 1 pins\nb: 2 pins\n"


# --- make pins ------------------------------------------------------------------------------

def test_make_pins_rewrites_the_hashes_and_keeps_the_opening_comments(tmp_path):
    pin_file = pins.PinFile(tmp_path / "requirements.txt", no_deps=False)
    pin_file.path.write_text(PINS_TEXT)

    def compile_(command):
        assert command == install.compile_command(
            "uv", "py", pin_file, Path(command[-3]), Path(command[-1]))
        source = Path(command[-3])
        assert source.read_text().splitlines() == pins.requirement_lines(PINS_TEXT)
        Path(command[-1]).write_text("aiohttp==3.14.5 \\\n    --hash=sha256:dddd\n"
                                     "lazy-importer==0.1.0 \\\n    --hash=sha256:0000\n")
        return 0

    line = install.repin("uv", "py", pin_file, run=compile_)
    assert line == ("requirements.txt: 2 pins, 2 hashes, added lazy-importer==0.1.0, "
                    "removed tomli==2.5.0")
    assert pin_file.path.read_text() == (
        "# Opening comments, kept by make pins.\n"
        "aiohttp==3.14.5 \\\n    --hash=sha256:dddd\n"
        "lazy-importer==0.1.0 \\\n    --hash=sha256:0000\n")
    assert oct(pin_file.path.stat().st_mode & 0o777) == "0o644"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt"]


def test_make_pins_leaves_the_file_as_it_was_when_uv_fails(tmp_path):
    pin_file = pins.PinFile(tmp_path / "requirements.txt", no_deps=False)
    pin_file.path.write_text(PINS_TEXT)
    with pytest.raises(install.SetupError, match="uv could not pin these versions"):
        install.repin("uv", "py", pin_file, run=lambda c: 1)
    assert pin_file.path.read_text() == PINS_TEXT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt"]


def test_write_atomic_leaves_nothing_behind_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "requirements.txt"
    target.write_text("before\n")

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(install.os, "replace", broken)
    with pytest.raises(OSError):
        install.write_atomic(target, "after\n")
    assert target.read_text() == "before\n"
    assert [p.name for p in tmp_path.iterdir()] == ["requirements.txt"]


def test_make_pins_rewrites_every_file_with_uv(tmp_path, monkeypatch):
    """All three files, uv installed first without requiring its hashes (its own pin may
    be the one that changed)."""
    for name in ("requirements.txt", "requirements-no-deps.txt", "requirements-uv.txt"):
        shutil.copyfile(ROOT / name, tmp_path / name)
    paths = Paths(tmp_path)
    venv = tmp_path / ".venv"
    run = Recorder(venv, paths=paths)
    rewritten = []
    monkeypatch.setattr(install, "repin", lambda uv, python, f, run: rewritten.append(
        (uv, f.path.name, f.no_deps)) or "")
    install.regenerate_pins(venv, run, paths)
    assert run.commands[1] == install.uv_bootstrap(str(venv / "bin" / "python"), paths,
                                                   require_hashes=False)
    uv = str(venv / "bin" / "uv")
    assert rewritten == [(uv, "requirements.txt", False),
                         (uv, "requirements-no-deps.txt", True),
                         (uv, "requirements-uv.txt", True)]


def test_make_pins_needs_uv(tmp_path):
    venv = tmp_path / ".venv"
    with pytest.raises(install.SetupError, match="make pins needs uv and PyPI"):
        install.regenerate_pins(venv, Recorder(venv, fail=("requirements-uv.txt",)), PATHS)


def test_pins_for_no_deps_files_are_not_resolved():
    deps, no_deps = pins.pin_files(PATHS)
    command = install.compile_command("uv", "py", no_deps, Path("a"), Path("b"))
    assert command[:3] == ["uv", "pip", "compile"] and command[-3:] == ["a", "-o", "b"]
    assert {"--no-deps", "--no-strip-extras", "--generate-hashes"} <= set(command)
    assert command[command.index("--python") + 1] == "py"
    assert "--no-deps" not in install.compile_command("uv", "py", deps, Path("a"), Path("b"))


# --- how make runs it -------------------------------------------------------------------------

def test_the_installer_imports_only_the_standard_library():
    """It runs with the base Python before anything is installed."""
    modules = [install.__file__, pins.__file__, ROOT / "src/analysis/core/paths.py"]
    imported = set()
    for path in modules:
        for node in ast.walk(ast.parse(Path(path).read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level:
                imported.add(node.module.split(".")[0])
    assert imported - {"analysis"} <= sys.stdlib_module_names | {"__future__"}


def test_the_installer_runs_without_site_packages():
    """As make runs it (PYTHONPATH=src), with no installed package in reach (-S)."""
    result = subprocess.run([sys.executable, "-S", "-m", "analysis.tools.install", "--help"],
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": "src"},
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "--installer {auto,uv,pip}" in result.stdout


needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def stand_in_python(folder: Path, name: str = "python3") -> tuple[Path, Path]:
    """A python that writes each call's arguments and PYTHONPATH to a log, and fails the
    set-up (so nothing is installed, and make test-pythons runs no tests)."""
    log = folder / "calls.log"
    python = folder / name
    python.write_text(f'#!/bin/sh\necho "PYTHONPATH=$PYTHONPATH $*" >> "{log}"\n'
                      'case "$1" in -c) exit 0;; esac\nexit 1\n')
    python.chmod(0o755)
    return python, log


@needs_make
@pytest.mark.parametrize("installer", ["auto", "pip", "uv"])
def test_make_venv_runs_the_installer(tmp_path, installer):
    python, log = stand_in_python(tmp_path)
    venv = tmp_path / "env"
    result = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "venv", f"PYTHON={python}",
         f"VENV={venv}", *([f"INSTALLER={installer}"] if installer != "auto" else [])],
        env={k: v for k, v in os.environ.items() if k not in ("INSTALLER", "MAKEFLAGS")},
        capture_output=True, text=True, check=False)
    assert result.returncode != 0  # the stand-in failed the set-up, and make says so
    assert log.read_text().splitlines() == [
        f"PYTHONPATH=src -m analysis.tools.install {venv} --installer {installer}"]


@needs_make
def test_make_test_pythons_sets_up_each_python_with_the_installer(tmp_path):
    _, log = stand_in_python(tmp_path, "python3.99")
    result = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "test-pythons",
         "TEST_PYTHONS=3.99", f"PYENV_ROOT={tmp_path / 'pyenv'}"],
        env={**{k: v for k, v in os.environ.items() if k not in ("INSTALLER", "MAKEFLAGS")},
             "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert "Python 3.99: failed (could not set up .venv-3.99)" in result.stdout
    calls = log.read_text().splitlines()
    assert calls[-1] == "PYTHONPATH=src -m analysis.tools.install .venv-3.99 --installer auto"
    assert not (ROOT / ".venv-3.99").exists()


@needs_make
@pytest.mark.parametrize("target", ["test", "test-fast", "report", "bench", "coverage"])
def test_the_makefiles_runs_write_bytecode_on_first_use(target):
    """The set-up compiles no bytecode, so the project's runs must let Python write it (an
    environment with PYTHONDONTWRITEBYTECODE would compile every import in every process):
    each command of the target clears it, and the processes it starts inherit that."""
    result = subprocess.run(
        ["make", "-n", "--no-print-directory", "-C", str(ROOT), target, "STAMP="],
        env={k: v for k, v in os.environ.items() if k != "MAKEFLAGS"},
        capture_output=True, text=True, check=True)
    commands = [line for line in result.stdout.splitlines() if " python " in line]
    assert commands and all(" PYTHONDONTWRITEBYTECODE= " in c for c in commands), commands


def test_make_test_pythons_writes_bytecode_on_first_use_too():
    makefile = (ROOT / "Makefile").read_text()
    runs = re.findall(r"PYTHONHASHSEED=0[^\\\n]*\\?\n[^\n]*python -m pytest", makefile)
    assert runs and all("PYTHONDONTWRITEBYTECODE= " in r for r in runs), runs


def test_nothing_else_in_the_makefile_installs_packages():
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install" not in makefile and "uv pip" not in makefile
    assert "-m venv" not in makefile


def test_the_readme_names_make_targets_and_installers_that_exist():
    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z-]+):", makefile, flags=re.M))
    named = set(re.findall(r"`make ([a-z-]+)", readme))
    assert {"venv", "pins", "report", "test"} <= named
    assert named <= targets, f"README names missing make targets {named - targets}"
    forced = re.findall(r"INSTALLER=([a-z]+)", readme)
    assert "pip" in forced and set(forced) <= set(install.INSTALLERS)
    assert ".venv/.installer" in readme
