"""Run a stage's notebook with papermill, as one DVC stage.

    python -m analysis.tools.nbrun agreement [-p seed 7] [--root PATH]

The stage's percent-format notebook (``notebooks/NN_<stage>.py``, see
:mod:`analysis.core.paths`) is converted in memory (kernel ``python3``); the project root
(``root``), the stage's section of params.yaml and ``-p`` values are injected into its
``parameters`` cell (every path the notebook uses derives from ``root``), and it runs with
the project root as working directory. The executed notebook is written to a temporary
file and moved into place only on success, with papermill's timing metadata removed, so a failed or
interrupted run leaves no half-written notebook; absolute paths of the machine in its
outputs are replaced by placeholders. A user error raised inside the notebook
(:class:`~analysis.core.errors.InputError`) ends the run with its one-line message.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import shutil
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import yaml

from analysis.core import runlog
from analysis.core.config import load_params
from analysis.core.paths import ROOT, STAGES, Paths

VOLATILE_NB_KEYS = ("start_time", "end_time", "duration", "exception")
VOLATILE_CELL_KEYS = ("execution",)


def load_notebook(path: Path):
    """Read a percent-format notebook, set its kernel, and check its parameters cell."""
    import jupytext

    nb = jupytext.read(path)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise SystemExit(f"{path}: needs exactly one cell tagged 'parameters' "
                         f"(found {len(tagged)})")
    return nb


def strip_volatile(nb, notebook: str, output: str) -> None:
    """Make an executed notebook depend only on its content.

    Drops run times and durations, replaces papermill's record of the input (it stores
    the whole in-memory notebook) and of the temporary output path by the relative paths,
    and numbers the cells instead of nbformat's random cell ids.
    """
    pm = nb.metadata.get("papermill", {})
    for key in VOLATILE_NB_KEYS:
        pm.pop(key, None)
    pm["input_path"] = notebook
    pm["output_path"] = output
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
    for cell in nb.cells:
        meta = cell.get("metadata", {})
        for key in VOLATILE_CELL_KEYS:
            meta.pop(key, None)
        cpm = meta.get("papermill", {})
        for key in VOLATILE_NB_KEYS:
            cpm.pop(key, None)


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
    def clean(value):
        if isinstance(value, list):
            return [scrub_paths(v, paths) if isinstance(v, str) else v for v in value]
        return scrub_paths(value, paths) if isinstance(value, str) else value

    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if "text" in out:
                out["text"] = clean(out["text"])
            if "traceback" in out:
                out["traceback"] = clean(out["traceback"])
            if "evalue" in out:
                out["evalue"] = clean(out["evalue"])
            for mime in ("text/plain", "text/html", "text/markdown"):
                if mime in out.get("data", {}):
                    out["data"][mime] = clean(out["data"][mime])


def parse_params(section: str | None, pairs: list[list[str]], root: Path = ROOT) -> dict:
    """Parameters: the project root, the params.yaml section (if any), then ``-p name
    value`` pairs (YAML)."""
    params: dict = {"root": str(root)}  # run() turns it into the kernel's working folder
    if section:
        params.update(load_params(Paths(root).params).get(section) or {})
    for name, value in pairs:
        params[name] = yaml.safe_load(value)
    return params


def local_kernel_manager(folder: Path):
    """A kernel manager whose kernel talks over Unix sockets in ``folder`` (IPC) instead of
    TCP: the kernel and this process share the machine, nothing listens on a network
    port, and the kernel has no reason to warn that its TCP traffic is unencrypted."""
    from jupyter_client.manager import KernelManager

    return KernelManager(kernel_name="python3", transport="ipc", ip=str(folder / "ipc"))


def run(notebook: Path, output: Path, parameters: dict) -> int:
    """Execute ``notebook`` into ``output``; return a process exit code.

    The kernel runs in the project root given by the ``root`` parameter (this checkout by
    default), and the notebook receives ``root = "."``: the executed notebook names no
    folder of the machine, so it is the same on every machine.
    """
    root = Path(parameters.get("root", ROOT)).resolve()
    parameters = {**parameters, "root": "."}
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    nb = load_notebook(notebook)
    output.parent.mkdir(parents=True, exist_ok=True)
    for stale in output.parent.glob(f".{output.stem}.*.ipynb"):  # from a killed run
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{output.stem}.", suffix=".ipynb", dir=output.parent)
    os.close(fd)
    logging.getLogger("papermill").setLevel(logging.WARNING)
    started = time.perf_counter()
    sockets = tempfile.mkdtemp(prefix="kernel-")
    km = local_kernel_manager(Path(sockets))
    try:
        executed = papermill.execute_notebook(
            nb, tmp, parameters=parameters, kernel_name="python3", cwd=str(root),
            progress_bar=sys.stderr.isatty(), log_output=False,
            km=km,
        )
    except PapermillExecutionError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.ename == "InputError":
            print(f"{notebook.stem}: {exc.evalue}", file=sys.stderr)
        else:
            print(f"{notebook.stem}: failed in cell {exc.exec_count}: {exc.ename}: "
                  f"{exc.evalue}\n{''.join(exc.traceback[-3:])}", file=sys.stderr)
        return 1
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        if km.has_kernel:  # a kernel manager passed in is not shut down by papermill
            km.shutdown_kernel(now=False)
        km.cleanup_resources()
        shutil.rmtree(sockets, ignore_errors=True)
    strip_volatile(executed, _relative(notebook), _relative(output))
    scrub_outputs(executed, machine_paths())
    nbformat.write(executed, tmp)
    os.replace(tmp, output)
    if output.resolve().is_relative_to(ROOT):  # the project's own run, not a test's copy
        runlog.record(stage_name(notebook), time.perf_counter() - started)
    return 0


def stage_name(notebook: Path) -> str:
    """The stage a notebook runs: ``notebooks/04_agreement.py`` -> ``agreement``."""
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
                        metavar=("NAME", "VALUE"), help="a parameter (value read as YAML)")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="project root (default: this checkout)")
    args = parser.parse_args(argv)
    stage = Paths(args.root.resolve()).stage(args.stage)
    return run(stage.notebook_source, stage.notebook,
               parse_params(args.stage, args.p, args.root.resolve()))


if __name__ == "__main__":
    sys.exit(main())
