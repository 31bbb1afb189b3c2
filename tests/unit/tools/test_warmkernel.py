"""The warm kernel server's decisions, without a kernel: which requests it serves, what it
sets up so that a library imported in it behaves as in a fresh kernel, and how a kernel it
forked is watched. (Real kernels, forked and fresh, compared: tests/e2e/test_warm_kernels.py.)"""

from __future__ import annotations

import builtins
import os
import subprocess
import sys
import time
import warnings

import pytest

from analysis.tools import warmkernel
from analysis.tools.warmkernel import (
    PER_COMMAND,
    ForkedKernel,
    as_in_a_kernel,
    ask,
    changed_variables,
    imports_after_kernel,
    preload,
    refusal,
)

CMD = [sys.executable, "-m", "ipykernel_launcher", "-f", "kernel.json"]
SERVER_ENV = {"PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "HOME": "/root"}


def test_a_kernel_in_the_servers_environment_is_served():
    assert refusal(CMD, dict(SERVER_ENV), SERVER_ENV) is None


def test_variables_set_per_command_may_differ():
    env = {**SERVER_ENV, "DVC_STAGE": "clean", "PWD": "/elsewhere", "JPY_PARENT_PID": "42",
           "PATH": "/usr/bin"}
    assert set(env) - set(SERVER_ENV) <= PER_COMMAND
    assert refusal(CMD, env, SERVER_ENV) is None


@pytest.mark.parametrize("change", [{"PYTHONHASHSEED": "1"}, {"MPLBACKEND": "Agg"},
                                    {"OPENBLAS_NUM_THREADS": None}])
def test_any_other_variable_that_differs_is_a_refusal_naming_it(change):
    env = {k: v for k, v in {**SERVER_ENV, **change}.items() if v is not None}
    why = refusal(CMD, env, SERVER_ENV)
    assert why == f"the environment differs from the server's in {next(iter(change))}"


def test_another_python_or_command_is_a_refusal():
    assert "ipykernel_launcher" in refusal(["/other/python", *CMD[1:]], SERVER_ENV, SERVER_ENV)
    assert refusal([sys.executable, "-m", "other"], SERVER_ENV, SERVER_ENV)


def test_changed_variables_are_the_new_and_the_changed_ones():
    before = {"A": "1", "B": "2"}
    assert changed_variables(before, {"A": "1", "B": "3", "C": "4"}) == {"B": "3", "C": "4"}


def test_imports_see_a_kernel_and_everything_is_restored_after():
    stdout = sys.stdout
    had_backend = os.environ.pop("MPLBACKEND", None)
    try:
        with as_in_a_kernel():
            assert get_ipython().kernel  # noqa: F821 (defined, as in a kernel)
            assert sys.stdout.encoding == "UTF-8" and not sys.stdout.isatty()
            assert os.environ["MPLBACKEND"] == "module://matplotlib_inline.backend_inline"
        assert sys.stdout is stdout
        assert not hasattr(builtins, "get_ipython")
        assert "MPLBACKEND" not in os.environ
    finally:
        if had_backend is not None:
            os.environ["MPLBACKEND"] = had_backend


def test_preload_returns_the_filters_its_libraries_added(tmp_path, monkeypatch):
    (tmp_path / "filtering_library.py").write_text(
        "import warnings\nwarnings.filterwarnings('ignore', message='from the library')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with warnings.catch_warnings():
        added = preload(("filtering_library",))
        assert [f[1].pattern for f in added] == ["from the library"]
        assert warnings.filters[0] == added[0]
    sys.modules.pop("filtering_library", None)


def test_the_librarys_filters_move_before_those_the_kernel_added_at_its_start():
    library = ("ignore", None, UserWarning, "library", 0)
    kernel = ("default", None, DeprecationWarning, "__main__", 0)
    with warnings.catch_warnings():
        base = list(warnings.filters)
        warnings.filters[:0] = [library]
        warnings.filters.insert(0, kernel)  # the kernel starts after the server's imports
        imports_after_kernel([library])
        assert warnings.filters == [library, kernel, *base]  # as a fresh kernel has them


def test_filters_not_found_are_left_as_they_are():
    with warnings.catch_warnings():
        before = list(warnings.filters)
        imports_after_kernel([("ignore", None, UserWarning, "nowhere", 0)])
        assert warnings.filters == before


def test_a_forked_kernel_is_watched_and_signalled_through_its_pidfd():
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as proc:
        kernel = ForkedKernel(proc.pid)
        assert kernel.poll() is None
        kernel.kill()
        assert kernel.wait(10) == 0  # ended (its status belongs to its parent)
        assert proc.wait(10) == -9
        kernel.kill()  # an ended kernel takes no signal, and raises nothing


def test_a_kernel_already_gone_reads_as_ended():
    with subprocess.Popen([sys.executable, "-c", "pass"]) as proc:
        proc.wait()
    assert ForkedKernel(proc.pid).poll() == 0  # no such process any more


def test_asking_without_a_server_is_a_reason_not_an_error(tmp_path):
    pid, why = ask(str(tmp_path / "none.sock"), CMD, dict(os.environ), str(tmp_path), 1)
    assert pid is None and "no answer" in why


@pytest.mark.slow  # a real server (its imports take seconds)
def test_a_server_stops_on_sigterm_and_says_what_it_did(tmp_path):
    started = time.monotonic()
    with warmkernel.Server(tmp_path, dict(os.environ)) as server:
        assert server.path == tmp_path / "kernels.sock" and server.path.exists()
        pid, why = ask(str(server.path), ["/other/python", *CMD[1:]], dict(os.environ),
                       str(tmp_path))
        assert pid is None and "ipykernel_launcher" in why
    assert server.summary == "0 kernels forked, 1 refused, 0 failed"
    assert not server.path.exists()
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("where", ["missing-folder/kernels.sock", "taken.sock"])
def test_a_socket_that_cannot_be_listened_on_is_one_line(tmp_path, where):
    (tmp_path / "taken.sock").write_text("a file already")
    proc = subprocess.run([sys.executable, "-m", "analysis.tools.warmkernel",
                           str(tmp_path / where)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"warmkernel: cannot listen on {tmp_path / where}: ")
    assert len(proc.stderr.splitlines()) == 1
