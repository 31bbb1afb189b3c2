"""A command's hold on the folder it writes, so that two runs at once for one folder do
not both write it and both say they did."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from analysis.core.errors import InputError


def try_lock(fd: int) -> bool:
    """Take an exclusive lock (``flock``) on the open file or folder ``fd`` without waiting:
    False when another process holds it. A file system without locks counts as taken
    (there is nothing to wait for there)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # a file system without locks
        pass
    return True


@contextlib.contextmanager
def folder_lock(folder: Path, command: str, option: str = "--out") -> Iterator[None]:
    """Hold an exclusive lock (``flock``) on the folder ``folder`` while the block runs
    (made when missing, and removed again when the block leaves it empty). Another run
    holding it is one line naming the folder and ``command``, before anything is read or
    written. A path that is not a folder is left to the caller to refuse; a file system
    without locks is not locked."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        yield
        return
    made = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise InputError(f"cannot open the folder ({exc.strerror})", file=str(folder),
                         fix=f"check the path and its permissions, or choose another "
                             f"{option}") from exc
    try:
        if not try_lock(handle):
            raise InputError(f"another {command} is writing this folder now",
                             file=str(folder), fix=f"wait for it to end, or choose another "
                                                   f"{option}")
        yield
    finally:
        os.close(handle)
        if made:
            with contextlib.suppress(OSError):  # only an empty folder is removed
                folder.rmdir()
