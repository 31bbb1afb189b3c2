"""The ``merge`` stage, one a batch (DVC's ``foreach`` over ``study.batches``): a batch's
records merged into a batch in the upstream layout.

    python -m analysis.update.study.batch labels/<batch> --out build/merged/<batch>

The records' folder is merged as ``labels merge`` merges the files it is given
(:func:`analysis.update.labels.merge.merge_folder`: the filled sheets or the Label Studio export,
checked against the candidates, with the decisions). A problem of the records is one line
each (file, line, column, what, what to do), and the stage fails with nothing written.
Reports the annotators did not settle and no decision settles are left out of the batch,
and the stage says where to decide them.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from analysis.core.errors import run_command
from analysis.core.paths import PATHS, DumpLayout
from analysis.core.taxonomy import load_taxonomy
from analysis.update.labels.merge import SheetProblems, folder_inputs, merge_folder, read_inputs
from analysis.update.labels.records import summary_line
from analysis.update.study import ledger

PROG = "merge"


def undecided_advice(result, records: Path, out: Path) -> list[str]:
    """What to do about the reports left undecided: decide them in the records."""
    if not result.undecided:
        return []
    return [f"{PROG}: {len(result.undecided):,} report(s) undecided, left out of the batch: "
            f"copy {DumpLayout(out).adjudication} to {records / 'decisions.csv'}, write a theme "
            "code or excluded in its decision column, and run the pipeline again"]


def read_now(records: Path, codes: set[str]):
    """The batch's inputs as they are now: each annotator's answers (None when an input
    cannot be read: the merge says why), the file that holds each annotator's, and each
    file's SHA-256 by its path in the records' folder."""
    inputs, _, _ = folder_inputs(records)
    reads, problems = read_inputs(inputs, None, codes)
    if problems or not reads:
        return None, {}, {}
    file_of = {who: r.source.name for r in reads for who in r.source.annotators}
    sheets = {Path(r.source.name).relative_to(records).as_posix(): r.source.sha256
              for r in reads}
    table = pd.concat([r.table for r in reads], ignore_index=True)
    return ledger.ratings_of(table), file_of, sheets


def checked_against_record(records: Path, out: Path, record: Path, codes: set[str],
                           revise: str | None) -> tuple[list[str], dict | None]:
    """The batch's answers now against the record of its last merge (``record``): the
    lines on the answers that changed (none when ``revise`` accepts them), and the new
    record (None when the inputs cannot be read: the merge then says why)."""
    ratings, file_of, sheets = read_now(records, codes)
    if ratings is None:
        return [], None
    previous = ledger.read_ledger(record)
    changes = ledger.changes_since(previous, ratings, file_of) if previous else []
    revisions = list(previous.get("revisions") or []) if previous else []
    if changes and not revise:
        rerun = (f"python -m analysis.update.study.batch {records} --out {out} --record {record}")
        return ledger.change_lines(PROG, changes, str(record), rerun), None
    if changes:
        revisions.append({"reason": revise, "changes": [asdict(c) for c in changes]})
    return [], {"ratings": ratings, "sheets": sheets, "revisions": revisions}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.update.study.batch",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("records", help="the batch's records folder (labels/<batch>)")
    parser.add_argument("--out", required=True, help="the merged batch's folder")
    parser.add_argument("--taxonomy", default=str(PATHS.taxonomy_file),
                        help="the theme codes (default: %(default)s)")
    parser.add_argument("--record", metavar="FILE",
                        help="the record of the batch's merges, kept in git "
                             "(merges/<batch>.json): an answer changed since is refused")
    parser.add_argument("--revise", metavar="REASON",
                        help="accept the answers changed since the last merge, on purpose; "
                             "the record keeps REASON and the changes")
    args = parser.parse_args(argv)
    records, out = Path(args.records), Path(args.out)
    try:
        return run_command(PROG, lambda: merge_checked(args, records, out),
                           lambda merged: record_merge(args, records, out, merged))
    except SheetProblems as exc:
        print("\n".join(exc.lines(PROG, str(records))), file=sys.stderr)
        return 1


def merge_checked(args: argparse.Namespace, records: Path, out: Path):
    """The batch merged into ``out``, once its answers are checked against the record of
    its last merge (``--record``): the merge's result and the record to keep (None
    without ``--record``); None when the check refuses the answers (it says why on
    stderr, and ``out`` is removed)."""
    codes = set(load_taxonomy(args.taxonomy).codes)
    lines, kept = checked_against_record(records, out, Path(args.record), codes,
                                         args.revise) if args.record else ([], None)
    if lines:
        shutil.rmtree(out, ignore_errors=True)
        print("\n".join(lines), file=sys.stderr)
        return None
    return merge_folder(records, out, codes, force=True), kept


def record_merge(args: argparse.Namespace, records: Path, out: Path, merged) -> int:
    """After :func:`merge_checked`: keep the record of the merge, say what was merged and
    what is left to decide; the exit status (1 when the check refused the answers)."""
    if merged is None:
        return 1
    result, kept = merged
    if kept is not None:
        ledger.write_ledger(Path(args.record), ledger.ledger(
            records.name, kept["sheets"], kept["ratings"], sorted(result.applied),
            kept["revisions"]))
    print(summary_line(result.record, str(out)))
    for line in undecided_advice(result, records, out):
        print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
