"""Merge the annotators' filled sheets into a dump in the upstream layout.

    python -m analysis.labels merge sheets/annotator_1.csv ... --out newdump

Semantics (Section III.A/B of the paper):

- ``Label1..LabelN`` are the annotators' labels in the order the sheets are given (sheet
  k is annotator k); an annotator who excluded a candidate without labelling it leaves
  an empty cell (a missing rating).
- ``Final_Label`` is the strict majority label: a theme code given by more than half of
  the N annotators (every ``Final_Label`` of the paper's release is one; the clean stage
  flags a final label that is not the majority). Without one the cell stays empty and the
  candidate goes on the adjudication list; the clean stage sets such rows aside
  (``missing_final_label``) until a final label is written into the label file.
- A candidate is excluded (a false positive) only when *all* annotators mark it excluded
  (the paper: "All volunteers must agree to exclude a report"). Excluded candidates are
  kept in the dump, in ``Issue Report/<Project>/<Project>_excluded.csv``
  (``Issue_URL, Created_At``), never in the label or year files, so they are never
  counted as issues; the clean stage reads them and Table I computes the false-positive
  rate (excluded / candidates). The file is written for every project, empty when
  nothing was excluded: its presence says the dump records its exclusions.
- A candidate that some but not all annotators exclude is kept (not excluded) and goes
  on the adjudication list too.
- ``labels/adjudication.csv``: project, URL, creation date, the N labels, the count of
  each label, how many annotators excluded it, and why it is listed (``no majority``,
  ``disagreement on exclusion``). Written for a spreadsheet program, like the sheets.
- ``labels/merge.json``: the sheets read (SHA-256, encoding, delimiter, rows), the
  annotators, the selection id and the counts per project.
- Year files ``Issue Report/<Project>/<Project>_<year>.txt``: the label rows' URLs by the
  year of their creation date.

Rows are ordered by project, creation date and URL, whatever order the sheets' rows are
in, so the same sheets give the same bytes. Nothing is written while any sheet has a
problem (:mod:`analysis.labels.checks`): the dump is built in a temporary folder next to
``--out`` and moved into place only when complete.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import atomic_folder, to_json_text
from analysis.core.errors import InputError
from analysis.core.paths import DumpLayout
from analysis.core.textsafe import neutralise_cell
from analysis.labels.checks import (
    check_sheets,
    created_at_by_url,
    labels_frame,
    sheet_selection,
)
from analysis.labels.sheets import Sheet, read_sheet

NO_MAJORITY = "no majority"
EXCLUSION_SPLIT = "disagreement on exclusion"
EXCLUDED_HEADER = ["Issue_URL", "Created_At"]
RULE = ("Final_Label: the label of more than half of the annotators, else empty (listed "
        "for adjudication); excluded: only when every annotator marks it excluded")


class SheetProblems(Exception):
    """The sheets have problems (each an :class:`InputError`); nothing was written."""

    def __init__(self, problems: list[InputError]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the sheets")


@dataclass
class MergeResult:
    """The merged candidates: label rows, excluded rows, the adjudication list, the
    record."""

    annotators: int
    labels: pd.DataFrame  # project, url, created_at, year, Label1..N, Final_Label
    excluded: pd.DataFrame  # project, url, created_at
    adjudication: pd.DataFrame
    record: dict


def strict_majority(labels: list[str], annotators: int) -> str | None:
    """The label more than half of the ``annotators`` gave (empty labels are no vote)."""
    counts = Counter(x for x in labels if x)
    if not counts:
        return None
    code, n = counts.most_common(1)[0]
    return code if 2 * n > annotators else None


def label_counts_text(labels: list[str]) -> str:
    """The count of each label, most frequent first (``C.3: 2; C.5: 1``)."""
    counts = Counter(x for x in labels if x)
    return "; ".join(f"{code}: {n}" for code, n in sorted(counts.items(),
                                                          key=lambda kv: (-kv[1], kv[0])))


def combine(sheets: list[Sheet]) -> MergeResult:
    """Combine checked sheets (no problems left) into the merged candidates."""
    n = len(sheets)
    frames = [labels_frame(s) for s in sheets]
    created = {url: sorted(dates)[0] for url, dates in created_at_by_url(sheets).items()}
    label_cols = [f"Label{k}" for k in range(1, n + 1)]
    rows, excluded, adjudication = [], [], []
    for url in frames[0].index:
        labels = [f.at[url, "label"] for f in frames]
        marks = [bool(f.at[url, "excluded"]) for f in frames]
        project = frames[0].at[url, "project"]
        when = created[url]
        if all(marks):
            excluded.append({"project": project, "url": url, "created_at": when})
            continue
        final = strict_majority(labels, n)
        rows.append({"project": project, "url": url, "created_at": when,
                     "year": int(when[:4]), **dict(zip(label_cols, labels, strict=True)),
                     "Final_Label": final or ""})
        why = ([NO_MAJORITY] if final is None else []) + (
            [EXCLUSION_SPLIT] if any(marks) else [])
        if why:
            adjudication.append({"project": project, "Issue_URL": url, "created_at": when,
                                 **dict(zip(label_cols, labels, strict=True)),
                                 "label_counts": label_counts_text(labels),
                                 "excluded_by": f"{sum(marks)} of {n}",
                                 "why": "; ".join(why)})
    order = ["project", "created_at", "url"]
    labels_df = pd.DataFrame(rows, columns=["project", "url", "created_at", "year",
                                            *label_cols, "Final_Label"])
    labels_df = labels_df.sort_values(order, kind="mergesort").reset_index(drop=True)
    excluded_df = pd.DataFrame(excluded, columns=["project", "url", "created_at"]
                               ).sort_values(order, kind="mergesort").reset_index(drop=True)
    adj_df = pd.DataFrame(adjudication, columns=["project", "Issue_URL", "created_at",
                                                 *label_cols, "label_counts", "excluded_by",
                                                 "why"])
    adj_df = adj_df.sort_values(["project", "created_at", "Issue_URL"],
                                kind="mergesort").reset_index(drop=True)
    record = merge_record(sheets, labels_df, excluded_df, adj_df)
    return MergeResult(n, labels_df, excluded_df, adj_df, record)


def merge_record(sheets: list[Sheet], labels: pd.DataFrame, excluded: pd.DataFrame,
                 adjudication: pd.DataFrame) -> dict:
    """What the merge read and produced (``labels/merge.json``)."""
    projects = sorted(set(labels["project"]) | set(excluded["project"]))
    per_project = {}
    for p in projects:
        mine = labels[labels["project"] == p]
        adj = adjudication[adjudication["project"] == p]
        per_project[p] = {
            "candidates": int(len(mine) + (excluded["project"] == p).sum()),
            "labelled": int(len(mine)),
            "with_majority": int((mine["Final_Label"] != "").sum()),
            "no_majority": int(adj["why"].str.contains(NO_MAJORITY, regex=False).sum()),
            "exclusion_disagreements": int(
                adj["why"].str.contains(EXCLUSION_SPLIT, regex=False).sum()),
            "excluded": int((excluded["project"] == p).sum()),
        }
    return {
        "annotators": len(sheets),
        "rule": RULE,
        "selection": sheet_selection(sheets[0]),
        "sheets": [{"annotator": k, "file": Path(s.name).name, "sha256": s.sha256,
                    "encoding": s.encoding, "delimiter": s.delimiter, "rows": len(s.rows),
                    "blank_rows": s.blank_rows, "notes": s.notes}
                   for k, s in enumerate(sheets, 1)],
        "projects": per_project,
        "candidates": sum(v["candidates"] for v in per_project.values()),
        "excluded": len(excluded),
        "adjudication": len(adjudication),
    }


def csv_text(header: list[str], rows: list[list[str]], lineterminator: str = "\n") -> str:
    """Rows as CSV text (quoted where needed)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=lineterminator)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def dump_files(result: MergeResult) -> dict[Path, bytes]:
    """Every file of the merged dump, by its path relative to the dump's folder."""
    layout = DumpLayout(Path())
    label_cols = [f"Label{k}" for k in range(1, result.annotators + 1)]
    files: dict[Path, bytes] = {}
    projects = sorted(set(result.labels["project"]) | set(result.excluded["project"]))
    for p in projects:
        mine = result.labels[result.labels["project"] == p]
        files[layout.label_file(p)] = csv_text(
            ["Issue_URL", *label_cols, "Final_Label"],
            mine[["url", *label_cols, "Final_Label"]].values.tolist()).encode("utf-8")
        for year, group in mine.groupby("year", sort=True):
            files[layout.year_file(p, int(year))] = "".join(
                f"{u}\n" for u in group["url"]).encode("utf-8")
        gone = result.excluded[result.excluded["project"] == p]
        files[layout.excluded_file(p)] = csv_text(
            EXCLUDED_HEADER, gone[["url", "created_at"]].values.tolist()).encode("utf-8")
    adj = result.adjudication
    files[layout.adjudication] = codecs.BOM_UTF8 + csv_text(
        list(adj.columns), [[neutralise_cell(str(c)) for c in row] for row in adj.values],
        lineterminator="\r\n").encode("utf-8")
    files[layout.merge_record] = to_json_text(result.record).encode("utf-8")
    return files


