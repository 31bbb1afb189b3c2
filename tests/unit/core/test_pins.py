"""analysis.core.pins: reading the hashed requirements files (pins, hashes), the
installer's record; and the project's own files of pins, which every set-up installs with
their hashes required."""

from __future__ import annotations

import re

import pytest

from analysis.core import pins
from analysis.core.paths import ROOT, Paths

PATHS = Paths(ROOT)

PINS_TEXT = """\
# Opening comments, kept by make pins.
# A second line.
aiohttp==3.14.5 \\
    --hash=sha256:aaaa \\
    --hash=sha256:bbbb
coverage[toml]==7.6.1 \\
    --hash=sha256:cccc
    # a comment between entries

Flufl.Lock==9.2.0  # a comment
tomli==2.5.0 ; python_version < "3.11"
"""


def test_requirement_lines_drop_hashes_comments_and_blank_lines():
    assert pins.requirement_lines(PINS_TEXT) == [
        "aiohttp==3.14.5", "coverage[toml]==7.6.1", "Flufl.Lock==9.2.0",
        'tomli==2.5.0 ; python_version < "3.11"']


def test_pins_read_names_and_versions_through_extras_markers_and_hashes():
    assert pins.pins(PINS_TEXT) == {"aiohttp": "3.14.5", "coverage": "7.6.1",
                                    "Flufl.Lock": "9.2.0", "tomli": "2.5.0"}


def test_pins_leave_out_what_is_not_an_exact_pin():
    text = "numpy>=2\n-e .\n--index-url https://example.org/simple\npandas == 2.2.3\n"
    assert pins.pins(text) == {"pandas": "2.2.3"}


def test_hashes_count_each_pins_hashes():
    assert pins.hashes(PINS_TEXT) == {"aiohttp": 2, "coverage": 1, "Flufl.Lock": 0,
                                      "tomli": 0}
    assert pins.hashes("") == {}


@pytest.mark.parametrize(("name", "normal"), [
    ("Flufl.Lock", "flufl-lock"), ("ruamel_yaml", "ruamel-yaml"), ("A--b__C", "a-b-c"),
    ("irrCAC", "irrcac")])
def test_normalise_compares_names_as_pypi_does(name, normal):
    assert pins.normalise(name) == normal


def test_installer_reads_the_record_of_make_venv(tmp_path):
    assert pins.installer(tmp_path) == "not recorded"
    (tmp_path / pins.INSTALLER_RECORD).write_text("")
    assert pins.installer(tmp_path) == "not recorded"
    (tmp_path / pins.INSTALLER_RECORD).write_text("pip 24.0 (INSTALLER=pip)\nmore\n")
    assert pins.installer(tmp_path) == "pip 24.0 (INSTALLER=pip)"


# --- the project's own files of pins ---------------------------------------------------------

UV_PINS = PATHS.requirements_uv  # the installer
PROJECT_PIN_FILES = [PATHS.requirements, PATHS.requirements_no_deps, UV_PINS]


@pytest.mark.parametrize("pin_file", PROJECT_PIN_FILES, ids=lambda f: f.name)
def test_every_pin_carries_its_hashes(pin_file):
    """pip and uv (--require-hashes) check every file they install against these, so a
    fresh set-up installs the files CI tested; make pins writes them."""
    text = pin_file.read_text(encoding="utf-8")
    counts = pins.hashes(text)
    assert counts and all(counts.values()), \
        f"pins without hashes {[n for n, c in counts.items() if not c]}: run make pins"
    assert len(counts) == len(pins.requirement_lines(text)), "every entry is a pin"
    assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", h)
               for h in re.findall(r"--hash=(\S+)", text))


def test_the_pinned_files_are_the_ones_installed():
    # (Label Studio's pins are of its own environment, not the project's)
    assert set(PROJECT_PIN_FILES) == set(ROOT.glob("requirements*.txt")) - {
        PATHS.requirements_studio}
    assert list(pins.pins(UV_PINS.read_text())) == ["uv"]


def test_no_package_is_pinned_twice():
    seen: list[str] = []
    for pin_file in PROJECT_PIN_FILES:
        seen += [pins.normalise(n) for n in pins.pins(pin_file.read_text())]
    assert len(seen) == len(set(seen))
