"""Kernels forked from a process that has already imported the stages' libraries.

    python -m analysis.tools.warmkernel SOCKET

A stage's notebook runs in a fresh Jupyter kernel (:mod:`analysis.tools.nbrun`), and a
fresh kernel spends 1.5 to 2 s of every stage before its first line of work: starting
Python and ipykernel, then importing pandas, pandera, matplotlib and scipy. When the
pipeline runs several stages (:mod:`analysis.tools.repro`), this server imports those
libraries once, and each stage's kernel is a fork of it, ready in a few milliseconds.

The server listens on the Unix socket ``SOCKET`` (the driver names it in
:data:`SOCKET_VARIABLE` for its stages). ``nbrun`` sends the kernel's command line, working
folder and environment as one JSON line, with its standard input, output and error (as
``SCM_RIGHTS``); the server forks, and the child becomes the kernel
(:func:`become_kernel`): a session of its own, ``nbrun``'s output, the working folder,
the environment, and ``ipykernel``'s own start (``ipykernel_launcher -f CONNECTION ...``).
The reply is the kernel's process id; ``nbrun`` then talks to the kernel as it talks to a
kernel it started itself (:func:`provisioner_class`).

What makes a forked kernel the same as a fresh one:

- The server imports third-party libraries only, never the project's own code (which a
  test's copy of the project has elsewhere), and it starts no thread, event loop or
  ZeroMQ context before forking: the kernel makes its own, after the fork.
- It serves a request only when the environment that shaped those imports is the one the
  kernel asks for: the same Python, and every variable equal but those a stage's shell and
  DVC set for each command (:data:`PER_COMMAND`). Otherwise it refuses, and ``nbrun``
  starts a fresh kernel (:func:`refusal`).
- The kernel exits as soon as the ``nbrun`` that asked for it does (a run killed with
  SIGKILL leaves no kernel writing outputs), as ipykernel's own parent watch makes a fresh
  kernel do.

The outputs are the same bytes either way: the end-to-end tests build one run with forked
kernels (the driver) and one with fresh ones (plain ``dvc repro``) and compare every file.
"""

from __future__ import annotations

import argparse
import array
import atexit
import builtins
import contextlib
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import warnings
from pathlib import Path

SOCKET_VARIABLE = "ANALYSIS_WARM_KERNEL"
# What the stages' notebooks import that costs time (measured with python -X importtime):
# the kernel itself, then the libraries; never the project's own modules.
# (matplotlib.pyplot is left to the kernel: importing it decides on the REPL hooks of
# the shell there is, and the server has none.)
KERNEL_MODULE = "ipykernel.kernelapp"
PRELOAD = ("numpy", "pandas", "pyarrow.parquet", "pandera.pandas",
           "scipy.stats", "matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg")
# Variables set per command, by DVC (DVC_ROOT, DVC_STAGE, PATH when it undoes pyenv's
# shims), by the shell that runs the command (PWD, OLDPWD, SHLVL, _), and by
# jupyter_client for the kernel it launches (JPY_PARENT_PID): none of them is read when a
# library is imported. Every other variable must be the server's.
PER_COMMAND = frozenset({"DVC_ROOT", "DVC_STAGE", "PATH", "PWD", "OLDPWD", "SHLVL", "_",
                         "JPY_PARENT_PID"})
LAUNCHER = ("-m", "ipykernel_launcher")
WATCH_THREAD = "warmkernel: ends the kernel with the process that asked for it"
MAX_REQUEST = 1 << 20
ACCEPT_TIMEOUT_S = 0.1  # how soon the server sees SIGTERM or its parent gone
REPLY_TIMEOUT_S = 60.0  # the server's imports (a few seconds) come before its first reply


# --------------------------------------------------------------------------- the decision


def refusal(cmd: list[str], env: dict[str, str], server_env: dict[str, str],
            executable: str = sys.executable) -> str | None:
    """Why the server cannot give this kernel (``None`` when it can): the command must be
    this Python's ``-m ipykernel_launcher``, and the environment the server's, but for the
    variables set per command (:data:`PER_COMMAND`)."""
    if list(cmd[:3]) != [executable, *LAUNCHER]:
        return f"the kernel command is not {executable} -m ipykernel_launcher: {cmd[:3]}"
    keys = (set(env) | set(server_env)) - PER_COMMAND
    differ = sorted(k for k in keys if env.get(k) != server_env.get(k))
    if differ:
        return f"the environment differs from the server's in {', '.join(differ)}"
    return None


