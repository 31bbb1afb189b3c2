"""Merge the annotators' filled sheets, and the adjudicators' decisions, into a batch in
the upstream layout.

    python -m analysis.labels merge sheets/annotator_1.csv ... --out BATCH
        [--decisions FILE] [--selection CANDIDATES|none]

Semantics (Section III.A/B of the paper):

- ``Label1..LabelN`` are the annotators' own labels in the order the sheets are given
  (sheet k is annotator k), never changed by a decision, so the agreement is computed on
  the independent ratings; an annotator who excluded a candidate without labelling it
  leaves an empty cell (a missing rating).
- ``Final_Label`` is the strict majority label (a theme code given by more than half of
  the N annotators; every ``Final_Label`` of the paper's release is one), or, for a
  report on the adjudication list, the adjudicators' decision
  (:mod:`analysis.labels.decisions`).
- A candidate is excluded (a false positive) when *all* annotators mark it excluded (the
  paper: "All volunteers must agree to exclude a report"), or when the adjudicators
  decide ``excluded``. Excluded candidates are kept in the batch, in
  ``Issue Report/<Project>/<Project>_excluded.csv`` (``Issue_URL, Created_At``), never in
  the label or year files; the clean stage reads them and Table I computes the
  false-positive rate. The file is written for every project, empty when nothing was
  excluded: its presence says the batch records its exclusions.
- ``labels/adjudication.csv`` lists, one row each, the reports without a strict majority
  and those that some but not all annotators excluded (a split on exclusion is not
  settled by the majority: the rule above excludes only when all agree, so the
  adjudicators decide a code or ``excluded``). Columns: url, project, title, created_at,
  each annotator's label, exclusion and comment (``Label<k>``, ``Excluded<k>``,
  ``Comment<k>``), the reason, and ``decision``, empty until decided (filled with the
  decision a ``--decisions`` file gave). Written for a spreadsheet program, like the
  sheets; filled, it is itself a decisions file.
- A report on the list without a decision is undecided: listed, and left out of the
  batch (neither labelled nor excluded) until a decision is given.
- ``labels/comments.csv``: every non-empty comment of every annotator, and the cells of
  any column an annotator added to a sheet (project, url, annotator, column, text), so
  nothing written in a sheet is lost; the label files keep the columns the pipeline reads.
- ``labels/merge.json``: the sheets read (SHA-256, encoding, delimiter, rows, codes
  written in lower case, added columns), the decisions file (SHA-256, decisions applied),
  the selection the sheets were checked against, the annotators, the undecided reports
  and the counts per project.
- Year files ``Issue Report/<Project>/<Project>_<year>.txt``: the label rows' URLs by the
  year of their creation date.

Rows are ordered by project, creation date and URL, whatever order the sheets' rows are
in, so the same sheets and decisions give the same bytes. Nothing is written while any
sheet or decision has a problem (:mod:`analysis.labels.checks`,
:mod:`analysis.labels.decisions`), nor when the sheets hold no row: the batch is built in
a temporary folder next to ``--out`` and moved into place only when complete.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import atomic_folder, recover_folder, to_json_text
from analysis.core.errors import InputError
from analysis.core.paths import DumpLayout
from analysis.core.textsafe import neutralise_cell
from analysis.labels.checks import (
    check_sheets,
    created_at_by_url,
    labels_frame,
    selection_problems,
    sheet_selection,
)
from analysis.labels.decisions import EXCLUDED, Decisions, unused_problems
from analysis.labels.sheets import Sheet, read_sheet

NO_MAJORITY = "no majority"
EXCLUSION_SPLIT = "split on exclusion"
BY_ALL = "all annotators"
BY_DECISION = "decision"
EXCLUDED_HEADER = ["Issue_URL", "Created_At"]
COMMENT_COLUMNS = ["project", "url", "annotator", "column", "text"]
COMMENTS = "comments.csv"  # beside the adjudication list, in the batch's labels/
RULE = ("Final_Label: the label of more than half of the annotators, else the adjudicators' "
        "decision; excluded: when every annotator marks it excluded, or by decision; a "
        "report without a majority or with a split on exclusion is left out until decided")


class SheetProblems(Exception):
    """The sheets have problems (each an :class:`InputError`); nothing was written."""

    def __init__(self, problems: list[InputError]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the sheets")


@dataclass
class MergeResult:
    """The merged candidates: label rows, excluded rows, the adjudication list, the
    comments, the undecided reports and the record."""

    annotators: int
    labels: pd.DataFrame  # project, url, created_at, year, Label1..N, Final_Label, decided
    excluded: pd.DataFrame  # project, url, created_at, by
    adjudication: pd.DataFrame
    comments: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=COMMENT_COLUMNS))
    undecided: list[str] = field(default_factory=list)
    applied: set[str] = field(default_factory=set)
    record: dict = field(default_factory=dict)


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


def reasons(labels: list[str], marks: list[bool], final: str | None) -> list[str]:
    """Why a report goes on the adjudication list (none when it does not)."""
    why = []
    if final is None:
        why.append(f"{NO_MAJORITY} ({label_counts_text(labels) or 'no label'})")
    if any(marks):
        why.append(f"{EXCLUSION_SPLIT} ({sum(marks)} of {len(marks)} excluded)")
    return why


def adjudication_columns(n: int) -> list[str]:
    """The columns of the adjudication list for ``n`` annotators."""
    per = [f"{kind}{k}" for k in range(1, n + 1) for kind in ("Label", "Excluded", "Comment")]
    return ["url", "project", "title", "created_at", *per, "reason", "decision"]


def comment_rows(sheets: list[Sheet]) -> list[dict]:
    """Every non-empty comment, and every cell of a column an annotator added."""
    rows = []
    for k, sheet in enumerate(sheets, 1):
        frame = sheet.rows
        urls = frame["url"].str.strip().tolist()
        projects = frame["project"].str.strip().tolist()
        for i, text in enumerate(frame["comment"].tolist()):
            if text.strip():
                rows.append({"project": projects[i], "url": urls[i], "annotator": k,
                             "column": "comment", "text": text})
        for column in sheet.extras.columns:
            for i, text in enumerate(sheet.extras[column].tolist()):
                if str(text).strip():
                    rows.append({"project": projects[i], "url": urls[i], "annotator": k,
                                 "column": column, "text": text})
    return rows


def fate(labels: list[str], marks: list[bool], decision: str | None
         ) -> tuple[str, str | None, list[str]]:
    """What becomes of one report, and why it is on the adjudication list (empty when it
    is not): (``excluded``, who excluded it), (``labelled``, its final label) or
    (``undecided``, None). Excluded by all annotators; else labelled by the strict
    majority; a report without one, or with a split on exclusion, by its decision."""
    if all(marks):
        return "excluded", BY_ALL, []
    final = strict_majority(labels, len(labels))
    why = reasons(labels, marks, final)
    if not why:
        return "labelled", final, why
    if decision is None:
        return "undecided", None, why
    if decision == EXCLUDED:
        return "excluded", BY_DECISION, why
    return "labelled", decision, why


def combine(sheets: list[Sheet], decisions: Decisions | None = None) -> MergeResult:
    """Combine checked sheets (no problems left) and the decisions into the batch."""
    n = len(sheets)
    frames = [labels_frame(s) for s in sheets]
    comments = [dict(zip(s.rows["url"].str.strip(), s.rows["comment"], strict=True))
                for s in sheets]
    titles = dict(zip(sheets[0].rows["url"].str.strip(), sheets[0].rows["title"],
                      strict=True))
    created = {url: sorted(dates)[0] for url, dates in created_at_by_url(sheets).items()}
    label_cols = [f"Label{k}" for k in range(1, n + 1)]
    rows, excluded, adjudication, undecided, applied = [], [], [], [], set()
    for url in frames[0].index:
        labels = [f.at[url, "label"] for f in frames]
        marks = [bool(f.at[url, "excluded"]) for f in frames]
        project, when = frames[0].at[url, "project"], created[url]
        decision = decisions.get(url) if decisions else None
        kind, value, why = fate(labels, marks, decision)
        if why:
            per = [cell for k in range(n) for cell in
                   (labels[k], "x" if marks[k] else "", comments[k].get(url, ""))]
            adjudication.append(dict(zip(adjudication_columns(n), [
                url, project, titles.get(url, ""), when, *per, "; ".join(why),
                decision or ""], strict=True)))
            if kind == "undecided":
                undecided.append(url)
            else:
                applied.add(url)
        if kind == "excluded":
            excluded.append({"project": project, "url": url, "created_at": when, "by": value})
        elif kind == "labelled":
            rows.append({"project": project, "url": url, "created_at": when,
                         "year": int(when[:4]), **dict(zip(label_cols, labels, strict=True)),
                         "Final_Label": value, "decided": bool(why)})
    order = ["project", "created_at", "url"]
    labels_df = pd.DataFrame(rows, columns=["project", "url", "created_at", "year",
                                            *label_cols, "Final_Label", "decided"])
    labels_df = labels_df.sort_values(order, kind="mergesort").reset_index(drop=True)
    excluded_df = pd.DataFrame(excluded, columns=["project", "url", "created_at", "by"]
                               ).sort_values(order, kind="mergesort").reset_index(drop=True)
    adj_df = pd.DataFrame(adjudication, columns=adjudication_columns(n), dtype=object)
    adj_df = adj_df.sort_values(order, kind="mergesort").reset_index(drop=True)
    comment_df = pd.DataFrame(comment_rows(sheets), columns=COMMENT_COLUMNS)
    if len(comment_df):
        comment_df["when"] = comment_df["url"].map(created)
        comment_df = comment_df.sort_values(["project", "when", "url", "annotator"],
                                            kind="mergesort")[COMMENT_COLUMNS]
    waiting = set(undecided)
    undecided = [u for u in adj_df["url"] if u in waiting]
    return MergeResult(n, labels_df, excluded_df, adj_df, comment_df.reset_index(drop=True),
                       undecided, applied)


def merge_record(sheets: list[Sheet], result: MergeResult, decisions: Decisions | None,
                 selection: dict) -> dict:
    """What the merge read and produced (``labels/merge.json``)."""
    labels, excluded, adjudication = result.labels, result.excluded, result.adjudication
    undecided = set(result.undecided)
    projects = sorted(set(labels["project"]) | set(excluded["project"])
                      | set(adjudication["project"]))
    per_project = {}
    for p in projects:
        mine = labels[labels["project"] == p]
        gone = excluded[excluded["project"] == p]
        adj = adjudication[adjudication["project"] == p]
        waiting = int(adj["url"].isin(undecided).sum())
        per_project[p] = {
            "candidates": int(len(mine) + len(gone) + waiting),
            "labelled": int(len(mine)),
            "with_majority": int((~mine["decided"]).sum()),
            "decided": int(mine["decided"].sum() + (gone["by"] == BY_DECISION).sum()),
            "excluded": int(len(gone)),
            "excluded_by_all": int((gone["by"] == BY_ALL).sum()),
            "excluded_by_decision": int((gone["by"] == BY_DECISION).sum()),
            "no_majority": int(adj["reason"].str.contains(NO_MAJORITY, regex=False).sum()),
            "exclusion_splits": int(
                adj["reason"].str.contains(EXCLUSION_SPLIT, regex=False).sum()),
            "undecided": waiting,
        }
    return {
        "annotators": len(sheets),
        "rule": RULE,
        "selection": sheet_selection(sheets[0]),
        "selection_check": selection,
        "sheets": [{"annotator": k, "file": Path(s.name).name, "sha256": s.sha256,
                    "encoding": s.encoding, "delimiter": s.delimiter, "rows": len(s.rows),
                    "blank_rows": s.blank_rows, "lowercase_codes": s.lowercase_codes,
                    "extra_columns": list(s.extras.columns), "notes": s.notes}
                   for k, s in enumerate(sheets, 1)],
        "decisions": None if decisions is None else {
            "file": decisions.name, "sha256": decisions.sha256, "rows": decisions.rows,
            "decided": len(decisions.by_url), "applied": len(result.applied),
            "lowercase_codes": decisions.lowercase_codes},
        "projects": per_project,
        "candidates": sum(v["candidates"] for v in per_project.values()),
        "labelled": len(labels),
        "excluded": len(excluded),
        "adjudication": len(adjudication),
        "undecided": len(result.undecided),
        "undecided_urls": result.undecided,
        "comments": len(result.comments),
    }


def csv_text(header: list[str], rows: list[list[str]], lineterminator: str = "\n") -> str:
    """Rows as CSV text (quoted where needed)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=lineterminator)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def spreadsheet_csv(frame: pd.DataFrame) -> bytes:
    """A record for people to open in a spreadsheet program: BOM, CRLF, neutralised
    cells (as the sheets)."""
    return codecs.BOM_UTF8 + csv_text(
        list(frame.columns), [[neutralise_cell(str(c)) for c in row] for row in frame.values],
        lineterminator="\r\n").encode("utf-8")


