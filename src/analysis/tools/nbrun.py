"""Run a stage's notebook with papermill, as one DVC stage.

    python -m analysis.tools.nbrun STAGE [-p NAME VALUE] [--root PATH]

The stage's percent-format notebook (``notebooks/NN_<stage>.py``, see
:mod:`analysis.core.paths`) is converted in memory (kernel ``python3``) and papermill
injects two values into its ``parameters`` cell (:func:`parse_params`): the project root,
``root`` (every path the notebook uses derives from it), and, for a stage with settings,
``params``, the stage's whole section of params.yaml with the ``-p`` values in place of its
own (the notebook builds the stage's typed settings from it, see
:mod:`analysis.core.params`); a value the cell does not name stops the run
(:func:`check_parameters`). It runs with the project root as working directory. The
executed notebook is written once the run has succeeded, with papermill's timing metadata
removed, to a temporary file outside the folders DVC tracks
(:func:`~analysis.core.artifacts.atomic_path`) and moved into place, so a failed or
interrupted run leaves no half-written notebook, and nothing in ``report/notebooks/``
(which DVC would restore around, and the website would read). Absolute paths of the
machine in its outputs are replaced by placeholders. A user error raised inside the
notebook (:class:`~analysis.core.errors.InputError`), or a notebook that cannot be written,
ends the run with its one-line message, and the stage's metrics file is put back as git
has it (:func:`restore_metrics`: DVC removed it before the run, and has no copy of it).

The project's own runs leave a run record (:mod:`analysis.core.runlog`) with the split
of their time, read from papermill's time stamps before they are removed
(:func:`stage_timings`): kernel start, imports (every notebook's first code cell after
its parameters holds only its imports), work, and the rest. What is not work is kept
small: the kernel boots while this process imports papermill and reads the notebook; it
counts as ready as soon as it answers (:func:`wait_until_ready`), its BLAS does not spin
threads the small matrices do not need (:func:`kernel_env`), and it exits without the
garbage collector's final passes (:data:`FREEZE_AT_EXIT`).
"""

from __future__ import annotations

import argparse
import ast
import gc
import glob
import logging
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from analysis.core import runlog
from analysis.core.artifacts import atomic_path, disk_error, remove_stale
from analysis.core.config import load_params
from analysis.core.errors import InputError
from analysis.core.paths import ROOT, STAGES, Paths
from analysis.core.safeyaml import safe_load

VOLATILE_NB_KEYS = ("start_time", "end_time", "duration", "exception")


def load_notebook(path: Path):
    """Read a percent-format notebook, set its kernel, and check that it has one
    ``parameters`` cell."""
    import jupytext

    nb = jupytext.read(path)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise SystemExit(f"{path}: needs exactly one cell tagged 'parameters' "
                         f"(found {len(tagged)})")
    return nb


def parameter_names(nb) -> list[str]:
    """The names the notebook's ``parameters`` cell assigns, in order (``root``, and
    ``params`` for a stage with settings)."""
    cell = next(c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", []))
    return [target.id for node in ast.parse(cell.source).body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)]


def check_parameters(nb, parameters: dict, notebook: Path) -> str | None:
    """Why the notebook cannot take ``parameters``, or None: a name its ``parameters``
    cell does not assign (papermill would inject it anyway, and nothing would read it)."""
    names = parameter_names(nb)
    unknown = [name for name in parameters if name not in names]
    if not unknown:
        return None
    hint = ("a setting of the stage is a key of params" if "params" in names
            else "the stage has no settings")
    return (f"{notebook.stem}: its parameters cell names {', '.join(names)}, not "
            f"{', '.join(unknown)} ({hint})")


def strip_volatile(nb, notebook: str, output: str) -> None:
    """Make an executed notebook depend only on its content.

    Drops run times and durations, replaces papermill's record of the input (it stores
    the whole in-memory notebook) and of the temporary output path by the relative paths,
    numbers the cells instead of nbformat's random cell ids, and drops the kernel's Python
    version (3.11.7 or 3.13.0: the same outputs on every supported Python; the run record
    keeps the version).
    """
    nb.metadata.get("language_info", {}).pop("version", None)
    pm = nb.metadata.get("papermill", {})
    for key in VOLATILE_NB_KEYS:
        pm.pop(key, None)
    pm["input_path"] = notebook
    pm["output_path"] = output
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
        meta = cell.get("metadata", {})
        meta.pop("execution", None)
        cpm = meta.get("papermill", {})
        for key in VOLATILE_NB_KEYS:
            cpm.pop(key, None)


