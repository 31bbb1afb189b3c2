"""Small dumps, archives and runs for the ingest tests: a valid dump folder, archives of
chosen entry names, and ingest run with a time limit (a refusal must never hang)."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.ingest import ingest as ing

COMMIT = "2fba3163d6f143b6aa90128adde3d65ac8759c3e"
TIME_LIMIT = 30  # seconds; a refusal takes well under one
PREVIOUS = "the previous run's data\n"
NAME_MAX = os.pathconf("/tmp", "PC_NAME_MAX")
HIDDEN_NAMES = [
    ("new\nline.csv", "new⟨U+000A⟩line.csv"),
    ("tab\there.csv", "tab⟨U+0009⟩here.csv"),
    ("escape\x1b[31m.csv", "escape⟨U+001B⟩[31m.csv"),
    ("invoice\u202evsc.exe", "invoice⟨U+202E⟩vsc.exe"),
    ("zero\u200bwidth.csv", "zero⟨U+200B⟩width.csv"),
    ("line\u2028sep.csv", "line⟨U+2028⟩sep.csv"),
]


def make_source(root: Path) -> Path:
    src = root / "src"
    (src / "Issue Report" / "p").mkdir(parents=True)
    (src / "Issue Report" / "p" / "p.csv").write_text("Issue_URL,Label1,Final_Label\n")
    (src / "Issue Report" / "p" / "p_2024.txt").write_text("")
    (src / "CodeBook.csv").write_text("Participant\n")
    (src / ".DS_Store").write_bytes(b"\0junk")
    (src / "Issue Report" / ".DS_Store").write_bytes(b"\0junk")
    return src


def manifest_for(src: Path, skip: tuple[str, ...] = (".DS_Store",)) -> str:
    lines = []
    for p in sorted(src.rglob("*")):
        if p.is_file() and p.name not in skip:
            rel = p.relative_to(src).as_posix()
            lines.append(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  ./{rel}")
    return "\n".join(lines) + "\n"


def zip_of(src: Path, top: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                zf.write(p, f"{top}/{p.relative_to(src).as_posix()}")
    return buf.getvalue()


def plain_dump(root: Path) -> Path:
    """A small valid dump folder."""
    (root / "Issue Report" / "p").mkdir(parents=True)
    (root / "Issue Report" / "p" / "p.csv").write_text("Issue_URL,Label1,Final_Label\n")
    (root / "CodeBook.csv").write_text("Participant\n")
    return root


def flat_dump(root: Path, count: int) -> Path:
    root.mkdir()
    for i in range(count):
        (root / f"f{i:03}.csv").write_text("x\n")
    return root


def zip_dump(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name in names:
            zf.writestr(name, "x\n")
    return path


def tar_dump(path: Path, names: list[str]) -> Path:
    with tarfile.open(path, "w") as tf:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 2
            tf.addfile(info, io.BytesIO(b"x\n"))
    return path


def assert_untouched(out: Path) -> None:
    """The target is as the previous run left it, and no temporary folder is left."""
    assert sorted(os.listdir(out)) == ["raw"]
    assert os.listdir(out / "raw") == ["keep.txt"]
    assert (out / "raw" / "keep.txt").read_text() == PREVIOUS


def refusal(source: Path, out: Path, **kwargs) -> str:
    """The message of the InputError ``ingest`` raises, run in a thread with a time limit."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            ing.ingest(str(source), out / "raw", **kwargs)
            outcome.append(None)
        except BaseException as exc:  # handed to the test below
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(TIME_LIMIT)
    if thread.is_alive():
        pytest.fail(f"ingest did not finish within {TIME_LIMIT} s")
    assert outcome and isinstance(outcome[0], InputError), f"not refused: {outcome}"
    message = str(outcome[0])
    assert "\n" not in message
    return message


def run_cli(tmp_path: Path, source: Path, out: Path, extra: str = "") -> tuple[str, float]:
    """``python -m analysis.ingest`` from a scratch folder, with a time limit: (stderr, s)."""
    params = tmp_path / "params.yaml"
    params.write_text(f"ingest:\n  source: {source}\n  manifest: null\n  commit: null\n{extra}")
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "analysis.ingest", "--params", str(params),
             "--out", str(out / "raw"), "--provenance", str(out / "provenance.json")],
            cwd=scratch, capture_output=True, text=True, timeout=TIME_LIMIT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"ingest did not finish within {TIME_LIMIT} s (it hangs)")
    assert proc.returncode == 1 and proc.stdout == ""
    return proc.stderr, time.monotonic() - start


def watch_opens(monkeypatch) -> list[str]:
    """From now on, record the names of the files ingest opens (``os.open``, which ingest
    reads the dump with, and ``Path.open``) or copies."""
    names: list[str] = []
    real_open, real_os_open, real_copy = Path.open, os.open, shutil.copyfile

    def recording_open(self, *args, **kwargs):
        names.append(self.name)
        return real_open(self, *args, **kwargs)

    def recording_os_open(path, *args, **kwargs):
        if "dir_fd" not in kwargs and not os.path.isdir(path):  # not shutil.rmtree's walk
            names.append(Path(path).name)
        return real_os_open(path, *args, **kwargs)

    def recording_copy(src, dst, *args, **kwargs):
        names.append(Path(src).name)
        return real_copy(src, dst, *args, **kwargs)

    monkeypatch.setattr(Path, "open", recording_open)
    monkeypatch.setattr(os, "open", recording_os_open)
    monkeypatch.setattr(shutil, "copyfile", recording_copy)
    return names


def refused_unopened(source: Path, out: Path, monkeypatch, **kwargs) -> str:
    """The one-line message of ingest's refusal of ``source`` (:func:`refusal`), checked
    to come before any file was opened (:func:`watch_opens`), with ``out`` untouched."""
    opened = watch_opens(monkeypatch)
    message = refusal(source, out, **kwargs)
    assert opened == []
    assert_untouched(out)
    return message