# --------------------------------------------------------------------------- the client


def ask(path: str, cmd: list[str], env: dict[str, str], cwd: str,
        timeout: float = REPLY_TIMEOUT_S) -> tuple[int | None, str]:
    """Ask the server at ``path`` for a kernel running ``cmd`` in ``cwd`` with ``env``,
    with this process's standard input (``/dev/null``, as jupyter_client gives a kernel
    none), output and error. Returns ``(pid, "")``, or ``(None, why)`` when there is no
    server, it refused, or it did not answer in time."""
    request = json.dumps({"cmd": cmd, "env": env, "cwd": cwd}).encode() + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn, \
                open(os.devnull, "rb") as stdin:
            conn.settimeout(timeout)
            conn.connect(path)
            socket.send_fds(conn, [request], [stdin.fileno(), 1, 2])
            reply = json.loads(_read_line(conn) or b"{}")
    except (OSError, ValueError) as exc:
        return None, f"no answer from {path}: {exc}"
    if isinstance(reply.get("pid"), int):
        return reply["pid"], ""
    return None, str(reply.get("refused", "no reply"))


def _read_line(conn: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


class ForkedKernel:
    """A kernel the server forked, as jupyter_client sees a ``Popen``: it is not this
    process's child, so it is watched through a pidfd (its exit makes the pidfd readable)
    and signalled through it (never another process that took its number)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None
        try:
            self._fd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:
            self._fd, self.returncode = None, 0  # it has already ended

    def poll(self) -> int | None:
        if self.returncode is None and self._fd is not None:
            ended, _, _ = select.select([self._fd], [], [], 0)
            if ended:
                self._ended()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        if self.returncode is None and self._fd is not None:
            select.select([self._fd], [], [], timeout)
        return self.poll()

    def _ended(self) -> None:
        os.close(self._fd)
        # the exit status belongs to the server (its parent): an ended kernel reads as 0
        self._fd, self.returncode = None, 0

    def send_signal(self, signum: int) -> None:
        if self._fd is not None:
            signal.pidfd_send_signal(self._fd, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def provisioner_class():
    """jupyter_client's local provisioner, asking the server (named in
    :data:`SOCKET_VARIABLE`) for the kernel first; a fresh kernel when there is none or it
    refuses. Defined on demand: jupyter_client is imported only by the processes that
    start kernels."""
    from jupyter_client.provisioning import LocalProvisioner

    class WarmProvisioner(LocalProvisioner):
        warm = False
        refused = ""

        async def launch_kernel(self, cmd: list[str], **kwargs):
            path = os.environ.get(SOCKET_VARIABLE)
            if path:
                env = {**kwargs.get("env", os.environ), "JPY_PARENT_PID": str(os.getpid())}
                cwd = str(kwargs.get("cwd") or os.getcwd())
                pid, self.refused = ask(path, cmd, env, cwd)
                if pid is not None:
                    self.process = ForkedKernel(pid)
                    self.pid = self.pgid = pid  # the kernel leads a session of its own
                    self.cwd, self.warm = cwd, True
                    return self.connection_info
            return await super().launch_kernel(cmd, **kwargs)

    return WarmProvisioner


# --------------------------------------------------------------------------- the server


class _KernelShell:
    """What ``get_ipython()`` returns in a kernel, as far as an import looks at it: pandas
    sizes its tables for a terminal unless the shell has a ``kernel``."""

    kernel = True


class _KernelStream:
    """What ``sys.stdout`` is in a kernel, as far as an import looks at it (pandas takes
    its display encoding from it)."""

    encoding = "UTF-8"  # ipykernel's OutStream

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def as_in_a_kernel():
    """The world a library sees when a notebook imports it in a kernel: ``get_ipython()``
    answers with a kernel's shell, ``sys.stdout`` is the kernel's stream, and matplotlib's
    backend variable is the one ipykernel sets. So what a library decides on import
    (pandas' display options, matplotlib's default backend) is what it decides in a fresh
    kernel; the warm kernel test compares the two."""
    had_backend = "MPLBACKEND" in os.environ
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    builtins.get_ipython = _KernelShell
    stdout, sys.stdout = sys.stdout, _KernelStream()
    try:
        yield
    finally:
        sys.stdout = stdout
        del builtins.get_ipython
        if not had_backend:
            del os.environ["MPLBACKEND"]


def preload(modules: tuple[str, ...] = PRELOAD) -> list:
    """Import ipykernel, then ``modules`` (what the notebooks import once their kernel has
    started) as in a kernel (:func:`as_in_a_kernel`); returns the warning filters the
    latter added."""
    importlib.import_module(KERNEL_MODULE)  # what a fresh kernel imports before it starts
    before = list(warnings.filters)
    with as_in_a_kernel():
        for name in modules:
            importlib.import_module(name)
    added = len(warnings.filters) - len(before)
    return list(warnings.filters[:added]) if warnings.filters[added:] == before else []


def imports_after_kernel(import_filters: list) -> None:
    """Put the warning filters the server's imports added (``import_filters``) before the
    ones the kernel added at its start, where a fresh kernel has them (it imports after
    its start, and a filter added later comes first)."""
    n = len(import_filters)
    for at in range(len(warnings.filters) - n + 1):
        if warnings.filters[at:at + n] == import_filters:
            kernel = warnings.filters[:at]
            warnings.filters[:at + n] = import_filters + kernel
            warnings._filters_mutated()
            return


def _peer_pid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    return array.array("i", creds)[0]


def _exit_when_ended(pidfd: int) -> None:
    """Wait until the process behind ``pidfd`` ends, then end this one at once (from a
    daemon thread of the kernel)."""
    select.select([pidfd], [], [])
    os._exit(1)


def become_kernel(request: dict, fds: list[int], watched: int, import_filters: list) -> int:
    """In the forked child: become the kernel ``request`` asks for, with ``fds`` as its
    standard input, output and error, ended when the process behind the pidfd ``watched``
    ends (``import_filters``: the warning filters of the server's imports); returns the
    kernel's exit code."""
    os.setsid()
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    # (imported here: the server has them already, and nbrun and the driver, which import
    # this module, need not)
    import ipykernel_launcher
    from ipykernel import kernelapp

    sys.argv = [ipykernel_launcher.__file__, *request["cmd"][3:]]  # as the launcher's
    threading.Thread(target=_exit_when_ended, args=(watched,), name=WATCH_THREAD,
                     daemon=True).start()

    try:
        # ipykernel read JPY_PARENT_PID when the server imported it: the kernel's is given
        app = kernelapp.IPKernelApp.instance(
            parent_handle=int(request["env"].get("JPY_PARENT_PID") or 0))
        app.initialize()
        imports_after_kernel(import_filters)
        app.start()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    return code


def changed_variables(before: dict[str, str], after) -> dict[str, str]:
    """The variables ``after`` sets to another value than ``before`` (what the imports
    set: pandera, for one, sets two for pyspark)."""
    return {k: v for k, v in after.items() if before.get(k) != v}


def serve_one(listener: socket.socket, conn: socket.socket, server_env: dict[str, str],
              imported_env: dict[str, str], import_filters: list) -> bool:
    """Answer one request on ``conn``: a refusal (returns False), or a forked kernel's
    process id (True).
    ``server_env`` is the environment the imports started from, ``imported_env`` what they
    set (the kernel has it too, as a fresh kernel would once it imported them)."""
    with conn:
        conn.settimeout(10)
        message, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
        try:
            if not message.endswith(b"\n"):  # the rest of a long request
                message += _read_line(conn)
            request = json.loads(message)
            why = refusal(request["cmd"], request["env"], server_env)
            if why is None and len(fds) != 3:
                why = f"expected 3 file descriptors, got {len(fds)}"
            if why is not None:
                conn.sendall(json.dumps({"refused": why}).encode() + b"\n")
                print(f"warmkernel: refused: {why}", file=sys.stderr, flush=True)
                return False
            watched = os.pidfd_open(_peer_pid(conn))
            pid = os.fork()
            if pid == 0:  # the kernel
                code = 1
                try:
                    listener.close()
                    conn.close()
                    request["env"] = {**request["env"], **imported_env}
                    code = become_kernel(request, fds, watched, import_filters)
                except BaseException:
                    traceback.print_exc()
                finally:
                    os._exit(code)
            os.close(watched)
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
            return True
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)