def _when(value) -> datetime | None:
    """A papermill time stamp (ISO 8601, UTC) as a datetime, or None."""
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _cell_times(cell) -> tuple[datetime | None, datetime | None]:
    pm = cell.get("metadata", {}).get("papermill", {})
    return _when(pm.get("start_time")), _when(pm.get("end_time"))


def import_cell(nb) -> int | None:
    """Index of the notebook's import cell: the first code cell after the ``parameters``
    cell (papermill's ``injected-parameters`` cell skipped), or None."""
    after = False
    for i, cell in enumerate(nb.get("cells", [])):
        tags = cell.get("metadata", {}).get("tags", [])
        if "parameters" in tags:
            after = True
        elif after and cell.get("cell_type") == "code" and "injected-parameters" not in tags:
            return i
    return None


def stage_timings(nb, launched: datetime | None = None) -> dict[str, float]:
    """The split of an executed notebook's run, in seconds, from papermill's time stamps
    (read before :func:`strip_volatile` drops them):

    - ``kernel_start``: from launching the kernel (``launched``, else papermill's
      notebook start, which precedes the launch) to the first cell starting, i.e. the
      kernel being ready;
    - ``imports``: the import cell (:func:`import_cell`), start to end;
    - ``work``: every other cell, from the first cell's start to the last cell's end.

    Empty when the notebook has no cell times (not run by papermill, or failed early).
    """
    times = [t for t in map(_cell_times, nb.get("cells", [])) if t[0] and t[1]]
    if not times:
        return {}
    first, last = times[0][0], max(end for _, end in times)
    begun = launched or _when(nb.get("metadata", {}).get("papermill", {}).get("start_time"))
    imports = 0.0
    index = import_cell(nb)
    if index is not None:
        start, end = _cell_times(nb["cells"][index])
        if start and end:
            imports = (end - start).total_seconds()
    split = {"imports": imports, "work": (last - first).total_seconds() - imports}
    if begun:
        split = {"kernel_start": (first - begun).total_seconds(), **split}
    return split


KERNEL_CELL_RE = re.compile(r"(?:/[^\s\"':]*)?/ipykernel_\d+/\d+\.py")


def machine_paths(root: Path = ROOT) -> list[tuple[str, str]]:
    """Absolute paths of this machine that outputs may quote, with what to show instead,
    longest first: the project root, the Python library folders, the temporary folder
    and the home folder."""
    pairs = {str(root): "."}
    for name, label in (("purelib", "<site-packages>"), ("platlib", "<site-packages>"),
                        ("stdlib", "<python-lib>"), ("platstdlib", "<python-lib>")):
        path = sysconfig.get_paths().get(name)
        if path:
            pairs.setdefault(path, label)
    pairs.setdefault(sys.prefix, "<python>")
    pairs.setdefault(tempfile.gettempdir(), "<tmp>")
    home = os.path.expanduser("~")
    if home not in ("/", "~"):
        pairs.setdefault(home, "~")
    return sorted(pairs.items(), key=lambda kv: -len(kv[0]))


def scrub_paths(text: str, paths: list[tuple[str, str]]) -> str:
    """``text`` without this machine's absolute paths (see :func:`machine_paths`): an
    executed notebook reads the same on every machine, and its pages show no local
    folders. A kernel's temporary cell file (``/tmp/ipykernel_123/456.py``) becomes
    ``<cell>``."""
    text = KERNEL_CELL_RE.sub("<cell>", text)
    for path, label in paths:
        text = text.replace(path, label)
    return text


