"""Kernels forked from the warm server (analysis.tools.warmkernel) against fresh ones, with
real kernels: what a notebook can see of its kernel is the same, and a forked kernel ends
with the process that asked for it. (That a whole run gives the same bytes: the shared run
is built with forked kernels and test_determinism.py's second run with fresh ones.)"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from analysis.core.paths import ROOT
from analysis.tools import warmkernel
from analysis.tools.nbrun import KERNEL_ARGS, kernel_env, local_kernel_manager
from analysis.tools.repro import warm_kernels

pytestmark = pytest.mark.slow

# What a notebook could depend on without naming it: the defaults libraries chose when
# they were imported, the warning filters and their order, paths, flags, hashing, the
# hooks of the shell, the environment. Imported as the stages import them.
STATE = r'''
import json, os, sys, threading, warnings
import numpy as np, pandas as pd, matplotlib, scipy.stats
import analysis.core.stage
from analysis.core import figures
plt = figures.pyplot()
from pandas._config import config as _config
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    options = {k: repr(pd.get_option(k)) for k in sorted(_config._registered_options)}
state = {
    "pandas": options,
    "matplotlib": {k: repr(v) for k, v in sorted(matplotlib.rcParams.items())},
    "backend": matplotlib.get_backend(), "repl_hook": repr(plt._REPL_DISPLAYHOOK),
    "numpy": [repr(np.get_printoptions()), repr(np.geterr())],
    "warnings": [repr(f) for f in warnings.filters],
    "path": sys.path, "cwd": os.getcwd(), "argv": sys.argv[1:2], "flags": repr(sys.flags),
    "hash": hash("abc"), "recursion": sys.getrecursionlimit(),
    "post_execute": [getattr(f, "__qualname__", repr(f))
                     for f in get_ipython().events.callbacks["post_execute"]],
    "environment": {k: v for k, v in os.environ.items() if k != "JPY_PARENT_PID"},
    "threads": sorted(t.name for t in threading.enumerate()),
}
print(json.dumps(state))
'''


def kernel_state(cwd: Path) -> tuple[dict, bool]:
    """STATE in a kernel started as nbrun starts one; and whether it was forked."""
    km = local_kernel_manager(Path(tempfile.mkdtemp(prefix="kernel-")))
    km.start_kernel(cwd=str(cwd), env=kernel_env(), extra_arguments=list(KERNEL_ARGS))
    forked = km.provisioner.warm
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(60)
        out: list[str] = []

        def keep(msg):
            if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
                out.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                out.append("\n".join(msg["content"]["traceback"]))

        kc.execute_interactive(STATE, timeout=120, output_hook=keep)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return json.loads("".join(out)), forked


@contextlib.contextmanager
def server():
    """The driver's warm server (:func:`analysis.tools.repro.warm_kernels`) for this
    process's kernels; it must be listening. (Not a fixture: pytest changes the
    environment between a test's set-up and its call.)"""
    with warm_kernels() as running:
        assert running.path is not None
        yield running


def test_a_forked_kernel_is_what_a_fresh_kernel_is(monkeypatch):
    monkeypatch.setenv("PYTHONHASHSEED", "0")  # as the pipeline runs (else each is random)
    with server() as running:
        warm, forked = kernel_state(ROOT)
    fresh, fresh_forked = kernel_state(ROOT)
    assert running.summary == "1 kernel forked, 0 refused, 0 failed"
    assert forked and not fresh_forked
    # the one thread a forked kernel adds: the one that ends it with its nbrun
    assert sorted(fresh.pop("threads") + [warmkernel.WATCH_THREAD]) == warm.pop("threads")
    warm["environment"].pop(warmkernel.SOCKET_VARIABLE)
    for key in fresh:
        assert warm[key] == fresh[key], key


LAUNCHER = """
import os, sys, tempfile, time
from pathlib import Path
from analysis.tools.nbrun import KERNEL_ARGS, kernel_env, local_kernel_manager
from analysis.tools.repro import warm_kernels
km = local_kernel_manager(Path(tempfile.mkdtemp()))
km.start_kernel(cwd=os.getcwd(), env=kernel_env(), extra_arguments=list(KERNEL_ARGS))
print(km.provisioner.pid, km.provisioner.warm, flush=True)
time.sleep(120)
"""


def test_a_forked_kernel_ends_with_the_process_that_asked_for_it():
    """An nbrun killed outright (SIGKILL: no clean-up) leaves no kernel running on, while
    the server that forked it runs on."""
    with server() as running:
        with subprocess.Popen([sys.executable, "-c", LAUNCHER], cwd=ROOT, env=running.env,
                              stdout=subprocess.PIPE, text=True) as launcher:
            pid, forked = launcher.stdout.readline().split()
            pid = int(pid)
            assert forked == "True"
            os.kill(pid, 0)  # the kernel runs
            launcher.send_signal(signal.SIGKILL)
        assert ended_within(pid, 15), "the forked kernel outlived the process that asked for it"


def ended_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` ends within ``seconds`` (killed if it does not)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    return False
