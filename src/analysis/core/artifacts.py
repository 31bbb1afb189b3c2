"""Deterministic, atomic writers for every artifact the pipeline produces.

Same input, same bytes, on every machine: tables are sorted by the caller, JSON keys are
sorted, and every float is written at a fixed precision of :data:`SIGNIFICANT_DIGITS`
significant digits (:func:`fixed_float`). Full ``repr`` digits are not stable: the last
digits of a sum or a product differ between CPUs, BLAS builds and numpy versions, and
with them the bytes of a table and the hash DVC records in ``dvc.lock``. Twelve digits
are far more than any comparison the scorecard makes (the paper prints at most five).
Every file is written to a temporary name and moved into place only when complete, so an
interrupted run never leaves a half-written artifact that a later stage (or DVC) could
mistake for a valid one. Inside the project the temporary name is in ``build/tmp/``
(:func:`scratch_folder`), never in the folder of the artifact: that folder is a DVC output
or dependency, and a file left there by a killed run would change its hash, or be read
as an artifact, on every later run. Files and folders get the modes the umask gives (0644
and 0755 under 022), as any program's outputs do; a website is made readable by all
(:func:`publishable`).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import glob
import hashlib
import json
import math
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a writer's argument; the pipeline's launcher imports no pandas
    import pandas as pd

from analysis.core.csvtext import frame_csv_text
from analysis.core.errors import InputError
from analysis.core.locks import try_lock
from analysis.core.paths import Paths


def project_root_of(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` that holds a ``dvc.yaml`` (the project
    whose outputs may be written there), or None."""
    for candidate in (folder, *folder.parents):
        if Paths(candidate).dvc_yaml.is_file():
            return candidate
    return None


MOUNTINFO = Path("/proc/self/mountinfo")


def mount_point(path: Path, mountinfo: Path = MOUNTINFO) -> str | None:
    """The mount point ``path`` lies under (Linux's ``/proc/self/mountinfo``), or None where
    that cannot be read. Two folders under different mount points cannot exchange a file by
    renaming it, even on one file system (a bind mount: the same device number)."""
    try:
        lines = mountinfo.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    real = os.path.realpath(path)
    points = [re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4])
              for line in lines if len(line.split()) > 4]
    under = [p for p in points if real == p or real.startswith(p.rstrip("/") + "/")]
    return max(under, key=len, default=None)


def same_mount(a: Path, b: Path) -> bool:
    """True when the existing folders ``a`` and ``b`` can exchange files by renaming: the
    same file system, under the same mount point."""
    return a.stat().st_dev == b.stat().st_dev and mount_point(a) == mount_point(b)


def scratch_folder(folder: Path) -> Path:
    """The folder to build a file or folder in before it is moved into the existing
    ``folder``: inside a project ``build/tmp/`` followed by ``folder``'s path in the
    project (one folder per target folder, so leftovers are found by name) when a rename
    can move it from there (:func:`same_mount`); elsewhere, and for folders already under
    ``build/tmp/``, ``folder`` itself. The other folders of ``build/`` are no exception:
    ``build/merged/`` and ``build/study/`` are DVC's outputs and dependencies too."""
    folder = folder.absolute()
    root = project_root_of(folder)
    if root is None or folder.is_relative_to(Paths(root).scratch):
        return folder
    scratch = Paths(root).scratch / folder.relative_to(root)
    scratch.mkdir(parents=True, exist_ok=True)
    return scratch if same_mount(scratch, folder) else folder


def remove_stale(folder: Path, pattern: str) -> None:
    """Remove what an earlier, killed run left in ``folder`` under names matching the glob
    ``pattern`` (files or folders)."""
    for stale in folder.glob(pattern):
        remove_path(stale)

TEMPORARY_TRIES = 100