# What a merge writes into --out (the dump's top-level folders): all that --force replaces.
MERGE_FOLDERS = (DumpLayout(Path()).issue_reports.name, DumpLayout(Path()).labels.name)


def check_out(out: Path, force: bool) -> None:
    """Refuse an ``--out`` that is a file or holds other files than a merge writes; an
    earlier merge is replaced only with ``force``."""
    if out.exists() and not out.is_dir():
        raise InputError("--out is a file, not a folder", file=str(out),
                         fix="give a folder for the merged dump")
    if not (out.is_dir() and any(out.iterdir())):
        return
    others = sorted(p.name for p in out.iterdir() if p.name not in MERGE_FOLDERS)
    if others:  # --force replaces an earlier merge, never the annotators' or other files
        raise InputError(f"the folder holds files a merge did not write "
                         f"({', '.join(others[:5])})", file=str(out),
                         fix="choose a new or empty folder for the merged dump")
    if not force:
        raise InputError("the folder holds an earlier merge", file=str(out),
                         fix="choose another --out, or pass --force to replace it")


def write_dump(files: dict[Path, bytes], out: Path, force: bool = False) -> None:
    """Write the dump's files into ``out`` all at once: built in a temporary folder next
    to it, moved into place when complete. An existing ``out`` that is not empty is
    refused unless ``force``; then it is replaced."""
    out = Path(out)
    check_out(out, force)
    try:
        with atomic_folder(out, public=False) as staged:
            for rel, data in files.items():
                target = staged / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    except OSError as exc:
        raise InputError(f"cannot write the dump ({exc.strerror})", file=str(out),
                         fix="check the free space and the folder's permissions") from exc


def read_sheets(paths: list[Path], names: list[str] | None = None
                ) -> tuple[list[Sheet], list[InputError]]:
    """Read every sheet; a sheet that cannot be read at all is one problem."""
    sheets, problems = [], []
    for path, name in zip(paths, names or [str(p) for p in paths], strict=True):
        try:
            sheets.append(read_sheet(Path(path), name))
        except InputError as exc:
            problems.append(exc)
    return sheets, problems


def merge_sheets(paths: list[Path], out: Path, codes: set[str], force: bool = False,
                 names: list[str] | None = None) -> MergeResult:
    """Read, check, combine and write: the whole merge. Raises :class:`SheetProblems`
    (every problem) and writes nothing when any sheet has one."""
    if not paths:
        raise SheetProblems([InputError("no sheets given",
                                        fix="give every annotator's filled sheet")])
    try:
        check_out(Path(out), force)
    except InputError as exc:
        raise SheetProblems([exc]) from exc
    sheets, problems = read_sheets(paths, names)
    if not problems:
        problems = check_sheets(sheets, codes, [Path(p) for p in paths])
    if problems:
        raise SheetProblems(problems)
    result = combine(sheets)
    write_dump(dump_files(result), out, force=force)
    return result
