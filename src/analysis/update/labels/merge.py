"""Merge the annotators' labels, and the adjudicators' decisions, into a batch in the
upstream layout.

    python -m analysis.update.labels merge INPUT ... --out BATCH
        [--decisions FILE] [--selection CANDIDATES|none]

An input is a filled sheet (one annotator) or a Label Studio export (every annotator of
the project); each is read into the one table of annotations
(:mod:`analysis.update.labels.readers`, :mod:`analysis.update.labels.annotations`), the tables are
checked together (:func:`analysis.update.labels.checks.table_problems`) and this module combines
them, whichever reader they came from: the same answers give the same batch, byte for
byte, from sheets or from Label Studio (only ``labels/sources.json``, which names the
files read, differs). :func:`merge_inputs` does it all in one call, and
:func:`merge_folder` for a batch's folder of records (its candidates, its filled sheets or
Label Studio export, its decisions).

Semantics (Section III.A/B of the paper):

- ``Label1..LabelN`` are the annotators' own labels in the order the inputs give them
  (sheet k is annotator k; an export's annotators in its project's order), never changed
  by a decision, so the agreement is computed on the independent ratings; an annotator
  who excluded a candidate without labelling it, or was unsure, leaves an empty cell (a
  missing rating: ``unsure`` is never a theme in a kappa).
- ``Final_Label`` is the strict majority label (a theme code given by more than half of
  the N annotators; every ``Final_Label`` of the paper's release is one), or, for a
  report on the adjudication list, the adjudicators' decision
  (:mod:`analysis.update.labels.decisions`).
- A candidate is excluded (a false positive) when *all* annotators mark it excluded (the
  paper: "All volunteers must agree to exclude a report"), or when the adjudicators
  decide ``excluded``. Excluded candidates are kept in the batch, in
  ``Issue Report/<Project>/<Project>_excluded.csv`` (``Issue_URL, Created_At``), never in
  the label or year files; the clean stage reads them and Table I computes the
  false-positive rate. The file is written for every project, empty when nothing was
  excluded: its presence says the batch records its exclusions.
- ``labels/adjudication.csv`` lists, one row each, the reports without a strict majority,
  those that some but not all annotators excluded (a split on exclusion is not settled by
  the majority: the rule above excludes only when all agree, so the adjudicators decide a
  code or ``excluded``), and those an annotator was unsure of. Columns: url, project,
  title, created_at, each annotator's label (``unsure`` when unsure), exclusion and comment
  (``Label<k>``, ``Excluded<k>``, ``Comment<k>``), the reason, and ``decision``, empty
  until decided (filled with the decision a ``--decisions`` file gave). Written for a
  spreadsheet program, like the sheets; filled, it is itself a decisions file.
- A report on the list without a decision is undecided: listed, and left out of the
  batch (neither labelled nor excluded) until a decision is given.
- ``labels/annotations.csv``: every annotation (annotator number and name, label,
  excluded, unsure, confidence, seconds spent); ``labels/comments.csv``: every non-empty
  comment, and the cells of any column an annotator added to a sheet (project, url,
  annotator, column, text), so nothing written is lost; the label files keep the columns
  the pipeline reads.
- ``labels/merge.json``: the annotators (number and names), the selection checked, the
  decisions file (SHA-256, decisions applied), the undecided reports and the counts per
  project and per annotator; ``labels/sources.json``: the files read (kind, SHA-256,
  encoding, delimiter, rows, codes in lower case, added columns, cancelled annotations).
- Year files ``Issue Report/<Project>/<Project>_<year>.txt``: the label rows' URLs by the
  year of their creation date.

Rows are ordered by project, creation date and URL, whatever order the inputs' rows are
in, so the same answers and decisions give the same bytes. Nothing is written while any
input or decision has a problem, nor when the inputs hold no row: the batch is built in a
temporary folder next to ``--out`` and moved into place only when complete.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.core import csvtext
from analysis.core.artifacts import atomic_folder, recover_folder, to_json_text
from analysis.core.batchfiles import read_record, read_record_file, walk_records
from analysis.core.dumpfiles import DumpFiles
from analysis.core.errors import InputError
from analysis.core.paths import DumpLayout, SheetPaths, StudioPaths
from analysis.core.people import NAME_FIX, name_problem, normal_name
from analysis.update.labels.annotations import Read, created_at_by_url
from analysis.update.labels.checks import table_problems
from analysis.update.labels.codebook import UNSURE
from analysis.update.labels.decisions import EXCLUDED, Decisions, read_decisions, unused_problems
from analysis.update.labels.readers import read_input
from analysis.update.labels.tables import read_candidates, spreadsheet_csv

NO_MAJORITY = "no majority"
EXCLUSION_SPLIT = "split on exclusion"
UNSURE_REASON = "unsure"
BY_ALL = "all annotators"
BY_DECISION = "decision"
EXCLUDED_HEADER = ["Issue_URL", "Created_At"]
COMMENT_COLUMNS = ["project", "url", "annotator", "column", "text"]
ANNOTATION_FILE_COLUMNS = ["project", "url", "annotator", "name", "label", "excluded",
                           "unsure", "confidence", "seconds"]
COMMENTS = "comments.csv"  # beside the adjudication list, in the batch's labels/
ANNOTATIONS = "annotations.csv"
SOURCES = "sources.json"
READER = "labels merge"  # who reads a batch's records, in messages
RULE = ("Final_Label: the label of more than half of the annotators, else the adjudicators' "
        "decision; excluded: when every annotator marks it excluded, or by decision; a "
        "report without a majority, with a split on exclusion or that an annotator was "
        "unsure of is left out until decided")


class SheetProblems(Exception):
    """The inputs have problems (each an :class:`InputError`); nothing was written."""

    def __init__(self, problems: list[InputError]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the sheets")

    def lines(self, prog: str, where: str = "") -> list[str]:
        """The messages a command prints: one line a problem, then how many and that
        nothing was written (``where``: the folder they are in, when one was named)."""
        place = f" in {where}" if where else ""
        return [*(f"{prog}: {problem}" for problem in self.problems),
                f"{prog}: {len(self.problems)} problem(s){place}; nothing written"]


@dataclass
class MergeResult:
    """The merged candidates: label rows, excluded rows, the adjudication list, the
    annotations, the comments, the undecided reports and the records."""

    annotators: list[str]
    labels: pd.DataFrame  # project, url, created_at, year, Label1..N, Final_Label, decided
    excluded: pd.DataFrame  # project, url, created_at, by
    adjudication: pd.DataFrame
    annotations: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=ANNOTATION_FILE_COLUMNS))
    comments: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=COMMENT_COLUMNS))
    undecided: list[str] = field(default_factory=list)
    applied: set[str] = field(default_factory=set)
    record: dict = field(default_factory=dict)
    sources: list[dict] = field(default_factory=list)


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


def reasons(labels: list[str], marks: list[bool], final: str | None,
            unsure: list[bool] | None = None) -> list[str]:
    """Why a report goes on the adjudication list (none when it does not)."""
    why = []
    if final is None:
        why.append(f"{NO_MAJORITY} ({label_counts_text(labels) or 'no label'})")
    if any(marks):
        why.append(f"{EXCLUSION_SPLIT} ({sum(marks)} of {len(marks)} excluded)")
    if unsure and any(unsure):
        why.append(f"{UNSURE_REASON} ({sum(unsure)} of {len(unsure)})")
    return why


def adjudication_columns(annotators: int | list[str]) -> list[str]:
    """The columns of the adjudication list for ``annotators`` (their names, or how many):
    each named annotator's answer under the name the study gives them (``alice label``,
    ``alice excluded``, ``alice comment``), an unnamed one's by number (``Label1``...)."""
    names = [f"#{k}" for k in range(1, annotators + 1)] if isinstance(annotators, int) \
        else list(annotators)
    per = [f"{kind}{k}" if name.startswith("#") else f"{name} {kind.lower()}"
           for k, name in enumerate(names, 1) for kind in ("Label", "Excluded", "Comment")]
    return ["url", "project", "title", "created_at", *per, "reason", "decision"]


