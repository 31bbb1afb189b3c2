"""The ``merge`` stage, one a batch (DVC's ``foreach`` over ``study.batches``): a batch's
records merged into a batch in the upstream layout.

    python -m analysis.study.batch labels/<batch> --out build/merged/<batch>

The records' folder is merged as ``labels merge`` merges the files it is given
(:func:`analysis.labels.merge.merge_folder`: the filled sheets or the Label Studio export,
checked against the candidates, with the decisions). A problem of the records is one line
each (file, line, column, what, what to do), and the stage fails with nothing written.
Reports the annotators did not settle and no decision settles are left out of the batch,
and the stage says where to decide them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.core.errors import InputError, user_error_line
from analysis.core.paths import PATHS, DumpLayout
from analysis.core.taxonomy import load_taxonomy
from analysis.labels.__main__ import summary_line
from analysis.labels.merge import SheetProblems, merge_folder

PROG = "merge"


def undecided_advice(result, records: Path, out: Path) -> list[str]:
    """What to do about the reports left undecided: decide them in the records."""
    if not result.undecided:
        return []
    return [f"{PROG}: {len(result.undecided):,} report(s) undecided, left out of the batch: "
            f"copy {DumpLayout(out).adjudication} to {records / 'decisions.csv'}, write a theme "
            "code or excluded in its decision column, and run the pipeline again"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.study.batch",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("records", help="the batch's records folder (labels/<batch>)")
    parser.add_argument("--out", required=True, help="the merged batch's folder")
    parser.add_argument("--taxonomy", default=str(PATHS.taxonomy_file),
                        help="the theme codes (default: %(default)s)")
    args = parser.parse_args(argv)
    records, out = Path(args.records), Path(args.out)
    try:
        codes = set(load_taxonomy(args.taxonomy).codes)
        result = merge_folder(records, out, codes, force=True)
    except (InputError, OSError) as exc:
        print(user_error_line(PROG, exc), file=sys.stderr)
        return 1
    except SheetProblems as exc:
        print("\n".join(exc.lines(PROG, str(records))), file=sys.stderr)
        return 1
    print(summary_line(result.record, str(out)))
    for line in undecided_advice(result, records, out):
        print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
