"""The set-up (`make venv`, analysis.tools.install): uv when it can be had, pip as the
fallback, the same hashed pins and flags for both, the installer recorded; `make pins`
rewrites the hashes (analysis.core.pins reads them). Installers are replaced by a recording
stand-in: nothing is installed."""

from __future__ import annotations

import ast
import re
import shutil
import sys
from pathlib import Path

import pytest

from analysis.core import pins
from analysis.core.paths import ROOT, Paths
from analysis.report import site
from analysis.tools import install

PINS_TEXT = """\
# Opening comments, kept by make pins.
# A second line.
aiohttp==3.14.5 \\
    --hash=sha256:aaaa \\
    --hash=sha256:bbbb
coverage[toml]==7.6.1 \\
    --hash=sha256:cccc
Flufl.Lock==9.2.0  # a comment
tomli==2.5.0 ; python_version < "3.11"
"""
PATHS = Paths(ROOT)


def test_pins_read_through_hashes_extras_markers_and_comments():
    assert pins.requirement_lines(PINS_TEXT) == [
        "aiohttp==3.14.5", "coverage[toml]==7.6.1", "Flufl.Lock==9.2.0",
        'tomli==2.5.0 ; python_version < "3.11"']
    assert pins.pins(PINS_TEXT) == {"aiohttp": "3.14.5", "coverage": "7.6.1",
                                    "Flufl.Lock": "9.2.0", "tomli": "2.5.0"}
    assert pins.hashes(PINS_TEXT) == {"aiohttp": 2, "coverage": 1, "Flufl.Lock": 0,
                                      "tomli": 0}
    assert pins.header(PINS_TEXT) == "# Opening comments, kept by make pins.\n" \
        "# A second line.\n"


def test_changes_compare_names_as_pypi_does():
    before = {"Flufl.Lock": "9.2.0", "numpy": "2.1.0", "gone": "1.0"}
    after = {"flufl-lock": "9.2.0", "numpy": "2.2.0", "lazy-importer": "0.1.0"}
    assert pins.changes(before, after) == [
        "added lazy-importer==0.1.0", "removed gone==1.0", "numpy 2.1.0 -> 2.2.0"]
    assert pins.changes(before, before) == []


@pytest.mark.parametrize("pin_file", [*pins.pin_files(PATHS), pins.uv_pins(PATHS)],
                         ids=lambda f: f.path.name)
def test_every_pin_carries_its_hashes(pin_file):
    """pip (--require-hashes) and uv check every file they install against these, so a
    fresh set-up installs the files CI tested; make pins writes them."""
    text = pin_file.path.read_text(encoding="utf-8")
    counts = pins.hashes(text)
    assert counts and all(counts.values()), \
        f"pins without hashes {[n for n, c in counts.items() if not c]}: run make pins"
    assert len(counts) == len(pins.requirement_lines(text)), "every entry is a pin"
    assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", h)
               for h in re.findall(r"--hash=(\S+)", text))


def test_the_pinned_files_are_the_ones_installed():
    installed = {f.path for f in (*pins.pin_files(PATHS), pins.uv_pins(PATHS))}
    assert installed == set(ROOT.glob("requirements*.txt"))
    assert list(pins.pins(pins.uv_pins(PATHS).path.read_text())) == ["uv"]


def test_both_installers_run_the_same_steps():
    pip_prefix, uv_prefix = install.pip_prefix("py"), install.uv_prefix("uv", "py")
    pip = [s[len(pip_prefix):] for s in install.install_steps(pip_prefix, PATHS)]
    uv = [s[len(uv_prefix):] for s in install.install_steps(uv_prefix, PATHS)]
    assert pip == uv == [
        ["--require-hashes", "-r", str(PATHS.requirements)],
        ["--no-deps", "--require-hashes", "-r", str(PATHS.requirements_no_deps)],
        ["--no-deps", "--no-build-isolation", "-e", str(ROOT)]]


class Recorder:
    """Stands in for the installers: records each command, fails the ones that hold any of
    ``fail``, makes the environment's python, and its uv when pip installs uv's pins."""

    def __init__(self, venv: Path, fail: tuple[str, ...] = ()):
        self.venv, self.fail, self.commands = venv, fail, []

    def __call__(self, command) -> int:
        command = list(command)
        self.commands.append(command)
        if any(f in " ".join(command) for f in self.fail):
            return 2
        if command[-3:] == ["-m", "venv", str(self.venv)]:
            (self.venv / "bin").mkdir(parents=True)
            (self.venv / "bin" / "python").touch()
        if command[-1] == str(PATHS.requirements_uv):
            (self.venv / "bin" / "uv").touch()
        return 0

    def by(self, tool: str) -> list[list[str]]:
        """The install steps run by "pip" (``python -m pip install``) or "uv" (``uv pip
        install``)."""
        ends = {str(f.path) for f in pins.pin_files(PATHS)} | {str(ROOT)}
        return [c for c in self.commands if c[-1] in ends and (c[1] == "pip") == (tool == "uv")]