def fate(labels: list[str], marks: list[bool], decision: str | None,
         unsure: list[bool] | None = None) -> tuple[str, str | None, list[str]]:
    """What becomes of one report, and why it is on the adjudication list (empty when it
    is not): (``excluded``, who excluded it), (``labelled``, its final label) or
    (``undecided``, None). Excluded by all annotators; else labelled by the strict
    majority; a report without one, with a split on exclusion or that an annotator was
    unsure of, by its decision."""
    if all(marks):
        return "excluded", BY_ALL, []
    final = strict_majority(labels, len(labels))
    why = reasons(labels, marks, final, unsure)
    if not why:
        return "labelled", final, why
    if decision is None:
        return "undecided", None, why
    if decision == EXCLUDED:
        return "excluded", BY_DECISION, why
    return "labelled", decision, why


def ordered(frame: pd.DataFrame, columns: list[str], extra: list[str] | None = None
            ) -> pd.DataFrame:
    """``frame`` sorted by project, creation date and URL (then ``extra``), stably."""
    return frame.sort_values(["project", "created_at", "url", *(extra or [])],
                             kind="mergesort").reset_index(drop=True)[columns]


def annotation_rows(table: pd.DataFrame, number: dict[str, int],
                    created: dict[str, str]) -> pd.DataFrame:
    """Every annotation as ``labels/annotations.csv`` holds it."""
    frame = pd.DataFrame({
        "project": table["project"], "url": table["url"],
        "annotator": table["annotator"].map(number), "name": table["annotator"],
        "label": table["label"], "excluded": table["excluded"].map({True: "x", False: ""}),
        "unsure": table["unsure"].map({True: "x", False: ""}),
        "confidence": table["confidence"],
        "seconds": [("" if s is None or pd.isna(s) else str(int(s))) for s in table["seconds"]],
        "created_at": table["url"].map(created)})
    return ordered(frame, ANNOTATION_FILE_COLUMNS, ["annotator"])