def dump_files(result: MergeResult) -> dict[Path, bytes]:
    """Every file of the batch, by its path relative to the batch's folder. A project
    gets its folder when it has a label row or an excluded candidate (all excluded: an
    empty label file with its header, and the excluded file)."""
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
    files[layout.adjudication] = spreadsheet_csv(result.adjudication)
    files[layout.labels / COMMENTS] = spreadsheet_csv(result.comments)
    files[layout.merge_record] = to_json_text(result.record).encode("utf-8")
    return files


# What a merge writes into --out (the dump's top-level folders): all that --force replaces.
MERGE_FOLDERS = (DumpLayout(Path()).issue_reports.name, DumpLayout(Path()).labels.name)


def check_out(out: Path, force: bool) -> None:
    """Refuse an ``--out`` that is a file or holds other files than a merge writes; an
    earlier merge is replaced only with ``force``. An earlier merge a killed run had moved
    aside is put back first (:func:`recover_folder`)."""
    recover_folder(out)
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


def write_folder(files: dict[Path | str, bytes | Callable[[Path], object]], out: Path,
                 what: str) -> None:
    """Write ``files`` (relative path -> bytes, or a function that writes the new file it
    is given: a copy) as the folder ``out``, all at once: built in a working folder of its
    own (:func:`atomic_folder`) and moved into place when complete (an earlier ``out``
    replaced). A full disk or a folder that cannot be written is one message naming
    ``what``."""
    try:
        with atomic_folder(out, public=False) as staged:
            for rel, data in files.items():
                target = staged / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                if isinstance(data, bytes):
                    target.write_bytes(data)
                else:
                    data(target)
    except OSError as exc:
        raise InputError(f"cannot write the {what} ({exc.strerror})", file=str(out),
                         fix="check the free space and the folder's permissions") from exc


