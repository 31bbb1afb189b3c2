"""The set-up (`make venv`, src/analysis/tools/install.py): uv when it can be had, pip as the
fallback, the same hashed pins and flags for both, the installer recorded; `make pins`
rewrites the hashes. Installers are replaced by a recording stand-in: nothing is installed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def test_pins_read_through_hashes_extras_markers_and_comments():
    assert install.requirement_lines(PINS_TEXT) == [
        "aiohttp==3.14.5", "coverage[toml]==7.6.1", "Flufl.Lock==9.2.0",
        'tomli==2.5.0 ; python_version < "3.11"']
    assert install.pins(PINS_TEXT) == {"aiohttp": "3.14.5", "coverage": "7.6.1",
                                       "Flufl.Lock": "9.2.0", "tomli": "2.5.0"}
    assert install.hashes(PINS_TEXT) == {"aiohttp": 2, "coverage": 1, "Flufl.Lock": 0,
                                         "tomli": 0}
    assert install.header(PINS_TEXT) == "# Opening comments, kept by make pins.\n" \
        "# A second line.\n"


def test_changes_compare_names_as_pypi_does():
    before = {"Flufl.Lock": "9.2.0", "numpy": "2.1.0", "gone": "1.0"}
    after = {"flufl-lock": "9.2.0", "numpy": "2.2.0", "lazy-importer": "0.1.0"}
    assert install.changes(before, after) == [
        "added lazy-importer==0.1.0", "removed gone==1.0", "numpy 2.1.0 -> 2.2.0"]
    assert install.changes(before, before) == []


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-no-deps.txt",
                                  "requirements-uv.txt"])
def test_every_pin_carries_its_hashes(name):
    """pip (--require-hashes) and uv check every file they install against these, so a
    fresh set-up installs the files CI tested; make pins writes them."""
    text = (ROOT / name).read_text(encoding="utf-8")
    counts = install.hashes(text)
    assert counts and all(counts.values()), \
        f"{name}: pins without hashes {[n for n, c in counts.items() if not c]}: run make pins"
    assert len(counts) == len(install.requirement_lines(text)), "every entry is a name==version pin"
    assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", h)
               for h in re.findall(r"--hash=(\S+)", text))


def test_the_pinned_files_are_the_ones_installed():
    names = {f.name for f in (*install.PIN_FILES, install.UV_PINS)}
    assert names == {p.name for p in ROOT.glob("requirements*.txt")}
    assert list(install.pins((ROOT / install.UV_PINS.name).read_text())) == ["uv"]


def test_both_installers_run_the_same_steps():
    pip_prefix, uv_prefix = install.pip_prefix("py"), install.uv_prefix("uv", "py")
    pip = [s[len(pip_prefix):] for s in install.install_steps(pip_prefix)]
    uv = [s[len(uv_prefix):] for s in install.install_steps(uv_prefix)]
    assert pip == uv == [["--require-hashes", "-r", "requirements.txt"],
                         ["--no-deps", "--require-hashes", "-r", "requirements-no-deps.txt"],
                         ["--no-deps", "--no-build-isolation", "-e", "."]]


class Recorder:
    """Stands in for the installers: records each command, fails the ones named, and puts
    a uv executable into the environment when pip installs uv's pins."""

    def __init__(self, venv: Path, fail: tuple[str, ...] = ()):
        self.venv, self.fail, self.commands = venv, fail, []

    def __call__(self, command) -> int:
        command = list(command)
        self.commands.append(command)
        text = " ".join(command)
        if any(f in text for f in self.fail):
            return 2
        if command[-3:] == ["-m", "venv", str(self.venv)]:
            (self.venv / "bin").mkdir(parents=True)
            (self.venv / "bin" / "python").touch()
        if command[-1] == install.UV_PINS.name:
            (self.venv / "bin" / "uv").touch()
        return 0

    def by(self, tool: str) -> list[list[str]]:
        """The install steps run by "pip" (``python -m pip install``) or "uv" (``uv pip
        install``)."""
        ends = {f.name for f in install.PIN_FILES} | {"."}
        return [c for c in self.commands if c[-1] in ends and (c[1] == "pip") == (tool == "uv")]


def test_uv_installs_when_it_can_be_had(tmp_path, monkeypatch):
    monkeypatch.setattr(install, "installer_version", lambda venv, name: f"{name} 9.9")
    venv = tmp_path / ".venv"
    run = Recorder(venv)
    assert install.set_up(venv, "auto", run) == "uv 9.9"
    assert run.commands[0][-3:] == ["-m", "venv", str(venv)]
    assert install.UV_PINS.name in run.commands[1] and "--only-binary" in run.commands[1]
    assert len(run.by("uv")) == 3 and run.by("pip") == []
    assert (venv / ".installer").read_text() == "uv 9.9\n" and (venv / ".installed").is_file()