def make_temporary(parent: Path, prefix: str, suffix: str = "", folder: bool = False) -> Path:
    """A new, empty file (or folder) of a unique name in ``parent``, created with the modes
    the umask gives (0644 and 0755 under 022, 0600 and 0700 under 077).

    Why not :mod:`tempfile`: it makes files 0600 and folders 0700 whatever the umask, and
    a file moved into place keeps the mode it was made with: the other annotators of a
    shared machine could not open their sheets.
    """
    for _ in range(TEMPORARY_TRIES):
        path = Path(parent) / f"{prefix}{secrets.token_hex(4)}{suffix}"
        try:
            if folder:
                path.mkdir(mode=0o777)
            else:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                                 0o666))
        except FileExistsError:
            continue
        return path
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(parent))


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path (in the :func:`scratch_folder` of ``path``'s folder); move it
    onto ``path`` only on success. What a killed run left there is removed first; a full
    disk or a folder that cannot be written is one message (:func:`disk_error`)."""
    target = Path(path)
    stale = f".{glob.escape(target.name)}.*.tmp"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = scratch_folder(target.parent)
        remove_stale(target.parent, stale)
        remove_stale(scratch, stale)
        tmp_path = make_temporary(scratch, f".{target.name}.", ".tmp")
    except OSError as exc:
        raise disk_error(exc, target) from exc
    try:
        yield tmp_path
        move_file(tmp_path, target)
    except OSError as exc:
        tmp_path.unlink(missing_ok=True)
        raise disk_error(exc, target) from exc
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def move_file(src: Path, dest: Path) -> None:
    """Move the file ``src`` to ``dest`` atomically, across file systems too (through a
    ``.part`` copy next to ``dest``)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(src, dest)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    part = dest.with_name(dest.name + ".part")
    try:
        shutil.copyfile(src, part)
        os.replace(part, dest)
    finally:
        part.unlink(missing_ok=True)
    src.unlink(missing_ok=True)


def disk_error(exc: OSError, target: Path) -> Exception:
    """One clear message for a full disk or a target that cannot be written; else ``exc``.

    The message names ``target`` and, for a permission problem, the folder to fix: the
    folder of the one path the system refused (a folder that could not be made, a file
    that could not be created), else, for a rename, ``target``'s.
    """
    if exc.errno == errno.ENOSPC:
        return InputError("no space left on the device while writing", file=str(target),
                          fix="free disk space and run `dvc repro` again")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        one = exc.filename2 is None and isinstance(exc.filename, str | os.PathLike)
        folder = Path(exc.filename if one else target).parent
        return InputError(f"cannot write ({exc.strerror})", file=str(target),
                          fix=f"make the folder {folder} writable (its permissions, or a "
                          "read-only file system)")
    return exc


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write UTF-8 text with LF line endings, atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")
    return Path(path)


SIGNIFICANT_DIGITS = 12


def fixed_float(value: float) -> float:
    """``value`` rounded to :data:`SIGNIFICANT_DIGITS` significant digits (its ``repr`` is
    then short and the same on every machine)."""
    if not math.isfinite(value):
        return value
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}")


def csv_float(value: float) -> str:
    """How a float is written in a CSV: :func:`fixed_float`, in ``repr`` form (``3.0``,
    ``0.717453216589``)."""
    return repr(fixed_float(float(value)))