@pytest.fixture
def versions(monkeypatch):
    monkeypatch.setattr(install, "installer_version", lambda venv, name: f"{name} 9.9")


def test_uv_installs_when_it_can_be_had(tmp_path, versions, monkeypatch):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    venv = tmp_path / ".venv"
    run = Recorder(venv)
    assert install.set_up(venv, "auto", run) == "uv 9.9"
    assert run.commands[0][-3:] == ["-m", "venv", str(venv)]
    assert run.commands[1][-2:] == ["-r", str(PATHS.requirements_uv)]
    assert "--only-binary" in run.commands[1] and "--require-hashes" in run.commands[1]
    assert len(run.by("uv")) == 3 and run.by("pip") == []
    assert not [c for c in run.commands if "--compile-bytecode" in c]
    assert (venv / ".installer").read_text() == "uv 9.9\n" and (venv / ".installed").is_file()


def test_uv_compiles_the_bytecode_where_python_writes_none(tmp_path, versions, monkeypatch):
    """pip compiles at install; under PYTHONDONTWRITEBYTECODE uv must too, or every
    notebook kernel compiles pandas & co. again."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    run = Recorder(tmp_path / ".venv")
    install.set_up(tmp_path / ".venv", "auto", run)
    assert all("--compile-bytecode" in c for c in run.by("uv"))
    assert install.bytecode_at_install({"PYTHONDONTWRITEBYTECODE": "1"})
    assert not install.bytecode_at_install({"PYTHONDONTWRITEBYTECODE": ""})
    assert not install.bytecode_at_install({})


@pytest.mark.parametrize(("fail", "why"), [
    ("requirements-uv.txt", "uv could not be installed from requirements-uv.txt"),
    ("uv pip install", "uv failed with exit status 2")])
def test_pip_installs_when_uv_cannot(tmp_path, versions, capsys, fail, why):
    venv = tmp_path / ".venv"
    run = Recorder(venv, fail=(fail,))
    assert install.set_up(venv, "auto", run) == f"pip 9.9 ({why})"
    assert len(run.by("pip")) == 3
    assert capsys.readouterr().err == f"{venv}: {why}; installing with pip instead\n"
    assert (venv / ".installer").read_text() == f"pip 9.9 ({why})\n"


def test_installer_pip_never_runs_uv(tmp_path, versions):
    venv = tmp_path / ".venv"
    run = Recorder(venv)
    assert install.set_up(venv, "pip", run) == "pip 9.9 (INSTALLER=pip)"
    assert not [c for c in run.commands if "uv" in " ".join(c)]
    assert len(run.by("pip")) == 3


def test_a_failed_set_up_leaves_no_stamp(tmp_path):
    """make runs the set-up again next time (the stamp is make's target)."""
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (venv / ".installed").touch()
    with pytest.raises(install.SetupError, match="pip failed with exit status 2"):
        install.set_up(venv, "pip", Recorder(venv, fail=("requirements.txt",)))
    assert not (venv / ".installed").exists()
    with pytest.raises(install.SetupError, match="INSTALLER=uv allows no fallback"):
        install.set_up(venv, "uv", Recorder(venv, fail=("uv pip install",)))
    assert not (venv / ".installed").exists() and not (venv / ".installer").exists()


def test_set_up_errors_end_in_one_line(tmp_path, monkeypatch, capsys):
    def fail(venv, installer):
        raise install.SetupError(f"{venv}: pip failed with exit status 1")
    monkeypatch.setattr(install, "set_up", fail)
    assert install.main([str(tmp_path / "v")]) == 1
    assert capsys.readouterr().err == f"{tmp_path / 'v'}: pip failed with exit status 1\n"


def test_make_pins_rewrites_the_hashes_and_keeps_the_opening_comments(tmp_path):
    pin_file = pins.PinFile(tmp_path / "requirements.txt", no_deps=False)
    pin_file.path.write_text(PINS_TEXT)

    def compile_(command):
        assert command[:3] == ["uv", "pip", "compile"] and "--generate-hashes" in command
        source = Path(command[command.index("-o") - 1])
        assert source.read_text().splitlines() == pins.requirement_lines(PINS_TEXT)
        Path(command[-1]).write_text("aiohttp==3.14.5 \\\n    --hash=sha256:dddd\n"
                                     "coverage[toml]==7.6.1 \\\n    --hash=sha256:eeee\n"
                                     "flufl-lock==9.2.0 \\\n    --hash=sha256:ffff\n"
                                     "lazy-importer==0.1.0 \\\n    --hash=sha256:0000\n")
        return 0

    line = install.repin("uv", "py", pin_file, run=compile_)
    assert line == ("requirements.txt: 4 pins, 4 hashes, added lazy-importer==0.1.0, "
                    "removed tomli==2.5.0")
    text = pin_file.path.read_text()
    assert text.startswith(pins.header(PINS_TEXT) + "aiohttp==3.14.5 \\\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt"]


def test_make_pins_leaves_the_file_as_it_was_when_uv_fails(tmp_path):
    pin_file = pins.PinFile(tmp_path / "requirements.txt", no_deps=False)
    pin_file.path.write_text(PINS_TEXT)
    with pytest.raises(install.SetupError, match="uv could not pin these versions"):
        install.repin("uv", "py", pin_file, run=lambda c: 1)
    assert pin_file.path.read_text() == PINS_TEXT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt"]


def test_make_pins_rewrites_every_file_with_uv(tmp_path, monkeypatch):
    """All three files, uv installed first without requiring its hashes (its own pin may
    be the one that changed)."""
    for name in ("requirements.txt", "requirements-no-deps.txt", "requirements-uv.txt"):
        shutil.copyfile(ROOT / name, tmp_path / name)
    venv = tmp_path / ".venv"
    run = Recorder(venv)
    rewritten = []
    monkeypatch.setattr(install, "repin", lambda uv, python, f, run: rewritten.append(
        (f.path.name, f.no_deps)) or "")
    install.regenerate_pins(venv, run, Paths(tmp_path))
    assert run.commands[1][-2:] == ["-r", str(tmp_path / "requirements-uv.txt")]
    assert "--require-hashes" not in run.commands[1]
    assert rewritten == [("requirements.txt", False), ("requirements-no-deps.txt", True),
                         ("requirements-uv.txt", True)]


def test_pins_for_no_deps_files_are_not_resolved():
    no_deps, deps = pins.pin_files(PATHS)[1], pins.pin_files(PATHS)[0]
    command = install.compile_command("uv", "py", no_deps, Path("a"), Path("b"))
    assert "--no-deps" in command and "--no-strip-extras" in command
    assert "--no-deps" not in install.compile_command("uv", "py", deps, Path("a"), Path("b"))


def test_every_venv_is_set_up_by_the_one_installer():
    """.venv and make test-pythons' .venv-3.X run the same module, and nothing else in the
    Makefile installs packages."""
    makefile = (ROOT / "Makefile").read_text()
    assert "SETUP = PYTHONPATH=src $(1) -m analysis.tools.install" in makefile
    assert makefile.count("$(call SETUP,$(PYTHON)) $(VENV) --installer $(INSTALLER)") == 1
    assert makefile.count('$(call SETUP,"$$py") $$venv --installer $(INSTALLER)') == 1
    assert "pip install" not in makefile


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


def test_the_readme_names_make_targets_and_installers_that_exist():
    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z-]+):", makefile, flags=re.M))
    named = set(re.findall(r"`make ([a-z-]+)", readme))
    assert {"venv", "pins", "report", "test"} <= named
    assert named <= targets, f"README names missing make targets {named - targets}"
    for installer in re.findall(r"INSTALLER=([a-z]+)", readme):
        assert installer in install.INSTALLERS
    assert ".venv/.installer" in readme


def test_the_site_names_the_installer_and_every_pin(tmp_path):
    """The Reproducibility page's versions say which installer ran; its pins table reads
    the hashed files, extras included (coverage[toml], fsspec[http, tqdm])."""
    assert pins.installer(tmp_path) == "not recorded"
    (tmp_path / pins.INSTALLER_RECORD).write_text("pip 24.0 (INSTALLER=pip)\n")
    assert pins.installer(tmp_path) == "pip 24.0 (INSTALLER=pip)"
    pinned = {pins.normalise(n): v for n, v in site.pinned_packages(PATHS).items()}
    expected = {}
    for f in pins.pin_files(PATHS):
        expected |= {pins.normalise(n): v for n, v in pins.pins(f.path.read_text()).items()}
    assert pinned == expected and {"coverage", "fsspec", "irrcac"} <= set(pinned)