def _reap(signum, frame) -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def serve(path: Path, modules: tuple[str, ...] = PRELOAD) -> int:
    """Listen on ``path``, import ``modules``, then fork a kernel per request until
    SIGTERM, or until the process that started this one ends. Prints one line when it is
    listening and one with the number of kernels forked, requests refused and requests
    failed when it stops (each refusal and failure also gets a line on standard error).

    Like ``ipykernel_launcher``, it first takes its working folder (which ``python -m``
    put first) off ``sys.path``, so nothing in that folder shadows a library, and the
    kernels' ``sys.path`` is a fresh kernel's."""
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    parent = os.getppid()
    # ended kernels are reaped at once (their CPU time then counts as this process's
    # children's, as a fresh kernel's counts as nbrun's)
    signal.signal(signal.SIGCHLD, _reap)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    forked = refused = failed = 0
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        try:
            listener.bind(str(path))
        except OSError as exc:
            print(f"warmkernel: cannot listen on {path}: {exc.strerror} (name a socket "
                  "that does not exist yet, in a folder that does)", file=sys.stderr)
            return 1
        listener.listen(16)  # requests wait here while the libraries are imported
        print(f"warmkernel: listening on {path}", flush=True)
        server_env = dict(os.environ)
        import_filters = preload(modules)
        imported_env = changed_variables(server_env, os.environ)
        listener.settimeout(ACCEPT_TIMEOUT_S)
        while not stop.is_set() and os.getppid() == parent:
            try:
                conn, _ = listener.accept()
            except (TimeoutError, InterruptedError):
                continue
            try:
                if serve_one(listener, conn, server_env, imported_env, import_filters):
                    forked += 1
                else:
                    refused += 1
            except (OSError, ValueError, KeyError) as exc:
                failed += 1
                print(f"warmkernel: a request failed: {exc}", file=sys.stderr, flush=True)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    print(f"warmkernel: {forked} kernel{'s' * (forked != 1)} forked, {refused} refused, "
          f"{failed} failed", flush=True)
    return 0


