"""Which stage declarations (``src/analysis/<stage>/schemas.yaml``) each stage of a run
opens, from Python's ``open`` audit events (:pep:`578`).

A ``sitecustomize`` module on the run's ``PYTHONPATH`` adds the hook to every Python
process of the run, the kernels that execute the notebooks included. Each opening of a
declaration is logged with the command line of the stage's process (a kernel's is its
parent's, the ``python -m analysis.tools.nbrun <stage>`` that started it), which
:func:`declarations_read` matches with the stages' commands in ``dvc.yaml``. The hook only
writes to the log: the run's outputs are the same with it or without it.
"""

from __future__ import annotations

import shlex
from collections import defaultdict
from pathlib import Path

import yaml

LOG_VARIABLE = "DECLARATIONS_READ"
SEPARATOR = "\x1f"  # between the words of a logged command line

HOOK = f'''
import os, sys
_log = os.environ.get({LOG_VARIABLE!r})
if _log:
    def _command(pid):
        with open(f"/proc/{{pid}}/cmdline", "rb") as f:
            return [w.decode(errors="replace") for w in f.read().split(b"\\0") if w]

    def _hook(event, args):
        if event == "open" and str(args[0]).endswith("/schemas.yaml"):
            words = _command(os.getpid())
            if any(w.endswith("ipykernel_launcher") for w in words):
                words = _command(os.getppid())
            with open(_log, "a", encoding="utf-8") as f:
                f.write({SEPARATOR!r}.join(words) + "\\t" + str(args[0]) + "\\n")

    sys.addaudithook(_hook)
'''


def audit_env(folder: Path, work: Path) -> dict[str, str]:
    """The environment variables that make a run of the copy ``work`` log the declarations
    its processes open to ``folder/declarations.log`` (the hook is written to
    ``folder/hook/``)."""
    hook = folder / "hook"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
    return {"PYTHONPATH": f"{work / 'src'}:{hook}",
            LOG_VARIABLE: str(folder / "declarations.log")}


def stage_commands(work: Path) -> dict[tuple[str, ...], str]:
    """The words after ``python`` of each stage's command in the copy's ``dvc.yaml`` ->
    the stage (``foreach`` stages, one per batch, are left out)."""
    stages = yaml.safe_load((work / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    return {tuple(shlex.split(stage["cmd"])[1:]): name
            for name, stage in stages.items() if "cmd" in stage}


def declarations_read(log: Path, work: Path) -> dict[str, set[str]]:
    """Stage -> the declarations its processes opened, relative to ``work``. A process
    that is no stage's (DVC itself, the driver) is left out."""
    commands = stage_commands(work)
    read: dict[str, set[str]] = defaultdict(set)
    for line in log.read_text(encoding="utf-8").splitlines():
        words, path = line.split("\t", 1)
        words = words.split(SEPARATOR)
        if "-m" not in words:
            continue
        stage = commands.get(tuple(words[words.index("-m"):]))
        if stage is not None:
            read[stage].add((work / path).resolve().relative_to(work.resolve()).as_posix())
    return dict(read)