def scrub_outputs(nb, paths: list[tuple[str, str]]) -> None:
    """Apply :func:`scrub_paths` to every text output of an executed notebook."""
    def scrubbed(value):
        if isinstance(value, list):
            return [scrub_paths(v, paths) if isinstance(v, str) else v for v in value]
        return scrub_paths(value, paths) if isinstance(value, str) else value

    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if "text" in out:
                out["text"] = scrubbed(out["text"])
            if "traceback" in out:
                out["traceback"] = scrubbed(out["traceback"])
            if "evalue" in out:
                out["evalue"] = scrubbed(out["evalue"])
            for mime in ("text/plain", "text/html", "text/markdown"):
                if mime in out.get("data", {}):
                    out["data"][mime] = scrubbed(out["data"][mime])


def parse_params(section: str | None, pairs: list[list[str]], root: Path = ROOT) -> dict:
    """The values papermill injects: ``root``, the project root, and ``params``, the
    section ``section`` of its params.yaml with the ``-p name value`` pairs (YAML) in
    place of its values; no ``params`` for a stage that has no section and no pairs. A
    pair named ``root`` sets the root."""
    params: dict = {"root": str(root)}  # run() turns it into the kernel's working folder
    given = {name: safe_load(value) for name, value in pairs}
    if "root" in given:
        params["root"] = given.pop("root")
    values = load_params(Paths(root).params) if section else {}
    if section in values or given:
        own = values.get(section) or {}
        # a section that is no mapping is passed as it is: the notebook refuses it in one line
        params["params"] = {**own, **given} if isinstance(own, dict) else own
    return params


# At exit, a Python process that has imported pandas, scipy and matplotlib spends 0.2 to
# 0.4 s in the garbage collector's final passes over objects that are about to be freed
# anyway; frozen (gc.freeze), they are skipped. Run at the kernel's start, with no name left
# in the notebook's namespace.
FREEZE_AT_EXIT = "import atexit as _a, gc as _g; _a.register(_g.freeze); del _a, _g"
# The kernel's options: no history file (nbclient's default for the kernels it starts;
# nbrun starts its own), and the freeze at exit.
KERNEL_ARGS = ("--HistoryManager.hist_file=:memory:",
               f"--IPKernelApp.exec_lines={[FREEZE_AT_EXIT]!r}")
SHUTDOWN_WAIT_S = 1.0
# Threads of the BLAS (OpenBLAS) under numpy and scipy in the kernel, unless the caller set
# them: the stages' matrices are small, and on a busy machine OpenBLAS's spinning threads
# doubled a stage's CPU time (same outputs, byte for byte).
BLAS_THREADS = "1"
BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


def _reply_to(get, msg_id: str, seconds: float, idle: bool = False):
    """The first message from ``get`` (a client's ``get_shell_msg`` or ``get_iopub_msg``)
    answering the request ``msg_id`` (with ``idle``: its IOPub status ``idle``) within
    ``seconds``, or None; other messages are dropped."""
    from queue import Empty

    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            msg = get(timeout=left)
        except Empty:
            return None
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if not idle or (msg.get("msg_type") == "status"
                        and msg.get("content", {}).get("execution_state") == "idle"):
            return msg
    return None


def wait_until_ready(kc, timeout: float | None = None, quiet: float = 0.2) -> None:
    """Block until the kernel behind the client ``kc`` answers a ``kernel_info`` request
    on its shell channel and the request's IOPub status ``idle`` reaches ``kc`` (so the
    IOPub subscription is live and no cell output can be lost).

    jupyter_client's ``wait_for_ready`` does the same, then waits until IOPub has been
    quiet for 0.2 s, on every start: a fixed cost this skips (a stray IOPub message is
    harmless, nbclient reads only those answering its own requests). The request is sent
    again while no reply comes within a second, or no status within ``quiet`` seconds
    after it (the subscription was not connected yet).
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        msg_id = kc.kernel_info()
        reply = _reply_to(kc.get_shell_msg, msg_id, 1.0)
        if reply is not None and _reply_to(kc.get_iopub_msg, msg_id, quiet, idle=True):
            handle = getattr(kc, "_handle_kernel_info_reply", None)
            if handle:  # as jupyter_client's wait does: adapts to the protocol version
                handle(reply)
            return
        if not kc.is_alive():
            raise RuntimeError("Kernel died before replying to kernel_info")
        if deadline is not None and time.monotonic() > deadline:
            raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")


def kernel_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The kernel's environment: this process's (or ``environ``), with one BLAS thread
    (:data:`BLAS_THREADS`) unless it names a number of threads itself."""
    env = dict(os.environ if environ is None else environ)
    if not any(env.get(name) for name in BLAS_THREAD_VARS):
        env[BLAS_THREAD_VARS[0]] = BLAS_THREADS
    return env


