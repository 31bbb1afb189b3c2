"""What a killed DVC run leaves behind, recovered before DVC runs again.

DVC 3 records which command reads and which writes which paths in ``.dvc/tmp/rwlock``, a
JSON object ``{"read": {path: [{"pid": N, "cmd": "..."}]}, "write": {path: {"pid": N,
"cmd": "..."}}}`` (``dvc/rwlock.py``). It rewrites the file in place, emptied first and
then written, so a run killed in between leaves it empty or cut short, and every later
``dvc`` command stops with "Unable to read RWLock-file ... JSON structure is corrupted",
for good. An entry of a process that has ended DVC removes by itself; an unreadable file
it does not. :func:`recover` does, when it is safe: no process the file names runs, and
no DVC process runs in the project; the file is then removed (DVC reads a missing file
as no lock). While DVC runs, an unreadable file is left as it is and refused in one line.

DVC also copies and links files through temporary names beside their target
(``.<22 characters>.tmp``, ``dvc_objects.fs.utils.tmp_fname``); a kill leaves them there,
in an output's folder or in a folder a later stage depends on (``build/merged/``), and
the next ``dvc.lock`` would count them. ``.dvcignore`` hides such names from DVC, and
:func:`recover` removes them from the outputs' folders when no DVC process runs.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from analysis.core.errors import InputError
from analysis.core.paths import Paths
from analysis.core.safeyaml import safe_load

RWLOCK = Path(".dvc") / "tmp" / "rwlock"
PID_RE = re.compile(r'"pid"\s*:\s*(\d{1,10})')
# A temporary name of dvc_objects: "<prefix>.<token_urlsafe(16)>.tmp", prefix empty or a path
DVC_TEMP_RE = re.compile(r"\.[A-Za-z0-9_-]{22}\.tmp")


@dataclass(frozen=True)
class Process:
    """A running process: its number, command line and working folder (None when it
    cannot be read)."""

    pid: int
    cmdline: tuple[str, ...]
    cwd: str | None


def rwlock_problem(text: str) -> str | None:
    """Why the text of an rwlock file is not one DVC can read (empty, not JSON, not of
    its form), or None when it is."""
    if not text.strip():
        return "is empty"
    try:
        data = json.loads(text)
    except ValueError:
        return "is not JSON (cut short)"
    if not isinstance(data, dict) or set(data) - {"read", "write"}:
        return "is not of DVC's form"
    for mode, entries in data.items():
        if not isinstance(entries, dict):
            return "is not of DVC's form"
        for infos in entries.values():
            infos = infos if mode == "read" else [infos]
            if not isinstance(infos, list) or not all(
                    isinstance(i, dict) and isinstance(i.get("pid"), int)
                    and isinstance(i.get("cmd"), str) for i in infos):
                return "is not of DVC's form"
    return None


def listed_pids(text: str) -> set[int]:
    """The process numbers an rwlock file names, also when it is cut short."""
    return {int(n) for n in PID_RE.findall(text)}


def is_dvc_command(cmdline: Iterable[str]) -> bool:
    """Whether a command line runs DVC: ``dvc ...``, ``python -m dvc ...`` or a program
    whose path ends in ``/dvc``."""
    args = list(cmdline)
    if not args:
        return False
    if os.path.basename(args[0]) == "dvc":
        return True
    return any(a == "-m" and b == "dvc" for a, b in zip(args, args[1:], strict=False)) or (
        len(args) > 1 and os.path.basename(args[1]) == "dvc")


def runs_in(process: Process, root: Path) -> bool:
    """Whether ``process`` works in the project ``root`` or a folder of it; one whose
    folder cannot be read counts as one that does (it may)."""
    if process.cwd is None:
        return True
    cwd, top = Path(process.cwd), root.resolve()
    return cwd == top or top in cwd.parents


def dvc_processes(root: Path, processes: Iterable[Process]) -> list[Process]:
    """The processes of ``processes`` that run DVC in the project ``root``."""
    return [p for p in processes if is_dvc_command(p.cmdline) and runs_in(p, root)]


def running_processes() -> list[Process]:
    """Every process of this machine but this one (psutil, which DVC itself uses)."""
    import psutil

    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "cwd"]):
        info = proc.info
        if info["pid"] == os.getpid():
            continue
        found.append(Process(info["pid"], tuple(info.get("cmdline") or ()), info.get("cwd")))
    return found


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs (one of another user counts)."""
    import psutil

    return psutil.pid_exists(pid)


