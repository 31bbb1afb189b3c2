"""Finding Quarto, and the one attempt to install it (analysis.report.quarto)."""

from __future__ import annotations

import subprocess
import sys
import urllib.error

import pytest

from analysis.report import quarto


def test_the_release_archive_is_the_one_the_package_build_downloads():
    version = quarto.QUARTO_CLI_PIN.split("==")[1]  # the pinned package's Quarto
    base = (f"https://github.com/quarto-dev/quarto-cli/releases/download/v{version}/"
            f"quarto-{version}-")
    assert quarto.release_url("linux", "x86_64") == base + "linux-amd64.tar.gz"
    assert quarto.release_url("linux", "aarch64") == base + "linux-arm64.tar.gz"
    assert quarto.release_url("darwin", "arm64") == base + "macos.tar.gz"
    assert quarto.release_url("win32", "AMD64") == base + "win.zip"
    assert quarto.release_url("linux", "riscv64") is None
    assert quarto.release_url("freebsd14", "amd64") is None


class Answer:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_unreachable_says_why_and_asks_with_head(monkeypatch):
    asked = []

    def refuse(request, timeout):
        asked.append((request.get_method(), request.full_url, timeout))
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr("urllib.request.urlopen", refuse)
    assert quarto.unreachable("https://example.org/q.tgz", timeout=2) == (
        "https://example.org/q.tgz cannot be reached: Name or service not known")
    assert asked == [("HEAD", "https://example.org/q.tgz", 2)]
    monkeypatch.setattr("urllib.request.urlopen", lambda request, timeout: Answer())
    assert quarto.unreachable("https://example.org/q.tgz") is None

    def missing(request, timeout):
        raise urllib.error.HTTPError(request.full_url, 404, "Not Found", {}, None)

    monkeypatch.setattr("urllib.request.urlopen", missing)
    assert quarto.unreachable("https://example.org/q.tgz") == (
        "https://example.org/q.tgz answered 404")


def test_no_pip_run_when_the_archive_cannot_be_reached(monkeypatch):
    monkeypatch.setattr(quarto, "unreachable", lambda url: f"{url} cannot be reached: down")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("pip ran"))
    installed, why = quarto.try_install()
    assert not installed and why.endswith("cannot be reached: down")
    monkeypatch.setattr(quarto, "release_url", lambda: None)
    assert quarto.try_install() == (
        False, f"{quarto.QUARTO_CLI_PIN} has no Quarto build for this platform")


def test_pip_runs_when_the_archive_answers_and_its_error_line_is_kept(monkeypatch):
    monkeypatch.setattr(quarto, "unreachable", lambda url: None)
    ran = []

    def pip(cmd, **kwargs):
        ran.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "", "noise\nERROR: no space left\n")

    monkeypatch.setattr(subprocess, "run", pip)
    assert quarto.try_install() == (False, "ERROR: no space left")
    assert ran[0][:4] == [sys.executable, "-m", "pip", "install"]
    assert ran[0][-1] == quarto.QUARTO_CLI_PIN


def test_setup_tries_once_and_remembers_why(monkeypatch, tmp_path):
    said = []
    monkeypatch.setattr(quarto, "find_quarto", lambda: None)
    monkeypatch.setattr(sys, "prefix", str(tmp_path))  # a virtual environment
    attempts = []
    monkeypatch.setattr(quarto, "try_install",
                        lambda: attempts.append(1) or (False, "x cannot be reached: down"))
    assert quarto.setup(said.append) is None
    assert (tmp_path / ".quarto-unavailable").read_text() == "x cannot be reached: down\n"
    assert quarto.setup(said.append) is None
    assert attempts == [1]  # not retried
    assert "not retried: delete" in said[1] and "x cannot be reached: down" in said[1]


def test_setup_outside_a_virtualenv_installs_nothing(monkeypatch):
    monkeypatch.setattr(quarto, "find_quarto", lambda: None)
    monkeypatch.setattr(sys, "prefix", sys.base_prefix)
    monkeypatch.setattr(quarto, "try_install", lambda: pytest.fail("tried to install"))
    said = []
    assert quarto.setup(said.append) is None
    assert said[0].startswith("report: Quarto not found; the pandoc preview renders the site.")
