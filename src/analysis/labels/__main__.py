"""Command line of the labelling loop.

    python -m analysis.labels sheets CANDIDATES.csv --annotators N --out FOLDER
        [--format csv|xlsx] [--force]
    python -m analysis.labels merge SHEET [SHEET ...] --out BATCH
        [--decisions FILE] [--selection CANDIDATES.csv|none] [--force]
    python -m analysis.labels extend --base DUMP --batch BATCH --out STUDY
        [--name NAME] [--force]

``sheets`` writes the blank sheets for the candidates select wrote
(``<selection>/selection/candidates.csv``) into ``FOLDER/sheets/``; ``merge`` combines
the filled sheets and the adjudicators' decisions into a batch in the upstream layout
(:mod:`analysis.labels.merge`); ``extend`` adds a batch to a study dump
(:mod:`analysis.labels.extend`). A problem ends the run with one line per problem (file,
line, column, what, what to do), exit status 1 and nothing written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.core.errors import InputError, user_error_line
from analysis.core.paths import PATHS, DumpLayout, SheetPaths
from analysis.core.projects import Projects
from analysis.core.taxonomy import load_taxonomy
from analysis.labels.decisions import read_decisions
from analysis.labels.extend import extend_dump
from analysis.labels.merge import MergeResult, SheetProblems, merge_sheets
from analysis.labels.sheets import FORMATS, read_candidates, write_blank_sheets
from analysis.select.hints import python
from analysis.select.known import NONE

SHOWN_UNDECIDED = 10


def check_no_sheets(out: Path, force: bool) -> None:
    """Sheets already in ``<out>/sheets/`` may hold an annotator's labels: they are
    replaced only with ``force``."""
    folder = SheetPaths(out).folder
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise InputError("the folder already holds sheets (they may hold labels)",
                         file=str(folder), fix="choose another --out, or pass --force")


def find_selection(sheets: list[str], given: str | None) -> tuple[Path | None, str | None]:
    """The candidates to check the sheets against, and a warning when there are none:
    ``--selection FILE``, ``none``, or by default ``selection/candidates.csv`` beside the
    first sheet's folder (where select and labels sheets put them)."""
    if given is not None and given.lower() == NONE:
        return None, None
    if given is not None:
        if not Path(given).is_file():
            raise InputError("file not found", file=given, column="--selection",
                             fix="give the candidates.csv the sheets were made from, or "
                                 "--selection none")
        return Path(given), None
    guess = Path(sheets[0]).absolute().parent.parent / "selection" / "candidates.csv"
    if guess.is_file():
        return guess, None
    return None, ("warning: the sheets' selection (selection/candidates.csv beside their "
                  "folder) was not found, so a row deleted from every sheet cannot be caught "
                  "-> pass --selection CANDIDATES.csv (or --selection none)")


def summary_line(record: dict, out: str) -> str:
    """One line saying what the merge did."""
    projects = record["projects"].values()
    majority = sum(p["with_majority"] for p in projects)
    by_all = sum(p["excluded_by_all"] for p in projects)
    return (f"merge: {record['annotators']} sheets, {record['candidates']:,} candidates in "
            f"{len(record['projects'])} project(s): {record['labelled']:,} labelled "
            f"({majority:,} by a majority, {record['labelled'] - majority:,} by decision), "
            f"{record['excluded']:,} excluded ({by_all:,} by all annotators, "
            f"{record['excluded'] - by_all:,} by decision), {record['undecided']:,} "
            f"undecided{' (left out of the batch)' if record['undecided'] else ''}; "
            f"{record['adjudication']:,} on labels/adjudication.csv; wrote {out}")


def undecided_lines(result: MergeResult, args: argparse.Namespace) -> list[str]:
    """The undecided reports (the first few) and what to do about them."""
    if not result.undecided:
        return []
    shown = ", ".join(result.undecided[:SHOWN_UNDECIDED])
    more = len(result.undecided) - SHOWN_UNDECIDED
    listed = DumpLayout(Path(args.out)).adjudication
    return [f"merge: undecided, not in the batch: {shown}"
            + (f" and {more:,} more" if more > 0 else ""),
            f"merge: decide them in the decision column of {listed} (a theme code, or "
            f"excluded), then: {python()} -m analysis.labels merge {' '.join(args.sheets)} --out "
            f"{args.out} --decisions FILE --force"]