CONNECTION_FILE = "kernel.json"


def local_kernel_manager(folder: Path):
    """A kernel manager whose kernel talks over Unix sockets in ``folder`` (IPC) instead of
    TCP: the kernel and this process share the machine, nothing listens on a network
    port, and the kernel has no reason to warn that its TCP traffic is unencrypted. Its
    clients wait for the kernel with :func:`wait_until_ready`. The connection file (the
    sockets' names and the key that signs the messages) is written in ``folder`` too, not
    as a loose file in the temporary folder: a run killed before it can clean up leaves
    that one private folder."""
    from jupyter_client.blocking import BlockingKernelClient
    from jupyter_client.manager import KernelManager

    class ReadyClient(BlockingKernelClient):
        def wait_for_ready(self, timeout: float | None = None) -> None:
            wait_until_ready(self, timeout)

    # shutdown_wait_time: after a shutdown request, a kernel that has not exited within
    # half of it gets SIGTERM, then SIGKILL (jupyter_client's default, 5 s, lets ipykernel's
    # occasional hang while joining its control thread at exit cost 2.5 s)
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(folder / "ipc"),
                       connection_file=str(folder / CONNECTION_FILE),
                       client_factory=ReadyClient, shutdown_wait_time=SHUTDOWN_WAIT_S)
    return km


@contextmanager
def hdfs_support_skipped() -> Iterator[None]:
    """Keep papermill from importing pyarrow when it is imported inside this block.

    papermill imports ``pyarrow.fs`` on import, for notebooks on HDFS, and falls back to a
    stub when it is missing: a quarter of a second on every stage, while the kernel boots
    and waits for this process. nbrun reads and writes local files only. A ``None`` in
    ``sys.modules`` makes that import fail as if pyarrow had no ``fs`` (Python's
    documented way to block one import); it is set only when nothing has imported
    ``pyarrow.fs`` yet, and taken away on leaving, so that the process (a test that runs a
    notebook, then reads its Parquet output) can import pyarrow later. The kernel, another
    process, is not affected.
    """
    blocked = sys.modules.setdefault("pyarrow.fs", None) is None
    try:
        yield
    finally:
        if blocked and sys.modules.get("pyarrow.fs", 0) is None:
            del sys.modules["pyarrow.fs"]


