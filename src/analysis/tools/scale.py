"""A dump N times as large as another: every issue repeated under N issue numbers.

``make bench`` (``benchmarks/bench_scale.py``) runs the pipeline on the release and on
dumps ten and a hundred times its size, to check that every stage's cost grows linearly
with the rows. :func:`scale_dump` writes such a dump: in each project's label file, year
files and excluded file, the body (every line after the header) is written ``times``
times, copy ``k`` with every issue number ``n`` of a GitHub issue or pull URL rewritten to
``n + k * stride`` (copy 0 is the original). ``stride`` is a power of ten above every issue
number in the dump, so the new URLs are new issues, each in its own year file as before,
with the same labels: every count of the study grows ``times``-fold and every share stays
the same. Duplicated URLs stay duplicated within each copy, and lines without an issue URL
(the dump's defects) are repeated as they are. The other files (the interview files, detail
files, keyword lists) are copied unchanged: no stage's row count depends on them.

Usage: ``python -m analysis.tools.scale SOURCE DEST --times 10``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from analysis.core.artifacts import atomic_folder
from analysis.core.dump import ISSUE_DIR, discover_projects
from analysis.core.dumpfiles import DumpFiles
from analysis.core.errors import InputError, os_problem, run_command

ISSUE_NUMBER_RE = re.compile(rb"(/(?:issues|pull)/)(\d+)")
LINE_END_RE = re.compile(rb"\r\n|\n|\r")


def stride_for(largest: int) -> int:
    """The smallest power of ten above ``largest`` (an issue number): adding multiples of it
    to the numbers of a dump never makes two issues share a number."""
    return 10 ** len(str(largest))


def largest_issue_number(contents: list[bytes]) -> int:
    """The largest issue number in any GitHub issue or pull URL of the files' ``contents``
    (0 if none)."""
    found = (int(m.group(2)) for raw in contents for m in ISSUE_NUMBER_RE.finditer(raw))
    return max(found, default=0)


def renumber(body: bytes, shift: int) -> bytes:
    """``body`` with every issue number of its issue and pull URLs increased by ``shift``."""
    if not shift:
        return body
    return ISSUE_NUMBER_RE.sub(lambda m: m.group(1) + str(int(m.group(2)) + shift).encode(),
                               body)


def repeat_file(raw: bytes, times: int, stride: int, header: bool) -> bytes:
    """A dump file whose body is repeated ``times`` times, copy ``k`` renumbered by
    ``k * stride``; the header line (when ``header``, with a byte-order mark) stays once,
    and the file's own line ending (CRLF, LF or CR) separates the copies when its last line
    has none."""
    ending = LINE_END_RE.search(raw)
    newline = ending.group() if ending else b"\n"
    head = b""
    if header:
        cut = ending.end() if ending else len(raw)
        head, raw = raw[:cut], raw[cut:]
    if not raw:
        return head
    ends = raw.endswith((b"\n", b"\r"))
    body = raw if ends else raw + newline
    copies = b"".join(renumber(body, k * stride) for k in range(times))
    return head + (copies if ends else copies[:-len(newline)])


def scale_dump(source: Path, dest: Path, times: int) -> dict[str, int]:
    """Write into ``dest`` (a new folder) the dump ``source`` with every issue repeated under
    ``times`` issue numbers; return the stride and the number of files written. Raises
    :class:`InputError` for a factor below 1, an existing ``dest``, a source that is not
    a dump or a file that cannot be read or written; ``dest`` appears whole or not at
    all."""
    if times < 1:
        raise InputError(f"scale factor {times} is below 1", fix="pass --times 1 or more")
    if dest.exists():
        raise InputError("destination exists", file=str(dest),
                         fix="name a folder that does not exist yet")
    dump = DumpFiles.walk(source, "scale")
    projects, _ = discover_projects(dump)
    repeated: dict[str, bool] = {}
    for project in projects:
        repeated[dump.rel(project.label_file)] = True
        repeated.update(dict.fromkeys(map(dump.rel, project.year_files.values()), False))
        if project.excluded_file:
            repeated[dump.rel(project.excluded_file)] = True
    contents = {rel: dump.read_bytes(rel) for rel in repeated}
    stride = stride_for(largest_issue_number(list(contents.values())))
    written = 0
    try:
        with atomic_folder(dest, public=False) as tmp:
            for rel in sorted(dump.files):
                out = tmp / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                if rel in repeated:
                    out.write_bytes(repeat_file(contents[rel], times, stride, repeated[rel]))
                else:
                    dump.copy(rel, out)
                written += 1
    except OSError as exc:
        raise os_problem(exc) from exc
    return {"stride": stride, "files": written, "repeated_files": len(repeated)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.scale",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help=f"a dump (a folder with {ISSUE_DIR!r})")
    parser.add_argument("dest", type=Path, help="the folder to write (must not exist)")
    parser.add_argument("--times", type=int, default=10, help="the scale factor (default 10)")
    args = parser.parse_args(argv)
    return run_command("error", lambda: scale_dump(args.source, args.dest, args.times),
                       lambda done: scaled(args.dest, args.times, done), status=2,
                       errors=(InputError,))


def scaled(dest: Path, times: int, done: dict) -> int:
    """Say what :func:`scale_dump` wrote; the exit status."""
    print(f"{dest}: {done['files']} files, {done['repeated_files']} repeated "
          f"{times} times (issue numbers + k * {done['stride']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
