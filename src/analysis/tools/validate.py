"""Check a dump before running the pipeline on it: ``python -m analysis.tools.validate <folder>``.

Applies the clean stage's reading and rules (the same functions,
:func:`analysis.clean.scan.scan_dump`: layout, encodings, the pandera schemas of the label
and year files, the anomaly rules of :data:`analysis.clean.rules.RULES`) to a folder in the
upstream layout, walked and opened as ingest does
(:class:`~analysis.core.dumpfiles.DumpFiles`), writes nothing, and prints the projects,
years and annotators found, the row accounting per file (input = kept + set aside), and
the first ``--max-problems`` problems of each kind with their file, line and column, the
others counted. A problem that stops the pipeline or that ingest refuses is one line, exit
status 1; rows that would be set aside are listed but do not fail the check (status 0).

Memory stays bounded whatever a file holds: files are read a line at a time and
:data:`CHUNK_ROWS` rows at a time, only the problems shown are kept, and of each row only
what the rules across rows need (its line, issue URL, reason and year).
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path

import pyarrow as pa

from analysis.clean.rules import RULES
from analysis.clean.scan import Reading, scan_dump
from analysis.core.dump import MAX_LINE
from analysis.core.dumpfiles import DumpFiles
from analysis.core.errors import run_command
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.quality import AnomalySample, quality_report
from analysis.core.taxonomy import load_taxonomy

CHUNK_ROWS = 50_000  # rows judged at a time
READER = "validate"  # who reads the dump, in messages about its files
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
SEVERITIES = ["error", "warning", "info"]
EXIT_STATUS = ("exit status: 0 the pipeline can read the dump (rows it would set aside "
               "included), 1 a problem stops it (one line on stderr), 2 bad options")


def check_dump(dump: Path, duplicates: str = "keep", max_problems: int = 5,
               max_line: int = MAX_LINE, chunk_rows: int = CHUNK_ROWS) -> dict:
    """A quality record of ``dump`` (see :mod:`analysis.core.quality`) as the clean stage
    would write it, but with only the first ``max_problems`` anomalies of each kind (the
    counts are of all of them)."""
    sample = AnomalySample(max_problems)
    scan = scan_dump(DumpFiles.walk(Path(dump), READER), Projects.load(PATHS.projects_file),
                     load_taxonomy(PATHS.taxonomy_file), duplicates, sample,
                     Reading(chunk_rows=chunk_rows, max_line=max_line))
    return quality_report(sample.kept(), RULES, scan.files, scan.summary(duplicates),
                          counts=sample.counts)


def give_back_freed_memory() -> None:
    """Have freed memory go back to the system at once, so that the peak of a check is what
    it holds, not what it once held: Arrow's default allocator keeps what it frees for
    later (the system allocator does not), and glibc's keeps freed blocks of any size in
    its heap once a big one has been freed (a fixed threshold of 128 KiB maps every bigger
    block on its own, given back when freed). Elsewhere than glibc, only the first."""
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, 128 * 1024)
    except (AttributeError, OSError):
        pass


def report_lines(quality: dict, limit: int = 5) -> list[str]:
    """The human-readable report of a quality record: the first ``limit`` locations of
    each kind of problem, and how many more there are."""
    s = quality["summary"]
    lines = [f"projects: {', '.join(s['projects'])}",
             f"years: {', '.join(map(str, s['years'])) or 'none'}",
             f"annotators: {s['annotators']}", f"issues kept: {s['issues']:,}", "",
             "file accounting (input = kept + set aside):"]
    for f in quality["files"]:
        lines.append(f"  {f['file']}: {f['input']} = {f['kept']} + {f['set_aside']}")
    lines.append("balanced: " + ("yes" if s["balanced"] else "NO"))
    by_kind: dict[str, list[dict]] = {}
    for a in quality["anomalies"]:
        by_kind.setdefault(a["kind"], []).append(a)
    counts = quality["anomaly_counts"]
    if counts:
        lines += ["", "problems found (kind: count, action; first locations):"]
    for kind in sorted(counts, key=lambda k: (SEVERITIES.index(RULES[k].severity), k)):
        items = by_kind.get(kind, [])
        count = counts[kind]
        rule = RULES[kind]
        action = items[0]["action"] if items else rule.action
        lines.append(f"- {kind}: {count}, {action} ({rule.severity}): {rule.description}")
        for a in items[:limit]:
            where = a["file"] + (f", line {a['line']}" if a["line"] is not None else "") + (
                f", column {a['column']!r}" if a["column"] else "")
            lines.append(f"    {where}: {a['message']}")
        if count > limit:
            lines.append(f"    ... and {count - limit} more (--max-problems shows more)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.validate",
                                     description=__doc__.split("\n\n")[0],
                                     epilog=EXIT_STATUS)
    parser.add_argument("dump", help="folder in the upstream layout (holding 'Issue Report/')")
    parser.add_argument("--duplicates", default="keep", choices=["keep", "first"])
    parser.add_argument("--max-problems", "--limit", dest="max_problems", type=int,
                        default=5, metavar="N",
                        help="problems shown per kind, the first in file and line order "
                             "(the others are counted)")
    parser.add_argument("--max-line", type=int, default=MAX_LINE, metavar="CHARS",
                        help="refuse a line (or a quoted record) longer than this "
                             f"(default {MAX_LINE:,} characters, as the clean stage)")
    args = parser.parse_args(argv)
    if args.max_problems < 1 or args.max_line < 1:
        parser.error("--max-problems and --max-line must be 1 or more")
    give_back_freed_memory()
    # an OSError is the user's too (a folder of the dump not listed, say)
    return run_command("validate", lambda: check_dump(Path(args.dump), args.duplicates,
                                                      args.max_problems, args.max_line),
                       lambda quality: print_report(quality, args.max_problems))


def print_report(quality: dict, limit: int) -> int:
    """Print :func:`report_lines`; the exit status."""
    print("\n".join(report_lines(quality, limit)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
