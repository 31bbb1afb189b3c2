"""The Reproducibility page's versions and pins (analysis.report.site): the installer that
set up the environment, and every pin of the hashed requirements files."""

from __future__ import annotations

import importlib.metadata as md
import sys

from analysis.core import pins
from analysis.core.paths import ROOT, Paths
from analysis.report import site

PATHS = Paths(ROOT)


def test_the_versions_name_the_installer_that_ran(tmp_path, monkeypatch):
    monkeypatch.setattr(site, "pandoc_version", lambda: "3.1")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert site.environment(None)["installer"] == "not recorded"
    (tmp_path / pins.INSTALLER_RECORD).write_text("pip 24.0 (INSTALLER=pip)\n")
    versions = site.environment(None)
    assert versions["installer"] == "pip 24.0 (INSTALLER=pip)"
    assert versions["quarto"] == "not installed" and versions["pandoc"] == "3.1"


def test_the_pins_table_holds_every_pin_of_the_hashed_files():
    """Extras and hashes aside (coverage[toml], fsspec[http, tqdm]); irrCAC from the
    file installed without dependencies."""
    pinned = {pins.normalise(n): v for n, v in site.pinned_packages(PATHS).items()}
    expected = {}
    for f in (PATHS.requirements, PATHS.requirements_no_deps):
        expected |= {pins.normalise(n): v for n, v in pins.pins(f.read_text()).items()}
    assert pinned == expected and {"coverage", "fsspec", "irrcac"} <= set(pinned)
    names = [row[0] for row in site.pins_rows(PATHS)]
    assert names == sorted(names, key=pins.normalise)
    assert len(names) == len(pinned)


def test_installed_versions_are_what_importlib_metadata_says():
    """Read from the metadata's header only, the versions are those of
    importlib.metadata.version, for every pin and a name that is not installed."""
    for name in [*site.pinned_packages(PATHS), *site.KEY_PACKAGES, "no-such-package"]:
        try:
            expected = md.version(name)
        except md.PackageNotFoundError:
            expected = "not installed"
        assert site.installed_version(name) == expected, name


def test_pinned_packages_read_the_hashes_aside(tmp_path):
    (tmp_path / "requirements.txt").write_text(
        "# comment\ncoverage[toml]==7.6.1 \\\n    --hash=sha256:aa \\\n    --hash=sha256:bb\n")
    assert site.pinned_packages(Paths(tmp_path)) == {"coverage": "7.6.1"}
