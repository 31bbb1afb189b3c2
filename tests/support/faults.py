"""Faults made to happen on purpose, at a chosen point, for the tests in ``tests/faults/``.

As in SQLite's I/O-error tests, a fault is injected where the test says, never left to
timing:

- :func:`read_only`: a folder of this process behaves as on a read-only file system (every
  call that would create, change, move or remove something under it fails with EROFS).
  The tests run as root, for whom ``chmod`` stops no write, so permissions cannot do it;
- :func:`held_run`: a pipeline command in a project copy that stops just before a named
  file is moved into place (the temporary file complete, the output not yet there), and
  is killed there with SIGKILL, as ``kill -9`` or a power cut would.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from analysis.core import artifacts
from tests.support.workspace import pipeline_env

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _under(path, folder: Path) -> bool:
    if isinstance(path, int) or path is None:
        return False
    return Path(os.path.abspath(os.fsdecode(path))).is_relative_to(folder)


def _refuse(path) -> None:
    raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fsdecode(path))


def read_only(monkeypatch, folder: Path) -> None:
    """Make ``folder`` and everything under it read-only for this process, as a read-only
    file system would: opening a file there for writing, making or removing a folder or
    file, renaming or exchanging (:func:`analysis.core.artifacts.exchange_paths`) to or
    from it, changing modes and removing trees all fail with EROFS
    (``shutil.rmtree(..., ignore_errors=True)`` quietly does nothing, as it would)."""
    folder = Path(os.path.abspath(folder))
    real_open, real_os_open = builtins.open, os.open

    def guarded_open(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wxa+") and _under(file, folder):
            _refuse(file)
        return real_open(file, mode, *args, **kwargs)

    def guarded_os_open(path, flags, *args, **kwargs):
        if flags & WRITE_FLAGS and kwargs.get("dir_fd") is None and _under(path, folder):
            _refuse(path)
        return real_os_open(path, flags, *args, **kwargs)

    def one_path(real):
        def guarded(path, *args, **kwargs):
            if kwargs.get("dir_fd") is None and _under(path, folder):
                _refuse(path)
            return real(path, *args, **kwargs)
        return guarded

    def two_paths(real):
        def guarded(src, dst, *args, **kwargs):
            for path in (src, dst):
                if _under(path, folder):
                    _refuse(path)
            return real(src, dst, *args, **kwargs)
        return guarded

    real_rmtree = shutil.rmtree

    def guarded_rmtree(path, ignore_errors=False, *args, **kwargs):
        if _under(path, folder):
            if ignore_errors:
                return None
            _refuse(path)
        return real_rmtree(path, ignore_errors, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(io, "open", guarded_open)
    monkeypatch.setattr(os, "open", guarded_os_open)
    for name in ("mkdir", "unlink", "remove", "rmdir", "chmod"):
        monkeypatch.setattr(os, name, one_path(getattr(os, name)))
    for name in ("replace", "rename", "link", "symlink"):
        monkeypatch.setattr(os, name, two_paths(getattr(os, name)))
    monkeypatch.setattr(shutil, "rmtree", guarded_rmtree)
    # the exchange of two folders in one step, which the os module has no call for
    monkeypatch.setattr(artifacts, "exchange_paths", two_paths(artifacts.exchange_paths))


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every entry under ``folder``: relative path -> bytes (None for a folder)."""
    return {p.relative_to(folder).as_posix(): None if p.is_dir() else p.read_bytes()
            for p in sorted(folder.rglob("*"))}


# Loaded by every Python process of a held run (it is first on PYTHONPATH): while the
# environment names a file, the first os.replace onto a file of that name signals that it
# is held, then waits for the test to kill the run.
HOLD_HOOK = '''"""Fault injection of the test suite (tests/support/faults.py): hold os.replace."""
import os

_name = os.environ.get("FAULT_HOLD_REPLACE_ONTO")
_signals = os.environ.get("FAULT_HOLD_SIGNALS")
if _name and _signals:
    import time

    _real_replace = os.replace

    def _held_replace(src, dst, *args, **kwargs):
        if os.path.basename(os.fsdecode(dst)) == _name:
            open(os.path.join(_signals, "held"), "w").close()
            while os.path.exists(os.path.join(_signals, "hold")):
                time.sleep(0.02)
        return _real_replace(src, dst, *args, **kwargs)

    os.replace = _held_replace
'''
HELD_LIMIT = 600  # seconds: a run that never reaches the point fails the test, never hangs it


class Held(NamedTuple):
    """What a held and killed run printed, and the paths it left in its temporary folder
    (relative to it; Unix sockets included)."""

    output: str
    temporary_left: list[str]


def held_run(work: Path, args: list[str], name: str, signals: Path) -> Held:
    """Run ``args`` (a command such as ``["dvc", "repro"]``) in the project copy ``work``
    until it is about to move a file named ``name`` into place, kill it and every process
    of its session there with SIGKILL, and return what it printed and what it left in its
    temporary folder. Fails if the command ends, or does not get there within
    :data:`HELD_LIMIT` seconds.

    The run gets a temporary folder of its own (``TMPDIR``), removed after the kill, so
    what the killed processes could not clean up is seen, and not left in the machine's.
    It is a short path under the machine's temporary folder: a notebook stage's kernel
    binds Unix sockets in it, whose paths may not exceed 107 bytes."""
    hooks = signals / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "sitecustomize.py").write_text(HOLD_HOOK, encoding="utf-8")
    (signals / "hold").touch()
    temporary = Path(tempfile.mkdtemp(prefix="held-"))
    env = pipeline_env(work)
    env.update(PYTHONPATH=f"{hooks}{os.pathsep}{env['PYTHONPATH']}",
               FAULT_HOLD_REPLACE_ONTO=name, FAULT_HOLD_SIGNALS=str(signals),
               TMPDIR=str(temporary))
    log = signals / "output.log"
    try:
        with log.open("w") as out:
            proc = subprocess.Popen(args, cwd=work, env=env, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            deadline = time.monotonic() + HELD_LIMIT
            try:
                while not (signals / "held").exists():
                    if proc.poll() is not None:
                        raise AssertionError(f"{' '.join(args)} ended (status "
                                             f"{proc.returncode}) before moving {name} "
                                             f"into place:\n{log.read_text()}")
                    if time.monotonic() > deadline:
                        raise AssertionError(f"{' '.join(args)} never moved {name} into "
                                             "place")
                    time.sleep(0.05)
            finally:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        left = sorted(p.relative_to(temporary).as_posix() for p in temporary.rglob("*"))
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    (signals / "hold").unlink()
    return Held(log.read_text(), left)