def comment_rows(table: pd.DataFrame, extras: pd.DataFrame, number: dict[str, int],
                 created: dict[str, str]) -> pd.DataFrame:
    """Every non-empty comment, and every cell of a column an annotator added."""
    said = table[table["comment"].str.strip() != ""]
    rows = pd.concat([
        pd.DataFrame({"project": said["project"], "url": said["url"],
                      "annotator": said["annotator"], "column": "comment",
                      "text": said["comment"]}),
        extras[COMMENT_COLUMNS]], ignore_index=True)
    rows["annotator"] = rows["annotator"].map(number)
    rows["created_at"] = rows["url"].map(created)
    rows["order"] = range(len(rows))  # comments before added cells, as read
    return ordered(rows, COMMENT_COLUMNS, ["annotator", "order"])


def combine(table: pd.DataFrame, annotators: list[str], decisions: Decisions | None = None,
            extras: pd.DataFrame | None = None,
            titles: dict[str, str] | None = None) -> MergeResult:
    """Combine checked annotations (no problems left: every annotator answered every
    candidate once) and the decisions into the batch; ``titles``: the candidates' titles
    (else the first annotator's rows')."""
    n = len(annotators)
    number = {a: k for k, a in enumerate(annotators, 1)}
    by = {a: table[table["annotator"] == a].set_index("url") for a in annotators}
    first = by[annotators[0]]
    titles = titles or dict(zip(first.index, first["title"], strict=True))
    created = {url: sorted(dates)[0] for url, dates in created_at_by_url(table).items()}
    label_cols = [f"Label{k}" for k in range(1, n + 1)]
    rows, excluded, adjudication, undecided, applied = [], [], [], [], set()
    for url in first.index:
        answers = [by[a].loc[url] for a in annotators]
        labels = [x["label"] for x in answers]
        marks = [bool(x["excluded"]) for x in answers]
        unsure = [bool(x["unsure"]) for x in answers]
        project, when = first.at[url, "project"], created[url]
        decision = decisions.get(url) if decisions else None
        kind, value, why = fate(labels, marks, decision, unsure)
        if why:
            per = [cell for x in answers for cell in
                   (UNSURE if x["unsure"] and not x["label"] else x["label"],
                    "x" if x["excluded"] else "", x["comment"])]
            adjudication.append(dict(zip(adjudication_columns(annotators), [
                url, project, titles.get(url, ""), when, *per, "; ".join(why),
                decision or ""], strict=True)))
            (undecided.append(url) if kind == "undecided" else applied.add(url))
        if kind == "excluded":
            excluded.append({"project": project, "url": url, "created_at": when, "by": value})
        elif kind == "labelled":
            rows.append({"project": project, "url": url, "created_at": when,
                         "year": int(when[:4]), **dict(zip(label_cols, labels, strict=True)),
                         "Final_Label": value, "decided": bool(why)})
    columns = ["project", "url", "created_at", "year", *label_cols, "Final_Label", "decided"]
    labels_df = ordered(pd.DataFrame(rows, columns=columns), columns)
    excluded_df = ordered(pd.DataFrame(excluded, columns=["project", "url", "created_at",
                                                          "by"]),
                          ["project", "url", "created_at", "by"])
    adj_df = ordered(pd.DataFrame(adjudication, columns=adjudication_columns(annotators),
                                  dtype=object), adjudication_columns(annotators))
    extras = extras if extras is not None else pd.DataFrame(columns=COMMENT_COLUMNS)
    waiting = set(undecided)
    return MergeResult(annotators, labels_df, excluded_df, adj_df,
                       annotation_rows(table, number, created),
                       comment_rows(table, extras, number, created),
                       [u for u in adj_df["url"] if u in waiting], applied)