# --------------------------------------------------------------------------- the driver's side


class Server:
    """The server as the driver runs it: started by ``with``, listening on a socket in
    ``folder``, with ``env``, the environment its kernels will ask for (plus
    :data:`SOCKET_VARIABLE`, which names the socket); stopped (SIGTERM) when the block
    ends, after which :attr:`summary` holds its last line ("N kernels forked, M refused,
    K failed"). :attr:`path` is ``None`` when it did not listen within ``wait_s``."""

    def __init__(self, folder: Path, env: dict[str, str], wait_s: float = 10.0):
        self.socket = folder / "kernels.sock"
        self.env = {**env, SOCKET_VARIABLE: str(self.socket)}
        self.wait_s = wait_s
        self.path: Path | None = None
        self.summary = ""
        self._proc = None

    def __enter__(self) -> Server:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "analysis.tools.warmkernel", str(self.socket)],
            env=self.env, stdout=subprocess.PIPE, text=True, start_new_session=True)
        if _line_within(self._proc, self.wait_s).startswith("warmkernel: listening"):
            self.path = self.socket
        return self

    def __exit__(self, *exc) -> None:
        proc = self._proc
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        lines = [line for line in out.splitlines() if line.startswith("warmkernel: ")]
        self.summary = lines[-1].removeprefix("warmkernel: ") if lines else ""


def _line_within(proc, seconds: float) -> str:
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            return proc.stdout.readline()
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.warmkernel",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("socket", type=Path, help="the Unix socket to listen on")
    args = parser.parse_args(argv)
    return serve(args.socket)


if __name__ == "__main__":
    sys.exit(main())
