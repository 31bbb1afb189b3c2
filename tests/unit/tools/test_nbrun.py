"""nbrun's parameters, measurements and kernel handling, without running a kernel: the
values injected and the names a notebook takes, the split of a run read from papermill's
time stamps, the import cell of every notebook, the readiness wait."""

from __future__ import annotations

import ast
import gc
import itertools
import json
import os
import subprocess
import sys
import time
from queue import Empty
from unittest import mock

import nbformat
import pytest

from analysis.core import runlog
from analysis.core.paths import ROOT
from analysis.tools import nbrun
from analysis.tools.nbrun import (
    FREEZE_AT_EXIT,
    KERNEL_ARGS,
    check_parameters,
    import_cell,
    load_notebook,
    parameter_names,
    parse_params,
    stage_timings,
    strip_volatile,
    wait_until_ready,
)

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


def stamp(seconds: float) -> str:
    """A papermill time stamp, ``seconds`` after 12:00:00 UTC."""
    whole, frac = divmod(seconds, 1)
    return f"2025-06-13T12:00:{int(whole):02d}.{round(frac * 1e6):06d}+00:00"


def cell(kind: str, start: float | None, end: float | None, tags=(), source="") -> dict:
    pm = {"start_time": None if start is None else stamp(start),
          "end_time": None if end is None else stamp(end),
          "duration": None if start is None or end is None else end - start,
          "exception": False, "status": "completed"}
    return {"cell_type": kind, "source": source,
            "metadata": {"papermill": pm, "tags": list(tags), "execution": {}}}


def executed(start: float = 0.0) -> dict:
    """A notebook as papermill leaves it: run from 00.0 s, the kernel ready at 01.5 s."""
    return {
        "metadata": {"papermill": {"start_time": stamp(start), "end_time": stamp(9.0),
                                   "duration": 9.0 - start}},
        "cells": [
            cell("markdown", 1.5, 1.5),
            cell("code", 1.5, 1.52, tags=["parameters"], source="root = '.'"),
            cell("code", 1.52, 1.53, tags=["injected-parameters"], source="root = '.'"),
            cell("code", 1.53, 2.33, source="import pandas as pd"),   # imports: 0.8 s
            cell("markdown", 2.34, 2.34),
            cell("code", 2.34, 5.0, source="work()"),
            cell("code", 5.0, 6.25, source="more()"),                 # last end: 6.25 s
        ],
    }


def test_split_from_papermill_time_stamps():
    split = stage_timings(executed())
    assert split == pytest.approx({"kernel_start": 1.5, "imports": 0.8, "work": 3.95})


def test_kernel_start_counts_from_the_launch_when_given():
    launched = nbrun._when(stamp(0.25))
    assert stage_timings(executed(), launched)["kernel_start"] == pytest.approx(1.25)


def test_import_cell_is_the_first_code_cell_after_the_parameters():
    nb = executed()
    assert import_cell(nb) == 3
    del nb["cells"][2]  # no injected cell (no parameters passed)
    assert import_cell(nb) == 2
    nb["cells"][1]["metadata"]["tags"] = []
    assert import_cell(nb) is None


def test_no_import_cell_puts_everything_in_work():
    nb = executed()
    nb["cells"][1]["metadata"]["tags"] = []
    split = stage_timings(nb)
    assert split["imports"] == 0 and split["work"] == pytest.approx(4.75)


def test_cells_without_times_are_left_out_and_an_unrun_notebook_has_no_split():
    nb = executed()
    nb["cells"].append(cell("code", None, None))  # never ran (a failure above it)
    nb["cells"][-2]["metadata"]["papermill"]["end_time"] = "not a time"
    assert stage_timings(nb)["work"] == pytest.approx(5.0 - 1.5 - 0.8)
    assert stage_timings({"metadata": {}, "cells": [cell("code", None, None)]}) == {}
    assert stage_timings({"cells": []}) == {}


def test_the_split_is_read_before_strip_volatile_drops_the_times():
    nb = nbformat.from_dict(executed())  # what papermill returns: a NotebookNode
    split = stage_timings(nb)
    strip_volatile(nb, "notebooks/x.py", "report/notebooks/x.ipynb")
    assert stage_timings(nb) == {} and split