def per_annotator(table: pd.DataFrame, annotators: list[str]) -> list[dict]:
    """Each annotator's answers in a few numbers."""
    out = []
    for k, a in enumerate(annotators, 1):
        mine = table[table["annotator"] == a]
        seconds = [int(s) for s in mine["seconds"] if s is not None and not pd.isna(s)]
        out.append({"annotator": k, "name": None if a.startswith("#") else a,
                    "labelled": int((mine["label"] != "").sum()),
                    "excluded": int(mine["excluded"].astype(bool).sum()),
                    "unsure": int(mine["unsure"].astype(bool).sum()),
                    "confidence": {c: int(n) for c, n in sorted(Counter(
                        c for c in mine["confidence"] if c).items())},
                    "seconds": sum(seconds), "timed": len(seconds)})
    return out


def merge_record(table: pd.DataFrame, result: MergeResult, decisions: Decisions | None,
                 selection: dict) -> dict:
    """What the merge read and produced (``labels/merge.json``): nothing in it depends on
    the kind of the inputs (``labels/sources.json`` names them)."""
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
            "unsure": int(adj["reason"].str.contains(UNSURE_REASON, regex=False).sum()),
            "undecided": waiting,
        }
    names = result.annotators
    return {
        "annotators": len(names),
        "annotator_names": [None if a.startswith("#") else a for a in names],
        "rule": RULE,
        "selection": selection.get("id"),
        "selection_check": {k: v for k, v in selection.items() if k != "id"},
        "decisions": None if decisions is None else {
            "file": decisions.name, "sha256": decisions.sha256, "rows": decisions.rows,
            "decided": len(decisions.by_url), "applied": len(result.applied),
            "lowercase_codes": decisions.lowercase_codes},
        "per_annotator": per_annotator(table, names),
        "projects": per_project,
        "candidates": sum(v["candidates"] for v in per_project.values()),
        "labelled": len(labels),
        "excluded": len(excluded),
        "adjudication": len(adjudication),
        "undecided": len(result.undecided),
        "undecided_urls": result.undecided,
        "comments": len(result.comments),
    }


def sources_record(reads: list[Read]) -> list[dict]:
    """What each input was (``labels/sources.json``)."""
    return [{"file": Path(r.source.name).name, "kind": r.source.kind,
             "sha256": r.source.sha256, "annotators": r.source.annotators,
             **r.source.facts, "notes": r.source.notes} for r in reads]


def csv_text(header: list[str], rows: list[list[str]], lineterminator: str = "\n") -> str:
    """Rows as CSV text (quoted where needed: :func:`analysis.core.csvtext.csv_text`)."""
    return csvtext.csv_text([header, *rows], lineterminator)