def run(notebook: Path, output: Path, parameters: dict) -> int:
    """Execute ``notebook`` into ``output``; return a process exit code.

    The kernel runs in the project root given by the ``root`` parameter (this checkout by
    default), and the notebook receives ``root = "."``: the executed notebook names no
    folder of the machine, so it is the same on every machine. The run record's ``other``
    is what :func:`stage_timings` does not cover: this process before the kernel's launch
    and after the last cell."""
    started = time.perf_counter()
    root = Path(parameters.get("root", ROOT)).resolve()
    parameters = {**parameters, "root": "."}
    try:
        output.parent.mkdir(parents=True, exist_ok=True)  # makes root too, the kernel's cwd
    except OSError as exc:
        print(f"{notebook.stem}: {disk_error(exc, output)}", file=sys.stderr)
        return 1
    sockets = tempfile.mkdtemp(prefix="kernel-")
    km = local_kernel_manager(Path(sockets))
    stopping = False
    try:
        launched = datetime.now(UTC)
        km.start_kernel(cwd=str(root), env=kernel_env(), extra_arguments=list(KERNEL_ARGS))
        with hdfs_support_skipped():
            import nbformat
            import papermill
            from papermill.exceptions import PapermillExecutionError

        nb = load_notebook(notebook)
        refused = check_parameters(nb, parameters, notebook)
        if refused:
            print(refused, file=sys.stderr)
            return 1
        # what a run killed under an older version left beside the output
        remove_stale(output.parent, f".{glob.escape(output.stem)}.*.ipynb")
        logging.getLogger("papermill").setLevel(logging.WARNING)
        try:
            # no output path: papermill would rewrite the file at every cell's start and end
            executed = papermill.execute_notebook(
                nb, None, parameters=parameters, kernel_name="python3", cwd=str(root),
                progress_bar=sys.stderr.isatty(), log_output=False, km=km,
            )
        except PapermillExecutionError as exc:
            if exc.ename == "InputError":
                print(f"{notebook.stem}: {exc.evalue}", file=sys.stderr)
            else:
                print(f"{notebook.stem}: failed in cell {exc.exec_count}: {exc.ename}: "
                      f"{exc.evalue}\n{''.join(exc.traceback[-3:])}", file=sys.stderr)
            return 1
        km.request_shutdown()  # the kernel stops while the notebook is written
        stopping = True
        split = stage_timings(executed, launched)
        strip_volatile(executed, _relative(notebook), _relative(output))
        scrub_outputs(executed, machine_paths())
        try:
            with atomic_path(output) as tmp:
                nbformat.write(executed, tmp)
        except InputError as exc:
            print(f"{notebook.stem}: {exc}", file=sys.stderr)
            return 1
    finally:
        if stopping:
            # wait for it to exit (killed if it takes too long), checking every 10 ms
            km.finish_shutdown(pollinterval=0.01)
        elif km.has_kernel:  # a kernel manager passed in is not shut down by papermill
            km.shutdown_kernel(now=False)
        km.cleanup_resources()
        shutil.rmtree(sockets, ignore_errors=True)
    note_stage_run(stage_name(notebook), root)
    if output.resolve().is_relative_to(ROOT):  # the project's own run, not a test's copy
        seconds = time.perf_counter() - started
        runlog.record(stage_name(notebook), seconds, **split,
                      other=seconds - sum(split.values()))
    return 0


STAGE_LOG = "ANALYSIS_STAGE_LOG"


def note_stage_run(stage: str, root: Path) -> None:
    """Append ``<stage> TAB <project root>`` to the file the environment variable
    ``ANALYSIS_STAGE_LOG`` names, if it names one: the test suite counts the pipeline runs
    it makes this way (one short append, whole lines even from parallel stages)."""
    log = os.environ.get(STAGE_LOG)
    if not log:
        return
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, f"{stage}\t{root}\n".encode())
    finally:
        os.close(fd)


def restore_metrics(metrics: Path, root: Path) -> None:
    """Put a failed stage's metrics file back as git has it.

    DVC removes every output of a stage before running it, and puts back the cached ones
    with ``dvc checkout``; a metrics file is declared ``cache: false`` (it is kept in
    git), so nothing would bring it back and a failed stage would leave it deleted from
    the work tree. (``persist: true`` would keep DVC from removing it, but DVC never takes
    a stage with a persistent output from its run cache.) Nothing happens outside a git
    repository or for a file git does not track.
    """
    try:
        subprocess.run(["git", "checkout", "--", str(metrics.relative_to(root))], cwd=root,
                       capture_output=True, timeout=30, check=False)
    except (OSError, ValueError, subprocess.TimeoutExpired):  # no git; not under root
        pass


def stage_name(notebook: Path) -> str:
    """The stage a notebook runs: ``notebooks/NN_<stage>.py`` -> ``<stage>``."""
    return re.sub(r"^\d+_", "", notebook.stem)


def _relative(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.nbrun",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", choices=list(STAGES), help="the stage whose notebook to run")
    parser.add_argument("-p", nargs=2, action="append", default=[],
                        metavar=("NAME", "VALUE"),
                        help="a setting of the stage in place of its params.yaml value "
                             "(the value read as YAML); root: the project root")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="project root (default: this checkout)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    stage = Paths(root).stage(args.stage)
    code = 1
    try:
        code = run(stage.notebook_source, stage.notebook, parse_params(args.stage, args.p, root))
    finally:
        if code:
            restore_metrics(stage.metrics, root)
    return code


if __name__ == "__main__":
    code = main()
    gc.freeze()  # the process exits without the collector's final passes (FREEZE_AT_EXIT)
    sys.exit(code)