def test_run_record_keeps_the_split(tmp_path):
    split = stage_timings(executed())
    path = runlog.record("clean", 6.5, tmp_path, **split, other=6.5 - sum(split.values()))
    data = json.loads(path.read_text())
    assert data["seconds"] == 6.5
    assert (data["kernel_start"], data["imports"], data["work"], data["other"]) == (
        1.5, 0.8, 3.95, 0.25)
    assert runlog.read_all(tmp_path)[0]["stage"] == "clean"


# --------------------------------------------------------------------------- parameters


def project(tmp_path, text: str):
    (tmp_path / "params.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_a_stage_gets_its_root_and_its_whole_section_as_one_mapping(tmp_path):
    root = project(tmp_path, "agreement:\n  seed: 1\n  confidence_level: 0.95\n"
                             "clean:\n  duplicates: keep\n")
    assert parse_params("agreement", [], root) == {
        "root": str(root), "params": {"seed": 1, "confidence_level": 0.95}}
    assert parse_params("agreement", [["seed", "7"], ["extra", "[a]"]], root) == {
        "root": str(root), "params": {"seed": 7, "confidence_level": 0.95, "extra": ["a"]}}
    assert parse_params("agreement", [["root", "/elsewhere"]], root) == {
        "root": "/elsewhere", "params": {"seed": 1, "confidence_level": 0.95}}


def test_a_stage_without_a_section_gets_its_root_only_unless_given_a_value(tmp_path):
    root = project(tmp_path, "clean:\n  duplicates: keep\n")
    assert parse_params("table1", [], root) == {"root": str(root)}
    assert parse_params(None, [], root) == {"root": str(root)}
    assert parse_params("table1", [["seed", "1"]], root) == {"root": str(root),
                                                              "params": {"seed": 1}}
    project(tmp_path, "findings:\nkeywords: 5\n")  # empty; no mapping: the notebook says so
    assert parse_params("findings", [], root)["params"] == {}
    assert parse_params("keywords", [], root)["params"] == 5


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_takes_what_nbrun_injects_for_its_stage(path):
    stage = nbrun.stage_name(path)
    nb = load_notebook(path)
    assert parameter_names(nb) in (["root"], ["root", "params"])
    assert check_parameters(nb, parse_params(stage, []), path) is None


def test_a_value_the_parameters_cell_does_not_name_stops_the_run(tmp_path):
    path = tmp_path / "01_toy.py"
    path.write_text('# %% tags=["parameters"]\nroot = "."  # the root\nparams = {}\n\n'
                    "# %%\nimport os\n", encoding="utf-8")
    nb = load_notebook(path)
    assert parameter_names(nb) == ["root", "params"]
    assert check_parameters(nb, {"root": ".", "params": {"seed": 1}}, path) is None
    assert check_parameters(nb, {"root": ".", "seed": 1}, path) == (
        "01_toy: its parameters cell names root, params, not seed (a setting of the stage "
        "is a key of params)")
    path.write_text('# %% tags=["parameters"]\nroot = "."\n\n# %%\nimport os\n',
                    encoding="utf-8")
    assert check_parameters(load_notebook(path), {"root": ".", "params": {}}, path) == (
        "01_toy: its parameters cell names root, not params (the stage has no settings)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_has_an_import_cell_of_imports_only(path):
    """The split is exact only if the import cell holds imports and nothing else, and the
    cell after it starts the work."""
    nb = load_notebook(path)
    index = import_cell(nb)
    assert index is not None, f"{path.name}: no code cell after the parameters cell"
    body = ast.parse(nb.cells[index].source).body
    assert body and all(isinstance(s, ast.Import | ast.ImportFrom) for s in body), (
        f"{path.name}: the first code cell after the parameters must hold only imports")
    later = [c for c in nb.cells[index + 1:] if c.cell_type == "code"]
    assert later and not any(isinstance(s, ast.Import | ast.ImportFrom)
                             for c in later for s in ast.parse(c.source).body), (
        f"{path.name}: imports belong in the import cell")


def test_freeze_at_exit_leaves_no_name_and_registers_the_freeze():
    namespace: dict = {}
    with mock.patch("atexit.register") as register:
        exec(FREEZE_AT_EXIT, namespace)
    assert set(namespace) == {"__builtins__"}
    register.assert_called_once_with(gc.freeze)
    assert any(arg.startswith("--IPKernelApp.exec_lines=") and FREEZE_AT_EXIT in arg
               for arg in KERNEL_ARGS)


class FakeClient:
    """A kernel client whose kernel answers each kernel_info request on shell, and on
    IOPub with busy/idle unless the request is one of ``lost`` (IOPub not yet connected)."""

    def __init__(self, lost: int = 0, alive: bool = True, answer: bool = True):
        self.lost, self.alive, self.answer = lost, alive, answer
        self.shell: list[dict] = []
        self.iopub: list[dict] = []
        self.sent = 0
        self.handled = None

    def kernel_info(self) -> str:
        self.sent += 1
        msg_id = f"req-{self.sent}"
        if self.answer:
            self.shell += [{"parent_header": {"msg_id": "stray"}, "msg_type": "x"},
                           {"parent_header": {"msg_id": msg_id},
                            "msg_type": "kernel_info_reply", "content": {}}]
            if self.sent > self.lost:
                self.iopub += [{"parent_header": {"msg_id": msg_id}, "msg_type": "status",
                                "content": {"execution_state": s}} for s in ("busy", "idle")]
        return msg_id

    def _get(self, queue, timeout):
        if not queue:
            raise Empty
        return queue.pop(0)

    def get_shell_msg(self, timeout=None):
        return self._get(self.shell, timeout)

    def get_iopub_msg(self, timeout=None):
        return self._get(self.iopub, timeout)

    def is_alive(self) -> bool:
        return self.alive

    def _handle_kernel_info_reply(self, msg):
        self.handled = msg


def test_ready_at_the_first_idle_status_without_waiting_for_quiet():
    kc = FakeClient()
    wait_until_ready(kc, timeout=5)
    assert kc.sent == 1 and kc.handled["msg_type"] == "kernel_info_reply"


def test_ready_asks_again_when_iopub_missed_the_status():
    kc = FakeClient(lost=2)
    wait_until_ready(kc, timeout=5, quiet=0.01)
    assert kc.sent == 3 and kc.handled["parent_header"]["msg_id"] == "req-3"


def test_a_dead_or_silent_kernel_is_an_error(monkeypatch):
    with pytest.raises(RuntimeError, match="died"):
        wait_until_ready(FakeClient(alive=False, answer=False), timeout=5)
    clock = itertools.count(step=10)
    monkeypatch.setattr(nbrun.time, "monotonic", lambda: next(clock))
    with pytest.raises(RuntimeError, match="didn't respond in 5 seconds"):
        wait_until_ready(FakeClient(answer=False), timeout=5)


def test_the_kernel_manager_uses_the_fast_readiness_wait(tmp_path):
    km = nbrun.local_kernel_manager(tmp_path)
    assert km.transport == "ipc" and km.shutdown_wait_time == nbrun.SHUTDOWN_WAIT_S
    km.write_connection_file()  # beside the sockets, not a loose file in the temp folder
    assert km.connection_file == str(tmp_path / nbrun.CONNECTION_FILE)
    assert json.loads((tmp_path / nbrun.CONNECTION_FILE).read_text())["transport"] == "ipc"
    kc = km.client()
    with mock.patch.object(nbrun, "wait_until_ready") as wait:
        kc.wait_for_ready(timeout=3)
    wait.assert_called_once_with(kc, 3)


def test_kernel_env_sets_one_blas_thread_unless_the_caller_chose():
    assert nbrun.kernel_env({"PATH": "/bin"}) == {"PATH": "/bin", "OPENBLAS_NUM_THREADS": "1"}
    assert nbrun.kernel_env({"OMP_NUM_THREADS": "4"}) == {"OMP_NUM_THREADS": "4"}
    assert nbrun.kernel_env({"OPENBLAS_NUM_THREADS": "2"}) == {"OPENBLAS_NUM_THREADS": "2"}
    with mock.patch.dict(nbrun.os.environ, {"OPENBLAS_NUM_THREADS": "3"}):
        assert nbrun.kernel_env()["OPENBLAS_NUM_THREADS"] == "3"


def test_strip_volatile_drops_the_python_version_and_keeps_the_language():
    nb = nbformat.from_dict(executed())
    nb.metadata["language_info"] = {"name": "python", "version": "3.13.0",
                                    "file_extension": ".py"}
    strip_volatile(nb, "notebooks/x.py", "report/notebooks/x.ipynb")
    assert nb.metadata["language_info"] == {"name": "python", "file_extension": ".py"}


def test_the_build_is_timed_end_to_end_by_phase(tmp_path):
    runlog.record("setup", 300.0, tmp_path, phase="setup")
    runlog.record("ingest", 2.0, tmp_path, phase="ingest")
    runlog.record("clean", 6.5, tmp_path)
    runlog.record("table1", 3.5, tmp_path)
    runs = runlog.read_all(tmp_path)
    assert runlog.phase_seconds(runs) == {"setup": 300.0, "ingest": 2.0, "stages": 10.0}
    assert runlog.phase_seconds([{"stage": "old", "seconds": 1}]) == {"stages": 1.0}
    with pytest.raises(ValueError, match="unknown phase"):
        runlog.record("x", 1, tmp_path, phase="lunch")


def test_a_step_is_recorded_from_the_command_line(tmp_path, capsys):
    assert runlog.main(["setup", "setup", str(time.time() - 3600)], tmp_path) == 0
    data = json.loads((tmp_path / "setup.json").read_text())
    assert data["phase"] == "setup" and data["seconds"] >= 3600  # since the start given
    assert runlog.main(["x", "lunch", "0"], tmp_path) == 2
    assert "unknown phase" in capsys.readouterr().err
    assert runlog.main([], tmp_path) == 2 and not (tmp_path / "x.json").exists()


def test_papermill_imported_while_skipping_hdfs_leaves_pyarrow_out_and_parquet_readable(
        tmp_path):
    """papermill is imported without pyarrow; afterwards the process reads Parquet (a test
    that ran a notebook in its own process could not: pandas found no engine)."""
    code = ("import sys; from analysis.tools.nbrun import hdfs_support_skipped\n"
            "with hdfs_support_skipped():\n    import papermill, papermill.iorw as io\n"
            "assert 'pyarrow' not in sys.modules, 'pyarrow imported'\n"
            "assert io.HadoopFileSystem.__name__ != 'HadoopFileSystem'\n"
            "import pandas as pd; frame = pd.DataFrame({'a': [1]})\n"
            f"frame.to_parquet({str(tmp_path / 'a.parquet')!r})\n"
            f"assert pd.read_parquet({str(tmp_path / 'a.parquet')!r}).equals(frame)\n"
            "print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.stdout == "ok\n", proc.stderr


def test_skipping_hdfs_keeps_an_already_imported_pyarrow_fs():
    code = ("import sys, pyarrow.fs as fs; from analysis.tools.nbrun import hdfs_support_skipped\n"
            "with hdfs_support_skipped():\n    assert sys.modules['pyarrow.fs'] is fs\n"
            "assert sys.modules['pyarrow.fs'] is fs; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.stdout == "ok\n", proc.stderr


def git_project(root):
    """A git repository holding a committed metrics file of the interviews stage."""
    metrics = root / "metrics" / "interviews.json"
    metrics.parent.mkdir(parents=True)
    metrics.write_text('{"participants": 19}\n')
    (root / "params.yaml").write_text("interviews: {}\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "metrics"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "metrics"], check=True)
    return metrics


@pytest.mark.parametrize("outcome", [1, RuntimeError("the kernel died")])
def test_a_failed_stage_puts_its_metrics_back_as_git_has_them(tmp_path, monkeypatch, outcome):
    metrics = git_project(tmp_path)
    metrics.unlink()  # as DVC does before running the stage

    def failing(*args):
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    monkeypatch.setattr(nbrun, "run", failing)
    if isinstance(outcome, Exception):
        with pytest.raises(RuntimeError):
            nbrun.main(["interviews", "--root", str(tmp_path)])
    else:
        assert nbrun.main(["interviews", "--root", str(tmp_path)]) == 1
    assert metrics.read_text() == '{"participants": 19}\n'


def test_a_stage_that_succeeds_keeps_the_metrics_it_wrote(tmp_path, monkeypatch):
    metrics = git_project(tmp_path)

    def succeeding(*args):
        metrics.write_text('{"participants": 20}\n')
        return 0

    monkeypatch.setattr(nbrun, "run", succeeding)
    assert nbrun.main(["interviews", "--root", str(tmp_path)]) == 0
    assert metrics.read_text() == '{"participants": 20}\n'


def test_restoring_metrics_outside_git_does_nothing(tmp_path):
    nbrun.restore_metrics(tmp_path / "metrics" / "interviews.json", tmp_path)
    assert not (tmp_path / "metrics").exists()
