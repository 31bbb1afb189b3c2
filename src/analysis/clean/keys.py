"""The distinct values of a column of strings (issue URLs), in memory close to the column's
own: :class:`KeyGroups`.

The rules across rows group rows and year-file lines by URL. Encoding millions of
distinct strings at once takes several times their size (a hash table and a copy of every
value); :class:`KeyGroups` encodes them a slice at a time instead, each slice the strings
of one range of a 64-bit hash, so that equal strings share a slice and a code, and refers
to each value by where it first occurs in the column rather than keeping a copy. Equality
is Arrow's, byte for byte (the strings are UTF-8: :mod:`analysis.core.dump` refuses
anything else), so the codes are exact whatever the hash.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

SLICE_KEYS = 250_000  # distinct strings encoded at a time, about


def arrow_strings(keys: pd.Series) -> pa.ChunkedArray:
    """Keys (Python or Arrow strings; missing as null) as Arrow large strings, without a
    copy when they are Arrow strings already."""
    array = pa.array(keys, type=pa.large_string(), from_pandas=True)
    return array if isinstance(array, pa.ChunkedArray) else pa.chunked_array(
        [array], type=pa.large_string())


def string_hashes(column: pa.ChunkedArray) -> np.ndarray:
    """A 64-bit hash of each string (of nulls too: they are left out elsewhere), a chunk at
    a time (pandas' SipHash of the chunk's Python strings)."""
    return np.concatenate([np.zeros(0, dtype=np.uint64)] + [
        pd.util.hash_array(chunk.to_numpy(zero_copy_only=False).astype(object),
                           categorize=False) for chunk in column.chunks])


def take(column: pa.ChunkedArray, at: np.ndarray) -> pa.ChunkedArray:
    """The strings of ``column`` at positions ``at``, in that order, taken chunk by chunk:
    Arrow's take on a chunked array first joins every chunk into one copy of the whole
    column, which is what a check must not hold."""
    at = np.asarray(at, dtype=np.int64)
    order = np.argsort(at, kind="stable")
    ordered = at[order]
    bounds = np.cumsum([0] + [len(chunk) for chunk in column.chunks])
    cuts = np.searchsorted(ordered, bounds)
    pieces = [chunk.take(ordered[a:b] - start) for chunk, start, a, b
              in zip(column.chunks, bounds[:-1], cuts[:-1], cuts[1:], strict=True) if b > a]
    taken = pa.chunked_array(pieces, type=column.type)
    if np.array_equal(order, np.arange(len(at))):
        return taken
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return taken.take(inverse)  # a copy the size of ``at`` only


def _indices(encoded: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The indices of a dictionary-encoded array (or of an index_in), -1 for nulls."""
    return np.asarray(pc.fill_null(encoded, -1).to_numpy(), dtype=np.int64)


@dataclass
class KeyGroups:
    """The distinct values of a column of keys: each key's ``code`` (-1 when missing; equal
    keys, equal codes), the position of each code's first key, and the slice (of the hash)
    each code is in."""

    column: pa.ChunkedArray
    codes: np.ndarray
    first: np.ndarray
    slice_of: np.ndarray
    slices: int

    @classmethod
    def of(cls, keys: pd.Series) -> KeyGroups:
        """Group the keys of a column (codes are numbered slice by slice)."""
        column = arrow_strings(keys)
        valid = ~np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        slices = max(1, -(-int(valid.sum()) // SLICE_KEYS))
        where = (string_hashes(column) % np.uint64(slices)).astype(np.int64)
        codes = np.full(len(column), -1, dtype=np.int64)
        firsts, slice_of = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
        size = 0
        for part in range(slices):
            at = np.flatnonzero(valid & (where == part))
            if not len(at):
                continue
            encoded = pc.dictionary_encode(take(column, at)).combine_chunks()
            local = _indices(encoded.indices)
            _, first = np.unique(local, return_index=True)  # codes in order of appearance
            codes[at] = size + local
            firsts.append(at[first])
            slice_of.append(np.full(len(first), part, dtype=np.int64))
            size += len(first)
        return cls(column, codes, np.concatenate(firsts), np.concatenate(slice_of), slices)

    def __len__(self) -> int:
        return len(self.first)

    def text(self, code: int) -> str:
        """The value of a code."""
        return self.column[int(self.first[code])].as_py()

    def texts(self, batch: int = 65_536) -> Iterator[str]:
        """Every value, in code order, a batch at a time."""
        for start in range(0, len(self), batch):
            yield from take(self.column, self.first[start:start + batch]).to_pylist()

    def find(self, keys: pd.Series) -> np.ndarray:
        """The code of each of ``keys`` among these values (-1: missing, or not among
        them), a slice at a time."""
        column = arrow_strings(keys)
        valid = ~np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        where = (string_hashes(column) % np.uint64(self.slices)).astype(np.int64)
        found = np.full(len(column), -1, dtype=np.int64)
        for part in range(self.slices):
            at = np.flatnonzero(valid & (where == part))
            codes = np.flatnonzero(self.slice_of == part)
            if not len(at) or not len(codes):
                continue
            values = take(self.column, self.first[codes])
            index = _indices(pc.index_in(take(column, at), value_set=values.combine_chunks()))
            hit = index >= 0
            found[at[hit]] = codes[index[hit]]
        return found
