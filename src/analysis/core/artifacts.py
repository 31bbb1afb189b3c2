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
import errno
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

from analysis.core.errors import InputError
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
    ``folder``.

    Inside a project it is ``build/tmp/`` followed by ``folder``'s path in the project
    (outside git and every folder DVC tracks, so a run killed half-way leaves no file in
    an output or a dependency; one folder per target folder, so leftovers are found by
    name), when that is on the same file system and under the same mount point (the final
    move is then a rename, atomic). Elsewhere, and for folders already under ``build/``, it
    is ``folder`` itself.
    """
    folder = folder.absolute()
    root = project_root_of(folder)
    if root is None or folder.is_relative_to(Paths(root).build):
        return folder
    scratch = Paths(root).scratch / folder.relative_to(root)
    scratch.mkdir(parents=True, exist_ok=True)
    return scratch if same_mount(scratch, folder) else folder


def remove_stale(folder: Path, pattern: str) -> None:
    """Remove what an earlier, killed run left in ``folder`` under names matching the glob
    ``pattern`` (files or folders)."""
    for stale in folder.glob(pattern):
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)

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
    onto ``path`` only on success.

    Temporary files left behind by an earlier run that was killed are removed first (also
    those an older version left beside ``path``). Running out of disk space or a folder
    that cannot be written is a user-fixable problem and becomes one clear message, at
    whichever step it happens.
    """
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
    precision (:func:`csv_float`), atomically."""
    kwargs.setdefault("index", False)
    kwargs.setdefault("lineterminator", "\n")
    kwargs.setdefault("float_format", csv_float)
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, encoding="utf-8", **kwargs)
    return Path(path)


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


def publish_folder(new: Path, dest: Path) -> None:
    """Put the finished folder ``new`` in the place of ``dest``, so that a failure leaves
    ``dest`` as it was and ``new`` removed: the old folder is renamed aside (next to
    ``new``, on the same file system: no copy), ``new`` is renamed into place (the old
    folder renamed back should that fail), then the old folder is removed.

    When ``new`` cannot be renamed to ``dest`` (another file system or mount point), it is
    first copied into a new folder in the :func:`scratch_folder` of ``dest``'s parent. A
    full disk or a folder that cannot be written, at any step, is one message naming
    ``dest``. ``dest``'s parent must exist.
    """
    try:
        if not same_mount(new.parent, dest.parent):
            near = make_temporary(scratch_folder(dest.parent), f".{dest.name}-", folder=True)
            try:
                shutil.copytree(new, near, dirs_exist_ok=True)
            except BaseException:
                shutil.rmtree(near, ignore_errors=True)
                raise
            shutil.rmtree(new, ignore_errors=True)
            new = near
        aside = new.with_name(new.name + ".previous")
        had_old = dest.exists() or dest.is_symlink()
        try:
            if had_old:
                os.replace(dest, aside)
            try:
                os.replace(new, dest)
            except BaseException:
                if had_old:
                    os.replace(aside, dest)
                raise
        finally:
            shutil.rmtree(aside, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(new, ignore_errors=True)
        error = disk_error(exc, dest)
        if error is exc:
            raise
        raise error from exc
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise


@contextlib.contextmanager
def temporary_folder(dest: Path, prefix: str) -> Iterator[Path]:
    """A new, empty folder to work in while ``dest`` is written (``prefix`` and a random
    part, in the :func:`scratch_folder` of ``dest``'s parent, with the umask's modes:
    :func:`make_temporary`), removed on leaving, whatever happened.

    Folders an earlier, killed run left there under ``prefix`` are removed first (only in
    the project's ``build/tmp/``: elsewhere a name that starts so may be someone's). A
    folder that cannot be made is one message naming ``dest``.
    """
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        scratch = scratch_folder(dest.parent)
        if scratch != dest.parent.absolute():
            remove_stale(scratch, f"{glob.escape(prefix)}*")
        tmp = make_temporary(scratch, prefix, folder=True)
    except OSError as exc:
        raise disk_error(exc, dest) from exc
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def atomic_folder(dest: Path, public: bool = True) -> Iterator[Path]:
    """A new, empty folder to fill (a :func:`temporary_folder`); when the block ends
    without an error it replaces ``dest`` whole (:func:`publish_folder`), else it is
    removed and ``dest`` stays as it was: no reader sees a half-built folder, and a
    failure keeps the previous one. ``public``: made :func:`publishable` (a website);
    otherwise its modes are the umask's, like every other output.
    """
    with temporary_folder(dest, f".{dest.name}-") as tmp:
        yield tmp
        if public:
            publishable(tmp)
        publish_folder(tmp, dest)


HASH_CHUNK = 1 << 20


def sha256_stream(fh) -> str:
    """SHA-256 hex digest of what is left to read in a binary file object, read in chunks."""
    digest = hashlib.sha256()
    for chunk in iter(lambda: fh.read(HASH_CHUNK), b""):
        digest.update(chunk)
    return digest.hexdigest()


def sha256_file(path: Path) -> str:
    """SHA-256 hex digest of a file, read in chunks; an unreadable file is one message."""
    try:
        with path.open("rb") as fh:
            return sha256_stream(fh)
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", file=str(path),
                         fix="check that the file exists and is readable") from exc