def dump_files(result: MergeResult) -> dict[Path, bytes]:
    """Every file of the batch, by its path relative to the batch's folder. A project
    gets its folder when it has a label row or an excluded candidate (all excluded: an
    empty label file with its header, and the excluded file)."""
    layout = DumpLayout(Path())
    label_cols = [f"Label{k}" for k in range(1, len(result.annotators) + 1)]
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
    files[layout.labels / ANNOTATIONS] = spreadsheet_csv(result.annotations)
    files[layout.labels / COMMENTS] = spreadsheet_csv(result.comments)
    files[layout.merge_record] = to_json_text(result.record).encode("utf-8")
    files[layout.labels / SOURCES] = to_json_text(
        {"sources": result.sources}).encode("utf-8")
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


def read_inputs(paths: list[Path], names: list[str] | None = None,
                codes: set[str] | None = None,
                raws: list[bytes] | None = None) -> tuple[list[Read], list[InputError]]:
    """Read every input by its reader (``raws``: their bytes, when read already); one
    that cannot be read at all is one problem."""
    reads, problems = [], []
    raws = raws or [None] * len(paths)
    for place, (path, name, raw) in enumerate(zip(
            paths, names or [str(p) for p in paths], raws, strict=True), 1):
        try:
            reads.append(same_people(read_input(Path(path), name, codes, place, raw)))
        except InputError as exc:
            problems.append(exc)
    return reads, problems


def same_people(read: Read) -> Read:
    """``read`` with its annotators' names in NFKC form, whichever reader gave them
    (:mod:`analysis.core.people`: a fullwidth ``Ａｎｎ`` is ``Ann``); a name mixing
    scripts is one :class:`InputError` naming the file."""
    for who in read.source.annotators:
        problem = name_problem(normal_name(who))
        if problem:
            raise InputError(problem, file=read.source.name, column="annotator", fix=NAME_FIX)
    read.source.annotators = [normal_name(a) for a in read.source.annotators]
    for frame in (read.table, read.extras):
        if len(frame):
            frame["annotator"] = frame["annotator"].map(normal_name)
    return read


def left_out(merged: set[str], selection: str, paths: list[Path]) -> list[str]:
    """Warnings for the annotators of the inputs' sheets folders (their ``sheets.json``) of
    the merged ``selection`` whose sheet is not among the inputs (``merged``: the
    annotators merged): a batch of fewer annotators than the sheets were written for."""
    warnings, seen = [], set()
    for folder in dict.fromkeys(Path(p).absolute().parent for p in paths):
        record_file = SheetPaths(folder.parent).record
        try:
            record = json.loads(read_record_file(record_file, READER) or b"")
        except (OSError, ValueError, RecursionError, InputError):
            continue
        if not isinstance(record, dict) or record.get("selection") != selection:
            continue
        for entry in record.get("annotators") or []:
            who = entry.get("annotator") if isinstance(entry, dict) else None
            if not isinstance(who, str) or who in merged or who in seen:
                continue
            seen.add(who)
            files = ", ".join(str(folder / s.get("file", "")) for s in entry.get("sheets", [])
                              if isinstance(s, dict))
            warnings.append(f"warning: the sheet of {who} ({files}) of this selection is not "
                            f"among the inputs: the batch has {len(merged)} annotator(s), not "
                            f"{len(merged) + len(seen)} -> give it too, unless {who} labels "
                            "no report of this batch")
    return warnings


