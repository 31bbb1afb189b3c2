"""Child processes for the fault tests that kill a command, started cheaply.

A test that kills a run with SIGKILL at a chosen step (``tests/faults/test_killed_*.py``)
needs the run in a process of its own. A fresh Python that imports the commands (pandas,
pandera, openpyxl...) spends about a CPU-second on its imports before it does anything, and
these tests start some fifteen. Here each child is forked instead from a server process
that imported the commands once (multiprocessing's *forkserver*, started by the first
child of a test process, with :data:`PRELOAD`): every child is still a process of its own,
with its own pid, working folder, environment, umask, standard output and error, that runs
its code from the start as ``python -c CODE ARGS...`` would (``sys.argv`` included) and
dies for real when it is killed. The server itself holds no lock and no file of the runs.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# What the children run: the commands the fault tests kill (imported by the server once)
PRELOAD = ["analysis.update.labels.__main__", "analysis.ingest.__main__",
           "analysis.update.study.batch"]

_CONTEXT: list = []


def context():
    """The forkserver context, its server preloading :data:`PRELOAD` (stopped and waited
    for when this process exits, so that its time is counted with this process's)."""
    if not _CONTEXT:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        _CONTEXT.append(ctx)
        atexit.register(_stop_server)
    return _CONTEXT[0]


def _stop_server() -> None:
    """Ask the server to end, and wait for it (multiprocessing's own tests do so)."""
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)
    if stop is not None:
        stop()


def _run_code(code: str, argv: list[str], cwd: str, env: dict[str, str], umask: int,
              out: str, err: str) -> None:
    """In the child: become a process started in ``cwd`` with ``env`` and ``umask``, its
    standard output and error to the files ``out`` and ``err``, and run ``code`` as
    ``python -c`` runs it (a SystemExit gives the exit status)."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    os.umask(umask)
    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = ["-c", *argv]
    exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102


class Child:
    """A child running ``code`` with ``argv`` in ``cwd``, with the parts of
    :class:`subprocess.Popen` the fault tests use (``pid``, ``poll``, ``returncode``,
    ``communicate``; the output as text)."""

    def __init__(self, code: str, argv: list[str], cwd: Path):
        self.args = ["python", "-c", "...", *argv]
        self._folder = tempfile.mkdtemp(prefix="child-")
        self._out, self._err = (os.path.join(self._folder, n) for n in ("out", "err"))
        for path in (self._out, self._err):
            Path(path).touch()
        umask = os.umask(0)
        os.umask(umask)
        self._process = context().Process(target=_run_code, args=(
            code, list(argv), str(cwd), dict(os.environ), umask, self._out, self._err))
        self._process.start()
        self.pid = self._process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status; -N when a signal N ended it; None while it runs."""
        return self._process.exitcode

    def poll(self) -> int | None:
        return self.returncode

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """Wait for the child to end (subprocess.TimeoutExpired after ``timeout``
        seconds, the child left running); its standard output and error."""
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired(self.args, timeout)
        said = tuple(Path(p).read_text(encoding="utf-8") for p in (self._out, self._err))
        shutil.rmtree(self._folder, ignore_errors=True)
        return said


def run_code(code: str, argv: list[str], cwd: Path,
             timeout: float) -> subprocess.CompletedProcess:
    """``python -c code argv...`` in ``cwd``, as :func:`subprocess.run` with
    ``capture_output=True, text=True, timeout=timeout`` gives it (a forked :class:`Child`)."""
    child = Child(code, argv, cwd)
    try:
        out, err = child.communicate(timeout)
    except subprocess.TimeoutExpired:
        child._process.kill()
        child._process.join()
        raise
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)