def run_sheets(args: argparse.Namespace) -> int:
    check_no_sheets(Path(args.out), args.force)
    candidates = read_candidates(Path(args.candidates), "labels sheets")
    written = write_blank_sheets(Path(args.out), candidates, args.annotators,
                                 load_taxonomy(PATHS.taxonomy_file), args.format)
    print(f"sheets: wrote {len(written)} sheet(s) ({args.format}) into {written[0].parent}")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    taxonomy = load_taxonomy(args.taxonomy)
    codes = set(taxonomy.codes)
    selection, warning = find_selection(args.sheets, args.selection)
    if warning:
        print(f"merge: {warning}", file=sys.stderr)
    decisions = read_decisions(Path(args.decisions), codes) if args.decisions else None
    result = merge_sheets([Path(p) for p in args.sheets], Path(args.out), codes,
                          force=args.force, names=args.sheets, decisions=decisions,
                          selection=read_candidates(selection) if selection else None,
                          selection_name=str(selection) if selection else None)
    for sheet in result.record["sheets"]:
        for note in sheet["notes"]:
            print(f"merge: {sheet['file']}: {note}")
    if decisions is not None and decisions.lowercase_codes:
        print(f"merge: {decisions.name}: {decisions.lowercase_codes:,} decision(s) written "
              "in lower case (as c.3), read as the code")
    print(summary_line(result.record, args.out))
    for line in undecided_lines(result, args):
        print(line)
    return 0


def run_extend(args: argparse.Namespace) -> int:
    renames = Projects.load(Path(args.projects)).renames()
    extension = extend_dump(Path(args.base), Path(args.batch), Path(args.out), args.name,
                            args.force, renames)
    entry = extension.record["batches"][-1]
    earlier = extension.record["batches"][:-1]
    print(f"extend: {args.base} ({', '.join(e['name'] for e in earlier)}: "
          f"{sum(e['label_rows'] for e in earlier):,} label rows) + batch {entry['name']} "
          f"({entry['label_rows']:,} label rows, {entry['excluded']:,} excluded, annotators "
          f"in {entry['annotator_columns'][0]}..{entry['annotator_columns'][-1]}); "
          f"{len(extension.copied):,} other files carried; wrote {args.out}")
    print(f"extend: run the pipeline on it: set ingest.source: {args.out} (and manifest: "
          "null, commit: null) in params.yaml, then make report")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m analysis.labels",
                                description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sheets", help="blank labelling sheets for the candidates select wrote")
    s.add_argument("candidates", help="selection/candidates.csv (project, url, created_at, "
                                      "title)")
    s.add_argument("--annotators", type=int, required=True, help="one sheet each")
    s.add_argument("--out", required=True, help="folder; the sheets go into <out>/sheets/")
    s.add_argument("--format", choices=FORMATS, default="csv",
                   help="csv (UTF-8 with BOM) or xlsx (Excel) (default: %(default)s)")
    s.add_argument("--force", action="store_true",
                   help="replace sheets already in <out>/sheets/ (they may hold labels)")
    m = sub.add_parser("merge", help="filled sheets (+ decisions) -> a batch in the upstream "
                                     "layout")
    m.add_argument("sheets", nargs="+",
                   help="the filled sheets (CSV or .xlsx), annotator 1 first")
    m.add_argument("--out", required=True, help="folder to write the batch into")
    m.add_argument("--decisions", metavar="FILE",
                   help="the adjudicators' decisions (CSV or .xlsx with url and decision: "
                        "labels/adjudication.csv filled)")
    m.add_argument("--selection", metavar="CANDIDATES",
                   help="the candidates the sheets were made from, to catch a row deleted "
                        "from every sheet (default: selection/candidates.csv beside the "
                        "sheets' folder; none: no check)")
    m.add_argument("--force", action="store_true", help="replace an earlier merge in --out")
    m.add_argument("--taxonomy", default=str(PATHS.taxonomy_file),
                   help="the theme codes (default: %(default)s)")
    e = sub.add_parser("extend", help="a study dump + a batch -> a study dump")
    e.add_argument("--base", required=True, help="the study dump to extend (the release, or "
                                                 "a study extend wrote)")
    e.add_argument("--batch", required=True, help="the folder labels merge wrote")
    e.add_argument("--out", required=True, help="folder to write the study into")
    e.add_argument("--name", help="the batch's name in the study (default: the batch "
                                  "folder's name)")
    e.add_argument("--projects", default=str(PATHS.projects_file),
                   help="former names of repositories (default: %(default)s)")
    e.add_argument("--force", action="store_true", help="replace an earlier extend in --out")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    commands = {"sheets": run_sheets, "merge": run_merge, "extend": run_extend}
    try:
        return commands[args.command](args)
    except (InputError, OSError) as exc:
        print(user_error_line(args.command, exc), file=sys.stderr)
        return 1
    except SheetProblems as exc:
        for problem in exc.problems:
            print(f"merge: {problem}", file=sys.stderr)
        print(f"merge: {len(exc.problems)} problem(s); nothing written", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
