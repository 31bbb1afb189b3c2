"""Hostile inputs made cheaply: gzip bombs (GiBs that compress to MBs) and files whose lines
never end, written as they are compressed so that making one costs no memory."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

PIECE = 1 << 20


def repeated(unit: bytes, size: int) -> Iterator[bytes]:
    """``size`` bytes of ``unit`` repeated, in pieces of about 1 MiB."""
    piece = unit * max(1, PIECE // len(unit))
    left = size
    while left > 0:
        yield piece[:left]
        left -= len(piece)


def write_gzip(path: Path, pieces: Iterable[bytes], level: int = 6) -> Path:
    """A gzip file of the pieces, one after the other, compressed as they come."""
    path.parent.mkdir(parents=True, exist_ok=True)
    packer = zlib.compressobj(level, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        for piece in pieces:
            out.write(packer.compress(piece))
        out.write(packer.flush())
    return path


def zeros_bomb(path: Path, size: int) -> Path:
    """``size`` bytes of zeros without a line break (1 GiB is about 1 MB compressed)."""
    return write_gzip(path, repeated(b"\0", size), level=9)