def write_dump(files: dict[Path, bytes], out: Path, force: bool = False) -> None:
    """Write the batch's files into ``out`` (:func:`write_folder`). An existing ``out``
    that is not empty is refused unless ``force``; then it is replaced."""
    out = Path(out)
    check_out(out, force)
    write_folder(files, out, "batch")


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
                 names: list[str] | None = None, decisions: Decisions | None = None,
                 selection: pd.DataFrame | None = None,
                 selection_name: str | None = None) -> MergeResult:
    """Read, check, combine and write: the whole merge. Raises :class:`SheetProblems`
    (every problem) and writes nothing when any sheet, the sheets against their
    ``selection`` (the candidates select wrote; None: not checked) or a decision has one,
    or when the sheets hold no row."""
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
    if not problems and selection is not None:
        problems = selection_problems(sheets, selection, selection_name or "candidates.csv")
    rows = any(len(s.rows) for s in sheets)
    # checked sheets give the adjudication list, which the decisions are checked against
    result = combine(sheets, decisions) if not problems and rows else None
    if decisions is not None:  # every problem of the decisions file at once
        problems += decisions.problems
        if result is not None:
            problems += unused_problems(decisions, set(labels_frame(sheets[0]).index),
                                        set(result.adjudication["url"]))
    if problems:
        raise SheetProblems(problems)
    if result is None:
        raise SheetProblems([InputError("the sheets hold no rows: nothing to merge, nothing "
                                        "written", file=sheets[0].name,
                                        fix="give the sheets labels sheets wrote, filled")])
    checked = {"checked": selection is not None,
               "candidates": Path(selection_name).name if selection_name else None}
    result.record = merge_record(sheets, result, decisions, checked)
    write_dump(dump_files(result), out, force=force)
    return result
