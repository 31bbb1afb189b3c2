"""Check a dump before running the pipeline on it: ``python -m analysis.tools.validate <folder>``.

Runs the clean stage's reading and validation (layout, encodings, the pandera schemas of
the label and year files, the anomaly rules of :data:`analysis.clean.compute.RULES`) on a folder
in the upstream layout, writes nothing, and prints what was found: the projects, years
and annotators discovered, the row accounting per file (input = kept + set aside), and
each problem with its file, line and column. A problem that stops the pipeline (a missing
label file, missing columns, a file that is not UTF-8) is printed as one message and the
exit status is 1; rows that would be set aside are listed but do not fail the check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.clean.compute import RULES, clean_dump
from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.taxonomy import load_taxonomy


def report_lines(quality: dict, limit: int = 5) -> list[str]:
    """The human-readable report of a quality record (see :mod:`analysis.core.quality`)."""
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
    if by_kind:
        lines += ["", "problems found (kind: count, action; first locations):"]
    for kind in sorted(by_kind, key=lambda k: (["error", "warning", "info"].index(
            RULES[k].severity), k)):
        items = by_kind[kind]
        rule = RULES[kind]
        lines.append(f"- {kind}: {len(items)}, {items[0]['action']} ({rule.severity}): "
                     f"{rule.description}")
        for a in items[:limit]:
            where = a["file"] + (f", line {a['line']}" if a["line"] is not None else "") + (
                f", column {a['column']!r}" if a["column"] else "")
            lines.append(f"    {where}: {a['message']}")
        if len(items) > limit:
            lines.append(f"    ... and {len(items) - limit} more "
                         f"({PATHS.clean.quality.relative_to(PATHS.root)})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.validate",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", help="folder in the upstream layout (holding 'Issue Report/')")
    parser.add_argument("--duplicates", default="keep", choices=["keep", "first"])
    parser.add_argument("--limit", type=int, default=5, help="locations shown per kind")
    args = parser.parse_args(argv)
    try:
        result = clean_dump(Path(args.dump), load_taxonomy(PATHS.taxonomy_file),
                            Projects.load(PATHS.projects_file), duplicates=args.duplicates)
    except InputError as exc:
        print(f"validate: {exc}", file=sys.stderr)
        return 1
    print("\n".join(report_lines(result.quality, args.limit)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