def merge_inputs(paths: list[Path], out: Path, codes: set[str], force: bool = False,
                 names: list[str] | None = None, decisions: Decisions | None = None,
                 selection: pd.DataFrame | None = None,
                 selection_name: str | None = None,
                 raws: list[bytes] | None = None) -> MergeResult:
    """Read, check, combine and write: the whole merge. Raises :class:`SheetProblems`
    (every problem) and writes nothing when any input, the inputs against their
    ``selection`` (the candidates select wrote; None: not checked) or a decision has one,
    or when the inputs hold no row. ``raws``: the inputs' bytes, when read already."""
    if not paths:
        raise SheetProblems([InputError("no sheets given",
                                        fix="give every annotator's filled sheet")])
    try:
        check_out(Path(out), force)
    except InputError as exc:
        raise SheetProblems([exc]) from exc
    reads, problems = read_inputs(paths, names, codes, raws)
    if not problems:
        problems = table_problems(reads, [Path(p) for p in paths], selection, selection_name)
    annotators = [a for r in reads for a in r.source.annotators]
    table = pd.concat([r.table for r in reads], ignore_index=True) if reads else None
    rows = table is not None and len(table) > 0
    titles = (dict(zip(selection["url"].astype(str).str.strip(),
                       selection["title"].astype(str), strict=True))
              if selection is not None and "title" in selection else None)
    # checked inputs give the adjudication list, which the decisions are checked against
    result = combine(table, annotators, decisions,
                     pd.concat([r.extras for r in reads], ignore_index=True), titles) \
        if not problems and rows else None
    if decisions is not None:  # every problem of the decisions file at once
        problems += decisions.problems
        if result is not None:
            problems += unused_problems(decisions, set(table["url"]),
                                        set(result.adjudication["url"]))
    if problems:
        raise SheetProblems(problems)
    if result is None:
        raise SheetProblems([InputError("the sheets hold no rows: nothing to merge, nothing "
                                        "written", file=reads[0].source.name,
                                        fix="give the sheets labels sheets wrote, filled")])
    checked = {"id": reads[0].source.selection, "checked": selection is not None,
               "candidates": Path(selection_name).name if selection_name else None}
    result.record = merge_record(table, result, decisions, checked)
    result.sources = sources_record(reads)
    write_dump(dump_files(result), out, force=force)
    return result


def folder_inputs(folder: Path, walk: DumpFiles | None = None
                  ) -> tuple[list[Path], Path | None, Path | None]:
    """A batch's folder of records, walked and checked (``walk``, else walked here:
    :func:`~analysis.core.batchfiles.walk_records`): its inputs (the filled sheets of
    ``sheets/``, in the order of their record's annotators, else of their names, and any
    Label Studio export, ``studio/export.json``), its candidates
    (``selection/candidates.csv`` or ``candidates.csv``) and its decisions
    (``decisions.csv`` or ``.xlsx``), each None when absent."""
    folder = Path(folder)
    walk = walk or walk_records(folder, READER)
    sheets, studio = SheetPaths(folder), StudioPaths(folder)
    try:
        team = [a.get("annotator") for a in json.loads(read_record(
            walk, sheets.record).decode("utf-8")).get("annotators", [])] \
            if walk.is_file(sheets.record) else []
    except (ValueError, AttributeError, TypeError, RecursionError):
        team = []
    stems = [f"annotator_{str(a).removeprefix('#')}" for a in team]
    found = [sheets.folder / n for n in walk.listing(sheets.folder)[1]
             if n.startswith("annotator_") and Path(n).suffix in (".csv", ".xlsx")]
    inputs = sorted(found, key=lambda p: (stems.index(p.stem) if p.stem in stems
                                          else len(stems), p.name))
    inputs += [studio.export] if walk.is_file(studio.export) else []
    candidates = next((p for p in (folder / "selection" / "candidates.csv",
                                   folder / "candidates.csv") if walk.is_file(p)), None)
    decisions = next((p for p in (folder / "decisions.csv", folder / "decisions.xlsx")
                      if walk.is_file(p)), None)
    return inputs, candidates, decisions


def merge_folder(folder: Path, out: Path, codes: set[str], force: bool = False
                 ) -> MergeResult:
    """Merge a batch's folder of records (:func:`folder_inputs`) in one call, as
    ``labels merge`` merges the files it is given; the folder is read as a dump is
    (:mod:`analysis.core.batchfiles`: regular files only, each read once, within the
    limits)."""
    walk = walk_records(Path(folder), READER)
    inputs, candidates, decisions_file = folder_inputs(Path(folder), walk)
    decisions = read_decisions(decisions_file, codes, raw=read_record(walk, decisions_file)) \
        if decisions_file else None
    selection = read_candidates(candidates, raw=read_record(walk, candidates)) \
        if candidates else None
    export = StudioPaths(Path(folder)).export  # read task by task by its reader
    return merge_inputs(inputs, out, codes, force, None, decisions, selection,
                        str(candidates) if candidates else None,
                        [None if p == export else read_record(walk, p) for p in inputs])
