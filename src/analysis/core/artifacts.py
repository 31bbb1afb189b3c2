"""Deterministic, atomic writers for every artifact the pipeline produces.

Same input, same bytes, on every machine: tables are sorted by the caller, JSON keys are
sorted, and every float is written at a fixed precision of :data:`SIGNIFICANT_DIGITS`
significant digits (:func:`fixed_float`). Full ``repr`` digits are not stable: the last
digits of a sum or a product differ between CPUs, BLAS builds and numpy versions, and
with them the bytes of a table and the hash DVC records in ``dvc.lock``. Twelve digits
are far more than any comparison the scorecard makes (the paper prints at most five).
Every file is written to a temporary name in the same folder and moved into place only
when complete, so an interrupted run never leaves a half-written artifact that a later
stage (or DVC) could mistake for a valid one. Files and folders get the modes the umask
gives (0644 and 0755 under 022), as any program's outputs do; a website is made readable
by all (:func:`publishable`).
"""

from __future__ import annotations

import contextlib
import errno
import glob
import hashlib
import json
import math
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.core.errors import InputError

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
    """Yield a temporary path next to ``path``; move it onto ``path`` only on success.

    Temporary files left behind by an earlier run that was killed are removed first.
    Running out of disk space is a user-fixable problem and becomes one clear message.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    for stale in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
        stale.unlink(missing_ok=True)
    tmp_path = make_temporary(target.parent, f".{target.name}.", ".tmp")
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    except OSError as exc:
        tmp_path.unlink(missing_ok=True)
        raise disk_error(exc, target) from exc
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def disk_error(exc: OSError, target: Path) -> Exception:
    """One clear message for a full disk or a target that cannot be written; else ``exc``."""
    if exc.errno == errno.ENOSPC:
        return InputError("no space left on the device while writing", file=str(target),
                          fix="free disk space and run `dvc repro` again")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return InputError(f"cannot write ({exc.strerror})", file=str(target),
                          fix="check the folder's permissions")
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


@contextlib.contextmanager
def atomic_folder(dest: Path, public: bool = True) -> Iterator[Path]:
    """A temporary folder beside ``dest`` to fill; when the block ends without an error it
    replaces ``dest`` whole, else it is removed and ``dest`` stays as it was: no reader
    sees a half-built folder. ``public``: made :func:`publishable` (a website); otherwise
    its modes are the umask's, like every other output."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = make_temporary(dest.parent, f".{dest.name}-", folder=True)
    try:
        yield tmp
        if public:
            publishable(tmp)
        if dest.exists():
            shutil.rmtree(dest)
        tmp.replace(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


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