def shown(process: Process) -> str:
    """A process in a message: its number and the start of its command line."""
    cmd = " ".join(process.cmdline)
    return f"pid {process.pid}: {cmd[:80]}{'…' if len(cmd) > 80 else ''}"


def outputs(root: Path) -> list[Path]:
    """Every output ``dvc.lock`` lists (relative paths inside the project only)."""
    try:
        lock = safe_load(Paths(root).dvc_lock.read_text(encoding="utf-8")) or {}
    except (OSError, ValueError):
        return []
    stages = lock.get("stages") if isinstance(lock, dict) else None
    found = set()
    for stage in (stages or {}).values() if isinstance(stages, dict) else []:
        outs = stage.get("outs") if isinstance(stage, dict) else None
        for out in outs if isinstance(outs, list) else []:
            path = out.get("path") if isinstance(out, dict) else None
            if isinstance(path, str) and not os.path.isabs(path) and ".." not in path:
                found.add(root / path)
    return sorted(found)


def temp_names(folder: Path, deep: bool) -> list[Path]:
    """The files of ``folder`` (``deep``: at any depth, links not followed) named as
    DVC's temporary files (:data:`DVC_TEMP_RE`)."""
    if not folder.is_dir() or folder.is_symlink():
        return []
    walk = os.walk(folder) if deep else [(str(folder), [], os.listdir(folder))]
    return [Path(top) / n for top, _, names in walk for n in names
            if DVC_TEMP_RE.search(n) and (Path(top) / n).is_file()
            and not (Path(top) / n).is_symlink()]


def dvc_temp_files(root: Path) -> list[Path]:
    """DVC's temporary files where DVC writes: in every output folder ``dvc.lock`` lists,
    at any depth, and in the folder each output lies in."""
    found = set()
    for out in outputs(root):
        found.update(temp_names(out, deep=True))
        found.update(temp_names(out.parent, deep=False))
    return sorted(found)


def recover(root: Path, processes: Callable[[], list[Process]] = running_processes,
            alive: Callable[[int], bool] = pid_alive) -> list[str]:
    """Recover the project ``root`` from what a killed DVC run left (see the module
    docstring); the lines saying what was done (none when nothing was left). An unreadable
    rwlock while a process it names or a DVC process of the project runs is one
    :class:`InputError`."""
    said = []
    path = root / RWLOCK
    try:
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    except OSError:
        text = ""
    problem = rwlock_problem(text) if text is not None else None
    dvc = None
    if problem:
        owners = sorted(p for p in listed_pids(text) if p != os.getpid() and alive(p))
        dvc = dvc_processes(root, processes())
        if owners or dvc:
            who = f"a DVC process runs ({shown(dvc[0])})" if dvc else \
                f"a process it names still runs (pid {owners[0]})"
            raise InputError(f"DVC's lock file {problem}, and {who}",
                             file=str(RWLOCK), fix="wait for it to end (or end it), then "
                                                   "run again")
        path.unlink()
        said.append(f"{RWLOCK} {problem}, left by a killed DVC run (no DVC process runs): "
                    "removed it, DVC starts with no lock")
    temps = dvc_temp_files(root)
    if temps:
        dvc = dvc_processes(root, processes()) if dvc is None else dvc
        if not dvc:
            for temp in temps:
                temp.unlink(missing_ok=True)
            said.append(f"removed {len(temps)} temporary file(s) a killed DVC run left "
                        f"({', '.join(str(t.relative_to(root)) for t in temps[:3])}"
                        f"{', …' if len(temps) > 3 else ''})")
    return said