def _clean_for_json(value: Any) -> Any:
    """Make a value JSON-safe and deterministic (NaN -> None, numpy -> python, sets sorted)."""
    if isinstance(value, dict):
        return {str(k): _clean_for_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean_for_json(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(_clean_for_json(v) for v in value)
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if isinstance(value, float):
        return None if (math.isnan(value) or math.isinf(value)) else fixed_float(value)
    return value


def to_json_text(data: Any) -> str:
    """Serialise ``data`` as stable, human-readable JSON (sorted keys, 2-space indent)."""
    return json.dumps(_clean_for_json(data), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Write ``data`` as stable JSON, atomically."""
    return write_text(path, to_json_text(data))


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read a JSON file written by :func:`write_json`."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_csv(path: str | os.PathLike[str], frame: pd.DataFrame, **kwargs: Any) -> Path:
    """Write a DataFrame as UTF-8 CSV with LF endings and no index, floats at a fixed
    precision (:func:`csv_float`), atomically; a cell holding a line break of any kind is
    quoted, so that the file reads back as the rows written
    (:func:`~analysis.core.csvtext.frame_csv_text`)."""
    kwargs.setdefault("index", False)
    kwargs.setdefault("lineterminator", "\n")
    kwargs.setdefault("float_format", csv_float)
    return write_text(path, frame_csv_text(frame, **kwargs))


def write_parquet(path: str | os.PathLike[str], frame: pd.DataFrame) -> Path:
    """Write a DataFrame as Parquet (pyarrow, no index), atomically and byte-stably."""
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False, engine="pyarrow", compression="zstd")
    return Path(path)


def publishable(folder: Path) -> None:
    """Files a reader may read: 0644 (a temporary file is made private, 0600), folders
    0755, so that a copied site is readable by a web server."""
    folder.chmod(0o755)
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


# renameat2(2)'s flag that swaps two paths in one step (Linux's <linux/fs.h>), and the
# value that names the current folder in the place of a folder descriptor.
RENAME_EXCHANGE = 2
AT_FDCWD = -100
# What the system says when it, or the file system, cannot swap two paths: nothing changed.
CANNOT_EXCHANGE = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP}


def exchange_paths(a: Path, b: Path) -> bool:
    """Swap the existing paths ``a`` and ``b`` in one step, so that each always exists:
    Linux's ``renameat2(RENAME_EXCHANGE)`` (glibc 2.28 and later). False, with nothing
    changed, where the system or the file system cannot (:func:`publish_folder` then
    renames in two steps)."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):  # another C library, another system
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    if renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in CANNOT_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(a), None, str(b))


def publishing(step: str, path: Path) -> None:
    """Called before each step of :func:`publish_folder` (``exchange``, ``aside``,
    ``into place``, ``remove old``) with the path it moves or removes; does nothing: the
    hook the fault tests replace to kill a run exactly there."""


def remove_path(path: Path) -> None:
    """Remove the file, link or folder ``path`` (a folder with all it holds), if there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def publish_folder(new: Path, dest: Path) -> None:
    """Put the finished folder ``new`` in the place of ``dest`` (whose parent exists), so
    that ``dest`` holds the previous folder or the new one, whole, whatever moment the run
    is killed at; a failure leaves ``dest`` as it was and ``new`` removed.

    An existing ``dest`` is swapped with ``new`` in one step (:func:`exchange_paths`), then
    the previous folder, now under ``new``'s name, is removed. Where the file system cannot
    swap, the previous folder is renamed aside (``<working folder name>.previous``), ``new``
    renamed into place (the old one renamed back should that fail), then the old one
    removed; a run killed between the two renames leaves no ``dest``, and the next run
    that writes ``dest`` puts the previous folder back first (:func:`recover_folder`). A
    ``new`` on another mount is first copied next to ``dest`` (:func:`scratch_folder`).
    """
    prefix = f".{dest.name}-"
    try:
        if not same_mount(new.parent, dest.parent):
            near = make_temporary(scratch_folder(dest.parent), owned_prefix(prefix),
                                  folder=True)
            try:
                shutil.copytree(new, near, dirs_exist_ok=True)
            except BaseException:
                shutil.rmtree(near, ignore_errors=True)
                raise
            shutil.rmtree(new, ignore_errors=True)
            new = near
        if not (dest.exists() or dest.is_symlink()):
            publishing("into place", new)
            os.replace(new, dest)
            return
        publishing("exchange", new)
        if exchange_paths(new, dest):
            publishing("remove old", new)
            remove_path(new)
            return
        aside = scratch_folder(dest.parent) / (
            f"{owned_prefix(prefix)}{secrets.token_hex(4)}{PREVIOUS}")
        publishing("aside", dest)
        os.replace(dest, aside)
        try:
            publishing("into place", new)
            os.replace(new, dest)
        except BaseException:
            os.replace(aside, dest)
            raise
        publishing("remove old", aside)
        remove_path(aside)
    except OSError as exc:
        shutil.rmtree(new, ignore_errors=True)
        error = disk_error(exc, dest)
        if error is exc:
            raise
        raise error from exc
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise


# A working folder is named <prefix><pid>-<8 hex digits>: the process that made it, and a
# random part; the previous folder a two-step publication moved aside adds .previous.
PREVIOUS = ".previous"
OWNED = r"(?P<pid>[0-9]+)-[0-9a-f]{8}"


def owned_prefix(prefix: str) -> str:
    """The start of the name of a working folder this process makes under ``prefix``."""
    return f"{prefix}{os.getpid()}-"


def process_exists(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    return True


def lock_held(path: Path) -> bool:
    """Whether a running process holds the lock :func:`temporary_folder` takes on the
    folder ``path`` (``flock``); False where that cannot be told."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def left_by_dead_run(path: Path, pid: int) -> bool:
    """Whether the working folder ``path``, made by process ``pid``, was left by a run
    that has ended: no process ``pid`` runs, and nobody holds its lock (a run in another
    process namespace, a container, has other process numbers but takes the same locks).
    A number used again since by another process leaves the folder be: nothing a run may
    still use is ever removed."""
    return not process_exists(pid) and not lock_held(path)


def dead_runs_folders(folder: Path, prefix: str, suffix: str = "") -> list[Path]:
    """What runs that have ended left in ``folder`` under ``prefix``: the working folders
    named ``<prefix><pid>-<8 hex digits><suffix>`` (:func:`owned_prefix`) whose run has
    ended (:func:`left_by_dead_run`). The names of another output's folders
    (``.study-2026-...`` beside ``.study-...``) never match."""
    pattern = re.compile(re.escape(prefix) + OWNED + re.escape(suffix))
    found = []
    for path in sorted(folder.glob(f"{glob.escape(prefix)}*")):
        m = pattern.fullmatch(path.name)
        if m and left_by_dead_run(path, int(m["pid"])):
            found.append(path)
    return found


def recover_folder(dest: Path) -> None:
    """Undo what a run killed in the middle of :func:`publish_folder` left of ``dest``: a
    previous folder moved aside (``.previous``) by a run that has ended is put back as
    ``dest`` when there is no ``dest`` (the kill fell between the two renames), and
    removed when there is one (the new folder was in place). Nothing else is touched."""
    dest = Path(dest)
    if not dest.parent.is_dir():
        return
    for aside in dead_runs_folders(scratch_folder(dest.parent), f".{dest.name}-", PREVIOUS):
        if dest.exists() or dest.is_symlink():
            remove_path(aside)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.replace(aside, dest)


@contextlib.contextmanager
def temporary_folder(dest: Path, prefix: str) -> Iterator[Path]:
    """A new, empty folder to work in while ``dest`` is written, removed on leaving,
    whatever happened: ``<prefix><pid>-<random part>`` (:func:`owned_prefix`), in the
    :func:`scratch_folder` of ``dest``'s parent, locked (``flock``) while the run uses it.
    First, what a killed run left of ``dest`` is recovered (:func:`recover_folder`) and
    the working folders of ended runs are removed (:func:`dead_runs_folders`)."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        scratch = scratch_folder(dest.parent)
        recover_folder(dest)
        for stale in dead_runs_folders(scratch, prefix):
            remove_path(stale)
        tmp = make_temporary(scratch, owned_prefix(prefix), folder=True)
    except OSError as exc:
        raise disk_error(exc, dest) from exc
    lock = None
    try:
        lock = os.open(tmp, os.O_RDONLY | os.O_CLOEXEC)
        try_lock(lock)  # a new folder: nobody else holds it (without locks, the pid tells)
        yield tmp
    finally:
        if lock is not None:
            os.close(lock)
        remove_path(tmp)


@contextlib.contextmanager
def atomic_folder(dest: Path, public: bool = True) -> Iterator[Path]:
    """A new, empty folder to fill (a :func:`temporary_folder`); when the block ends
    without an error it replaces ``dest`` whole (:func:`publish_folder`), else it is
    removed and ``dest`` stays as it was, as it does when another program removed the
    working folder meanwhile (one message). ``public``: made :func:`publishable` (a
    website); otherwise its modes are the umask's, like every other output."""
    with temporary_folder(dest, f".{dest.name}-") as tmp:
        made = folder_identity(tmp)
        try:
            yield tmp
        except OSError as exc:
            if folder_identity(tmp) != made:
                raise folder_removed(tmp, dest) from exc
            raise
        if folder_identity(tmp) != made:
            raise folder_removed(tmp, dest)
        if public:
            publishable(tmp)
        publish_folder(tmp, dest)


def folder_identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the folder ``path`` (None when it is not there): what
    tells the folder a run made from one made again at its name."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def folder_removed(tmp: Path, dest: Path) -> InputError:
    """The message of a working folder removed while ``dest`` was built in it."""
    return InputError(f"the folder it was being built in ({tmp}) was removed by another "
                      "program meanwhile, so nothing was written", file=str(dest),
                      fix="run the command again, and keep other programs from cleaning "
                          "that folder while it runs")


def sha256_file(path: Path) -> str:
    """SHA-256 hex digest of a file; an unreadable file is one message."""
    try:
        with path.open("rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", file=str(path),
                         fix="check that the file exists and is readable") from exc
