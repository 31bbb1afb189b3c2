"""Small hostile files, at full size, each read in a process of its own: archives whose
tar headers declare GiBs, chains of headers, sparse maps without end, encrypted entries;
workbooks with a value at XFD1048576, a merged range of 17 billion cells, shared strings
of 300 MB, a row of a million cells, only a chart sheet, a password. Each ends within
seconds, under 1.5 GB of peak memory, in one line naming the file (or, for the merged
range, in a sheet with the range clipped and reported). Before the readers were bounded
they took minutes and gigabytes (a 1.5 GiB long name: 300 s and 3.1 GB)."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile

import pytest

from analysis.core.sizes import GiB, MiB
from tests.support.bombs import (
    chained_headers_tar,
    chart_only_workbook,
    declared_header_tar,
    encrypted_workbook,
    encrypted_zip,
    merged_past_workbook,
    sparse_map_tar,
    strings_bomb_workbook,
    table_workbook,
    wide_row_workbook,
)

pytestmark = pytest.mark.slow

MAX_SECONDS = 30  # on a busy 2-core machine; each takes a few seconds at most
MAX_PEAK_BYTES = 1536 * MiB

READ = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
reader, path = sys.argv[1], Path(sys.argv[2])
started = time.perf_counter()
from analysis.core.errors import InputError
try:
    if reader == "archive":
        from analysis.ingest.archives import unpack
        with tempfile.TemporaryDirectory() as folder:
            unpack(path, Path(folder) / "unpacked")
    elif reader == "background":
        from analysis.interviews.read import read_sheet
        sheet = read_sheet(path)
        print(json.dumps([q.message for q in sheet.quirks]), file=sys.stderr)
    else:
        from analysis.update.labels.tables import read_table
        read_table(path)
    message = None
except InputError as exc:
    message = str(exc)
print(json.dumps({"message": message, "seconds": time.perf_counter() - started,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""

CASES = {
    "tar-gnu-long-name": ("archive", lambda p: declared_header_tar(
        p / "dump.tar.gz", tarfile.GNUTYPE_LONGNAME, 3 * GiB // 2), "GNU long-name header"),
    "tar-pax-header": ("archive", lambda p: declared_header_tar(
        p / "dump.tar.gz", tarfile.XHDTYPE, 3 * GiB // 2), "pax extended header"),
    "tar-pax-global-header": ("archive", lambda p: declared_header_tar(
        p / "dump.tar.gz", tarfile.XGLTYPE, 3 * GiB // 2), "pax global header"),
    "tar-chained-headers": ("archive", lambda p: chained_headers_tar(p / "dump.tar", 5000),
                            "more than 8 extended headers"),
    "tar-sparse-map": ("archive", lambda p: sparse_map_tar(p / "dump.tar.gz", 256 * MiB),
                       "is a sparse file"),
    "zip-encrypted": ("archive", lambda p: encrypted_zip(p / "dump.zip", ["top/a.csv"]),
                      "is encrypted (password-protected)"),
    "background-far-value": ("background", lambda p: table_workbook(
        p / "b.xlsx", far_cell="XFD1048576"), "span A1:XFD1048576"),
    "background-merged-range": ("background", lambda p: merged_past_workbook(
        p / "b.xlsx", "A200:XFD1048576"), None),
    "background-shared-strings": ("background", lambda p: strings_bomb_workbook(
        p / "b.xlsx", 300 * MiB), "the workbook unpacks to"),
    "background-wide-row": ("background", lambda p: wide_row_workbook(
        p / "b.xlsx", 1_000_000), "a row holds more than 16,384 cells"),
    "background-chart-sheet": ("background", lambda p: chart_only_workbook(p / "b.xlsx"),
                               "the workbook has no worksheet"),
    "background-password": ("background", lambda p: encrypted_workbook(p / "b.xlsx"),
                            "password-protected"),
    "sheet-wide-row": ("sheet", lambda p: wide_row_workbook(p / "s.xlsx", 1_000_000),
                       "a row holds more than 16,384 cells"),
    # CSV sheets and decisions files: the same bounds as a workbook's, and a byte limit
    "sheet-csv-2gib": ("sheet", lambda p: sparse_csv(p / "s.csv", 2 * GiB),
                       "holds more than 64 MiB"),
    "sheet-csv-million-columns": ("sheet", lambda p: text_file(
        p / "s.csv", "url,label" + ",c" * 1_000_000 + "\n"), "more than 16,384 columns"),
    "sheet-csv-million-rows": ("sheet", lambda p: text_file(
        p / "s.csv", "url,label\n" + "u,C.1\n" * 1_100_000), "more than 1,048,576 rows"),
}


def sparse_csv(path, size: int):
    """A CSV sheet of ``size`` bytes, a header and then NUL bytes nothing stores."""
    with path.open("wb") as fh:
        fh.write(b"url,label\n")
        fh.truncate(size)
    return path


def text_file(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_file_ends_in_seconds_under_one_and_a_half_gigabytes(tmp_path, case):
    reader, make, phrase = CASES[case]
    path = make(tmp_path)
    assert path.stat().st_blocks * 512 < 8 * MiB  # small on disk (a sparse file too)
    proc = subprocess.run([sys.executable, "-c", READ, reader, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["seconds"] < MAX_SECONDS, result
    assert result["peak"] < MAX_PEAK_BYTES, result
    if phrase is None:  # read, the range clipped and reported
        assert result["message"] is None
        assert "merged range A200:XFD1048576 reaches past" in proc.stderr
        return
    message = result["message"]
    assert message and "\n" not in message and len(message) < 500, result
    assert message.startswith(str(path)) and phrase in message, message