@pytest.mark.parametrize(("fail", "why"), [
    (install.UV_PINS.name, "uv could not be installed from requirements-uv.txt"),
    ("uv pip install", "uv failed with exit status 2")])
def test_pip_installs_when_uv_cannot(tmp_path, monkeypatch, capsys, fail, why):
    monkeypatch.setattr(install, "installer_version", lambda venv, name: f"{name} 9.9")
    venv = tmp_path / ".venv"
    run = Recorder(venv, fail=(fail,))
    assert install.set_up(venv, "auto", run) == f"pip 9.9 ({why})"
    assert len(run.by("pip")) == 3
    assert capsys.readouterr().err == f"{venv}: {why}; installing with pip instead\n"
    assert (venv / ".installer").read_text() == f"pip 9.9 ({why})\n"


def test_installer_pip_never_runs_uv(tmp_path, monkeypatch):
    monkeypatch.setattr(install, "installer_version", lambda venv, name: f"{name} 9.9")
    venv = tmp_path / ".venv"
    run = Recorder(venv)
    assert install.set_up(venv, "pip", run) == "pip 9.9 (INSTALLER=pip)"
    assert not [c for c in run.commands if "uv" in " ".join(c)]
    assert len(run.by("pip")) == 3


def test_a_failed_set_up_leaves_no_stamp(tmp_path, monkeypatch):
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
    (tmp_path / "requirements.txt").write_text(PINS_TEXT)

    def compile_(command):
        assert command[:3] == ["uv", "pip", "compile"] and "--generate-hashes" in command
        source = Path(command[command.index("-o") - 1])
        assert source.read_text().splitlines() == install.requirement_lines(PINS_TEXT)
        Path(command[-1]).write_text("aiohttp==3.14.5 \\\n    --hash=sha256:dddd\n"
                                     "coverage[toml]==7.6.1 \\\n    --hash=sha256:eeee\n"
                                     "flufl-lock==9.2.0 \\\n    --hash=sha256:ffff\n"
                                     "lazy-importer==0.1.0 \\\n    --hash=sha256:0000\n")
        return 0

    line = install.repin("uv", "py", install.PIN_FILES[0], root=tmp_path, run=compile_)
    assert line == ("requirements.txt: 4 pins, 4 hashes, added lazy-importer==0.1.0, "
                    "removed tomli==2.5.0")
    text = (tmp_path / "requirements.txt").read_text()
    assert text.startswith(install.header(PINS_TEXT) + "aiohttp==3.14.5 \\\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt"]


def test_make_pins_leaves_the_file_as_it_was_when_uv_fails(tmp_path):
    (tmp_path / "requirements.txt").write_text(PINS_TEXT)
    with pytest.raises(install.SetupError, match="uv could not pin these versions"):
        install.repin("uv", "py", install.PIN_FILES[0], root=tmp_path, run=lambda c: 1)
    assert (tmp_path / "requirements.txt").read_text() == PINS_TEXT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt"]


def test_pins_for_no_deps_files_are_not_resolved():
    command = install.compile_command("uv", "py", install.PIN_FILES[1], Path("a"), Path("b"))
    assert "--no-deps" in command and "--no-strip-extras" in command
    assert "--no-deps" not in install.compile_command("uv", "py", install.PIN_FILES[0],
                                                      Path("a"), Path("b"))


def test_every_venv_is_set_up_by_the_one_installer():
    """.venv and make test-pythons' .venv-3.X run the same script, and nothing else in the
    Makefile installs packages."""
    makefile = (ROOT / "Makefile").read_text()
    assert "INSTALL := src/analysis/tools/install.py" in makefile
    assert makefile.count("$(INSTALL) $(VENV) --installer $(INSTALLER)") == 1
    assert makefile.count("$(INSTALL) $$venv --installer $(INSTALLER)") == 1
    assert "pip install" not in makefile


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
    assert site.installer(tmp_path) == "not recorded"
    (tmp_path / install.RECORD).write_text("pip 24.0 (INSTALLER=pip)\n")
    assert site.installer(tmp_path) == "pip 24.0 (INSTALLER=pip)"
    pinned = {install.normalise(n): v for n, v in site.pinned_packages(Paths(ROOT)).items()}
    expected = {}
    for f in install.PIN_FILES:
        expected |= {install.normalise(n): v
                     for n, v in install.pins((ROOT / f.name).read_text()).items()}
    assert pinned == expected and {"coverage", "fsspec", "irrcac"} <= set(pinned)
