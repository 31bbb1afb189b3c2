"""Command line of the labelling loop.

    python -m analysis.labels sheets CANDIDATES.csv --annotators N --out FOLDER
    python -m analysis.labels merge SHEET [SHEET ...] --out DUMP [--force]

``sheets`` writes the blank sheets for a candidates CSV (columns project, url,
created_at, title: what select writes); ``merge`` combines the filled sheets into a dump
in the upstream layout (see :mod:`analysis.labels.merge`). A problem ends the run with one
line per problem (sheet, line, column, what, what to do), exit status 1 and nothing
written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from analysis.core.errors import InputError, os_problem
from analysis.core.paths import PATHS, SheetPaths
from analysis.core.taxonomy import load_taxonomy
from analysis.labels.merge import SheetProblems, merge_sheets
from analysis.labels.sheets import write_blank_sheets


def read_candidates(path: Path) -> pd.DataFrame:
    """A candidates CSV as text, one clear message when it cannot be read."""
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as exc:
        raise InputError(f"cannot read the candidates ({exc})", file=str(path),
                         fix="give the candidates CSV select wrote (UTF-8)") from exc


def check_no_sheets(out: Path, force: bool) -> None:
    """Sheets already in ``<out>/sheets/`` may hold an annotator's labels: they are
    replaced only with ``force``."""
    folder = SheetPaths(out).folder
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise InputError("the folder already holds sheets (they may hold labels)",
                         file=str(folder), fix="choose another --out, or pass --force")


def summary_line(record: dict, out: str) -> str:
    """One line saying what the merge did."""
    labelled = sum(p["labelled"] for p in record["projects"].values())
    majority = sum(p["with_majority"] for p in record["projects"].values())
    return (f"merge: {record['annotators']} sheets, {record['candidates']:,} candidates in "
            f"{len(record['projects'])} project(s): {labelled:,} labelled ({majority:,} with "
            f"a majority), {record['excluded']:,} excluded by all annotators, "
            f"{record['adjudication']:,} for adjudication (labels/adjudication.csv); "
            f"wrote {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.labels",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sheets", help="blank labelling sheets for a candidates CSV")
    s.add_argument("candidates", help="CSV with project, url, created_at, title")
    s.add_argument("--annotators", type=int, required=True, help="one sheet each")
    s.add_argument("--out", required=True, help="folder; the sheets go into <out>/sheets/")
    s.add_argument("--force", action="store_true",
                   help="replace sheets already in <out>/sheets/ (they may hold labels)")
    m = sub.add_parser("merge", help="filled sheets -> a dump in the upstream layout")
    m.add_argument("sheets", nargs="+",
                   help="the filled sheets (CSV or .xlsx), annotator 1 first")
    m.add_argument("--out", required=True, help="folder to write the dump into")
    m.add_argument("--force", action="store_true", help="replace a non-empty --out")
    m.add_argument("--taxonomy", default=str(PATHS.taxonomy_file),
                   help="the theme codes (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        taxonomy = load_taxonomy(args.taxonomy if args.command == "merge"
                                 else PATHS.taxonomy_file)
        if args.command == "sheets":
            check_no_sheets(Path(args.out), args.force)
            written = write_blank_sheets(Path(args.out), read_candidates(Path(args.candidates)),
                                         args.annotators, taxonomy)
            print(f"sheets: wrote {len(written)} sheet(s) into {written[0].parent}")
            return 0
        result = merge_sheets([Path(p) for p in args.sheets], Path(args.out),
                              set(taxonomy.codes), force=args.force, names=args.sheets)
    except InputError as exc:
        print(f"{args.command}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{args.command}: {os_problem(exc)}", file=sys.stderr)
        return 1
    except SheetProblems as exc:
        for problem in exc.problems:
            print(f"merge: {problem}", file=sys.stderr)
        print(f"merge: {len(exc.problems)} problem(s); nothing written", file=sys.stderr)
        return 1
    for sheet in result.record["sheets"]:
        for note in sheet["notes"]:
            print(f"merge: {sheet['file']}: {note}")
    print(summary_line(result.record, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
