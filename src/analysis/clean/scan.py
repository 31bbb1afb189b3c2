"""Reading a dump and applying every rule to it, shared by the clean stage and
``python -m analysis.tools.validate``.

:func:`scan_dump` reads every project's label file, year files and excluded candidates
(:mod:`analysis.core.dump`), judges each row (:func:`analysis.clean.rules.label_rows`,
the year-file schema), then applies the rules that need every row
(:mod:`analysis.clean.across`: each row's year from the year files, duplicate URLs,
foreign repositories, the use of every year-file line, URLs kept in several projects) and
those of the excluded candidates (also labelled, listed twice), whether every row is kept
whole or a check keeps only what these rules need (:class:`Reading`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.clean.across import code_groups, cross_project_duplicates, judge_project
from analysis.clean.keys import KeyGroups
from analysis.clean.rules import RULES, label_rows
from analysis.clean.study import (
    NO_STUDY,
    READER,
    RELEASE_BATCH,
    Person,
    Study,
    read_study,
)
from analysis.core import schemas
from analysis.core.dump import (
    MAX_LINE,
    URL_RE,
    ProjectFiles,
    discover_projects,
    excluded_file_chunks,
    open_lines,
    read_label_file,
    year_file_chunks,
)
from analysis.core.dumpfiles import DumpFiles, walked
from analysis.core.projects import Projects
from analysis.core.quality import make_anomaly, quirk_anomaly
from analysis.core.taxonomy import Taxonomy

EXCLUDED_COLUMNS = ["project", "issue_url", "created_at", "year", "source_file",
                    "source_line"]


@dataclass(frozen=True)
class Reading:
    """How a dump is read: the clean stage keeps every row whole, in one piece; a check
    (:mod:`analysis.tools.validate`) reads ``chunk_rows`` rows at a time and keeps of each
    row only what the rules across rows need (its line, issue URL, reason and year), so
    that its memory does not grow with what the rows hold. Lines (and quoted records)
    longer than ``max_line`` characters are refused."""

    chunk_rows: int | None = None
    max_line: int = MAX_LINE

    @property
    def compact(self) -> bool:
        return self.chunk_rows is not None


def issue_urls(values: pd.Series) -> pd.Series:
    """``values`` where they are issue URLs (:data:`~analysis.core.dump.URL_RE`), missing
    elsewhere: the key that pairs label rows, year-file lines and excluded candidates."""
    text = values.astype(object).where(values.notna(), "")
    return values.astype(object).where(text.str.match(URL_RE.pattern).astype(bool))


def _compact_keys(keys: pd.Series) -> pd.Series:
    """Issue URLs held as Arrow strings (a few bytes over their length, not a Python
    object each)."""
    return keys.astype("string[pyarrow]")


def keep_rows(rows: pd.DataFrame, compact: bool, aside: Counter, rel: str) -> pd.DataFrame:
    """Label rows as :func:`label_rows` gives them, with their ``key`` (issue URL) added.
    Compact: line, key and reason of the rows with an issue URL; the others, set aside
    whatever the rules across rows say, are only counted in ``aside[rel]``."""
    if rows.empty:
        rows = pd.DataFrame(columns=["line", "raw", "reason", "flags", "url", "final_label",
                                     "batch"])
    rows["key"] = issue_urls(rows["url"])
    if not compact:
        return rows
    keyed = rows["key"].notna().to_numpy()
    aside[rel] += int((~keyed).sum())
    return pd.DataFrame({"line": rows["line"].to_numpy(dtype=np.int64)[keyed],
                         "key": _compact_keys(rows["key"][keyed]).array,
                         "reason": rows["reason"].to_numpy(dtype=object)[keyed]})


def keep_lines(lines: pd.DataFrame, compact: bool, aside: Counter) -> pd.DataFrame:
    """Year-file lines (see :func:`analysis.core.schemas.year_line_status`) with their
    ``key`` (the URL, when the line is one) and their ``reason`` when they are blank or not
    a URL. Compact: line, key, year and file of the lines that are URLs; the others are
    only counted in ``aside`` (by file)."""
    is_url = lines["is_url"].to_numpy(dtype=bool)
    lines["key"] = lines["url"].where(is_url)
    lines["reason"] = np.where(lines["blank"].to_numpy(dtype=bool), "year_blank_line",
                               np.where(is_url, None, "year_line_not_url"))
    if not compact:
        return lines
    aside.update(lines.loc[~is_url, "file"])
    return pd.DataFrame({"line": lines["line"].to_numpy(dtype=np.int64)[is_url],
                         "key": _compact_keys(lines["key"][is_url]).array,
                         "year": lines["year"].to_numpy(dtype=np.int16)[is_url],
                         "file": lines["file"].to_numpy()[is_url],
                         "reason": lines["reason"].to_numpy()[is_url]})


def read_label_rows(project: ProjectFiles, taxonomy: Taxonomy, anomalies: list,
                    reading: Reading, aside: Counter,
                    study: Study = NO_STUDY) -> tuple[pd.DataFrame, dict[str, int]]:
    """Read and judge a project's label file, ``reading.chunk_rows`` rows at a time: the
    rows (see :func:`keep_rows`) and the annotator columns; anomalies go to
    ``anomalies``."""
    lines = open_lines(project.label_file, project.dump, reading.max_line)
    reader = read_label_file(lines, lines.rel, reading.max_line)
    parts = []
    for records in reader.chunks(reading.chunk_rows):
        rows, found = label_rows(records, reader.header, reader.url_column,
                                 reader.final_column, reader.annotator_columns, taxonomy,
                                 lines.rel, study)
        anomalies.extend(found)
        parts.append(keep_rows(rows, reading.compact, aside, lines.rel))
    anomalies.extend(quirk_anomaly(RULES, q) for q in lines.quirks + reader.quirks)
    if reader.header and reader.count == 0:
        anomalies.append(make_anomaly(RULES, "header_only", lines.rel, "no data rows"))
    rows = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
    return rows, reader.annotator_columns


LOOKUP_LINES = 1_000_000  # year-file lines looked up among the rows' URLs at a time


def read_year_lines(project: ProjectFiles, urls: KeyGroups, anomalies: list,
                    reading: Reading, aside: Counter) -> pd.DataFrame:
    """Read and judge a project's year files (in year order), ``reading.chunk_rows`` lines
    at a time: every line (see :func:`keep_lines`) with ``url_code``, its URL's code among
    ``urls`` (the rows' URLs; -1 when it is not a URL or has no row). Blank lines, lines
    that are not URLs and URLs without a row are set aside (a compact reading counts them
    in ``aside`` and keeps them no further); they go to ``anomalies``."""
    parts: list[pd.DataFrame] = []
    pending: list[pd.DataFrame] = []
    for year, path in project.year_files.items():
        lines = open_lines(path, project.dump, reading.max_line)
        for chunk in year_file_chunks(lines, lines.rel, year, reading.chunk_rows):
            chunk = schemas.year_line_status(chunk)
            for r in chunk[chunk["blank"]].itertuples():
                anomalies.append(make_anomaly(RULES, "year_blank_line", r.file, "empty line",
                                              r.line))
            for r in chunk[~chunk["blank"] & ~chunk["is_url"].astype(bool)].itertuples():
                anomalies.append(make_anomaly(RULES, "year_line_not_url", r.file,
                                              "not a URL", r.line, value=r.url))
            pending.append(keep_lines(chunk, reading.compact, aside))
            if sum(map(len, pending)) >= LOOKUP_LINES:
                parts.append(_unlabelled(pending, urls, anomalies, reading.compact, aside))
                pending = []
        anomalies.extend(quirk_anomaly(RULES, q) for q in lines.quirks)
    if pending or not parts:
        if not pending:
            pending = [keep_lines(pd.DataFrame(columns=[
                "line", "raw", "url", "is_url", "blank", "year", "file"]), reading.compact,
                aside)]
        parts.append(_unlabelled(pending, urls, anomalies, reading.compact, aside))
    return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)


def _unlabelled(parts: list[pd.DataFrame], urls: KeyGroups, anomalies: list, compact: bool,
                aside: Counter) -> pd.DataFrame:
    """Year-file lines with their ``url_code`` among ``urls`` instead of their URL; a URL
    that no label row has is set aside (``unlabelled_year_url``; compact: counted in
    ``aside`` and left out)."""
    lines = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
    codes = urls.find(lines["key"])
    reason = lines["reason"].to_numpy(dtype=object)
    files, numbers = lines["file"].to_numpy(), lines["line"].to_numpy()
    for i in np.flatnonzero(lines["key"].notna().to_numpy() & (codes < 0)):
        reason[i] = "unlabelled_year_url"
        url = str(lines["key"].iat[i])
        anomalies.append(make_anomaly(RULES, "unlabelled_year_url", files[i], url,
                                      int(numbers[i]), value=url))
    lines["reason"] = pd.Series(reason, index=lines.index, dtype=object)
    lines["url_code"] = codes
    lines = lines.drop(columns="key")
    if not compact:
        return lines
    listed = codes >= 0
    aside.update(lines.loc[~listed, "file"])
    return lines[listed].reset_index(drop=True)


def file_accounting(project: ProjectFiles, raw_dir: Path, rel: str, rows: pd.DataFrame,
                    lines: pd.DataFrame, aside: Counter) -> list[dict]:
    """Input = kept + set aside, for the label file and each year file of a project; a
    compact reading adds what it set aside without keeping (``aside``, by file)."""
    files = [{"file": rel, "role": "labels", "input": len(rows) + aside[rel],
              "kept": int(rows["reason"].isna().sum()),
              "set_aside": int(rows["reason"].notna().sum()) + aside[rel]}]
    for path in project.year_files.values():
        yrel = path.relative_to(raw_dir).as_posix()
        sel = lines.loc[lines["file"] == yrel, "reason"]
        files.append({"file": yrel, "role": "years", "input": len(sel) + aside[yrel],
                      "kept": int(sel.isna().sum()),
                      "set_aside": int(sel.notna().sum()) + aside[yrel]})
    return files


@dataclass
class ProjectScan:
    """One project read and judged (see :func:`clean_project`)."""

    rows: pd.DataFrame  # label rows: line, key, reason, year (all columns unless compact)
    urls: KeyGroups  # the rows' distinct issue URLs
    files: list[dict]  # input = kept + set aside, per file
    annotators: dict[str, int]  # header name -> annotator number
    rejected: pd.DataFrame | None  # the rows and lines set aside (None: compact)

    @property
    def label_rows(self) -> int:
        """The label file's rows, whether kept or not."""
        return self.files[0]["input"]


def clean_project(
    project: ProjectFiles, raw_dir: Path, taxonomy: Taxonomy, duplicates: str,
    anomalies: list, reading: Reading = Reading(), study: Study = NO_STUDY,
) -> ProjectScan:
    """Clean one project: label rows with years and flags, their URLs, the accounting, the
    annotator columns and the rows set aside; anomalies go to ``anomalies``."""
    rel = project.label_file.relative_to(raw_dir).as_posix()
    aside: Counter[str] = Counter()  # by file: set aside, and not kept by a compact reading
    rows, annotators = read_label_rows(project, taxonomy, anomalies, reading, aside, study)
    urls = KeyGroups.of(rows["key"])
    lines = read_year_lines(project, urls, anomalies, reading, aside)
    judge_project(rows, lines, urls, rel, duplicates, anomalies)
    files = file_accounting(project, raw_dir, rel, rows, lines, aside)
    if reading.compact:
        return ProjectScan(rows, urls, files, annotators, None)
    aside = rows["reason"].notna()
    set_aside = lines["reason"].notna()
    rejected = pd.concat([
        pd.DataFrame({"source_file": rel, "source_line": rows.loc[aside, "line"],
                      "reason": rows.loc[aside, "reason"], "raw": rows.loc[aside, "raw"]}),
        pd.DataFrame({"source_file": lines.loc[set_aside, "file"],
                      "source_line": lines.loc[set_aside, "line"],
                      "reason": lines.loc[set_aside, "reason"],
                      "raw": lines.loc[set_aside, "raw"]}),
    ], ignore_index=True)
    rows["source_file"] = rel
    return ProjectScan(rows, urls, files, annotators, rejected)


def clean_excluded(
    project: ProjectFiles, labelled: KeyGroups, anomalies: list, reading: Reading = Reading(),
) -> tuple[pd.DataFrame | None, pd.DataFrame | None, dict]:
    """Read a project's excluded candidates: the rows counted as excluded and the rows set
    aside (blank, no URL, also labelled, listed twice; both None for a compact reading),
    and the file's accounting; anomalies go to ``anomalies``. ``labelled``: the issue URLs
    of the project's label rows.

    Why set aside a URL that is also labelled: a candidate cannot be both an issue and a
    false positive; the label row wins, so the rate never counts an issue as excluded.
    """
    lines = open_lines(project.excluded_file, project.dump, reading.max_line)
    rel = lines.rel
    parts = []
    aside: Counter[str] = Counter()  # set aside, and not kept by a compact reading
    for chunk in excluded_file_chunks(lines, rel, reading.chunk_rows, reading.max_line):
        blank = (chunk["raw"].str.strip() == "").to_numpy(dtype=bool)
        key = issue_urls(chunk["url"]).where(~blank)
        invalid = ~blank & key.isna().to_numpy()
        for name, message, mask in (("excluded_blank_row", "empty line", blank),
                                    ("excluded_invalid_url", "not an issue URL", invalid)):
            for line, url in zip(chunk["line"][mask], chunk["url"][mask], strict=True):
                anomalies.append(make_anomaly(RULES, name, rel, message, int(line),
                                              "Issue_URL", url or None))
        chunk["reason"] = np.where(blank, "excluded_blank_row",
                                   np.where(invalid, "excluded_invalid_url", None))
        chunk["key"] = key
        if reading.compact:  # keep only what the rules across rows read
            aside[rel] += int((blank | invalid).sum())
            chunk = chunk.loc[~(blank | invalid), ["line", "reason", "key"]].assign(
                key=lambda c: _compact_keys(c["key"]))
        parts.append(chunk)
    anomalies.extend(quirk_anomaly(RULES, q) for q in lines.quirks)
    rows = pd.concat(parts, ignore_index=True)
    is_labelled = labelled.find(rows["key"]) >= 0
    listed = KeyGroups.of(rows["key"])
    codes = listed.codes
    ok = rows["reason"].isna().to_numpy() & (codes >= 0)
    rank = np.zeros(len(codes), dtype=np.int64)
    rank[ok] = code_groups(codes[ok], len(listed))[2]  # > 0: the URL is listed again
    reason = rows["reason"].to_numpy(dtype=object)
    numbers = rows["line"].to_numpy()
    for i in np.flatnonzero(ok):
        url = listed.text(codes[i])
        if is_labelled[i]:
            reason[i], message = "excluded_also_labelled", f"{url} has a label row"
        elif rank[i] > 0:
            reason[i], message = "excluded_duplicate_url", f"{url} is listed again"
        else:
            continue
        anomalies.append(make_anomaly(RULES, reason[i], rel, message, int(numbers[i]),
                                      "Issue_URL", url))
    rows["reason"] = pd.Series(reason, index=rows.index, dtype=object)
    kept = rows[rows["reason"].isna()]
    set_aside = rows[rows["reason"].notna()]
    files = {"file": rel, "role": "excluded", "input": len(rows) + aside[rel],
             "kept": len(kept), "set_aside": len(set_aside) + aside[rel]}
    if reading.compact:
        return None, None, files
    created = kept["created_at"].astype(str)
    years = pd.to_numeric(created.str.extract(r"^(\d{4})-\d{2}-\d{2}", expand=False),
                          errors="coerce").astype("Int64")
    excluded = pd.DataFrame({"project": project.name, "issue_url": kept["url"].astype(str),
                             "created_at": created, "year": years, "source_file": rel,
                             "source_line": kept["line"].astype("int64"),
                             "batch": kept["batch"]},
                            columns=[*EXCLUDED_COLUMNS, "batch"])
    rejected = pd.DataFrame({"source_file": rel, "source_line": set_aside["line"],
                             "reason": set_aside["reason"], "raw": set_aside["raw"]})
    return excluded.reset_index(drop=True), rejected, files


def exclusion_summary(project: str, rows: pd.DataFrame,
                      excluded: pd.DataFrame | None) -> dict:
    """One project's line of the exclusions table: whether the dump records its excluded
    candidates, its label rows (every non-blank row: each is a candidate that was not
    excluded, even one set aside for want of a final label), the excluded count and the
    candidates (label rows + excluded); the last two empty when nothing is recorded. (A
    study's lines are per batch: :func:`batch_exclusions`.)"""
    label_rows = int((rows["reason"] != "blank_row").sum()) if len(rows) else 0
    if excluded is None:
        return {"project": project, "recorded": False, "label_rows": label_rows,
                "excluded": None, "candidates": None}
    return {"project": project, "recorded": True, "label_rows": label_rows,
            "excluded": len(excluded), "candidates": label_rows + len(excluded)}


def batch_exclusions(project: str, rows: pd.DataFrame, excluded: pd.DataFrame | None,
                     study: Study) -> list[dict]:
    """A study's lines of the exclusions table for one project: one per batch with a
    candidate in it (:func:`exclusion_summary` on that batch's rows alone, with the
    ``batch`` named), in the study's order of batches. A false-positive rate is a batch's
    own: batches are drawn from different periods by different annotators, so their
    candidates are never pooled into one rate."""
    def batch_of(frame: pd.DataFrame) -> pd.Series:
        return frame["batch"].fillna(RELEASE_BATCH).astype(str)

    out = []
    for name in study.own_columns or {}:
        mine = rows[(batch_of(rows) == name).to_numpy()] if len(rows) else rows
        gone = None
        if excluded is not None and name in (study.recording or ()):
            gone = excluded[(batch_of(excluded) == name).to_numpy()]
        line = exclusion_summary(project, mine, gone)
        if line["label_rows"] or line["excluded"]:
            out.append({**line, "batch": name})
    return out


@dataclass
class DumpScan:
    """Every rule applied to a whole dump (see :func:`scan_dump`)."""

    rows: pd.DataFrame  # every project's label rows, with project and source_file
    files: list[dict]  # per input file: input = kept + set aside
    annotators: list[str]  # annotator_<n> of every project that has label rows
    n_annotators: dict[str, int]  # project -> annotator columns of its header
    rejected: list[pd.DataFrame] = field(default_factory=list)  # not for a compact reading
    excluded: list[pd.DataFrame] = field(default_factory=list)  # idem
    exclusions: list[dict] = field(default_factory=list)  # idem
    people: tuple[Person, ...] | None = None  # a study's: who labelled in which column

    def summary(self, duplicates: str) -> dict:
        """The quality report's summary: projects, annotators, years and issues kept."""
        kept = self.rows["reason"].isna()
        return {"projects": sorted(self.n_annotators), "annotators": len(self.annotators),
                "years": sorted(int(y) for y in self.rows.loc[kept, "year"].unique()),
                "issues": int(kept.sum()), "duplicates_policy": duplicates}


def scan_dump(raw_dir: Path | DumpFiles, projects: Projects, taxonomy: Taxonomy,
              duplicates: str, anomalies: list, reading: Reading = Reading()) -> DumpScan:
    """Apply every rule of :data:`RULES` to a dump, project by project, then across
    projects: what the clean stage keeps and sets aside, and why. Anomalies go to
    ``anomalies`` (a list, or :class:`~analysis.core.quality.AnomalySample` for a check).
    ``raw_dir`` is the dump's folder (walked as ingest walks it, without a limit on the
    number of files: ``data/raw/`` is what ingest let in) or the walk a check made."""
    dump = walked(raw_dir, READER, max_files=None)
    raw_dir = dump.root
    study = read_study(dump)
    found, quirks = discover_projects(dump)
    anomalies.extend(quirk_anomaly(RULES, q) for q in quirks)
    scan = DumpScan(pd.DataFrame(), [], [], {}, people=study.people)
    frames, numbers = [], set()
    for project in found:
        result = clean_project(project, raw_dir, taxonomy, duplicates, anomalies, reading,
                               study)
        rows, rejected, files = result.rows, result.rejected, result.files
        gone = None
        if project.excluded_file is not None:
            gone, ex_rejected, ex_files = clean_excluded(project, result.urls, anomalies,
                                                         reading)
            scan.excluded.append(gone)
            rejected = None if rejected is None else pd.concat([rejected, ex_rejected],
                                                               ignore_index=True)
            files.append(ex_files)
        described = projects.get(project.name)
        if not projects.is_described(project.name):
            anomalies.append(make_anomaly(RULES, "unknown_project",
                                          f"Issue Report/{project.name}",
                                          "not in data/projects.yaml"))
        if reading.compact:
            rows = rows.assign(project=project.name,
                               source_file=project.label_file.relative_to(raw_dir).as_posix())
        else:
            if study.own_columns is None:
                scan.exclusions.append(exclusion_summary(project.name, rows, gone))
            else:
                scan.exclusions += batch_exclusions(project.name, rows, gone, study)
            scan.rejected.append(rejected)
            rows = rows.assign(project=project.name, project_name=described.name,
                               kind=described.kind, host=described.host or "unknown",
                               order=described.order)
        if result.label_rows:  # (a label file without rows adds no annotator column)
            numbers.update(result.annotators.values())
        frames.append(rows)
        scan.files += files
        scan.n_annotators[project.name] = len(result.annotators)
    if len(set(scan.n_annotators.values())) > 1:
        anomalies.append(make_anomaly(RULES, "annotator_count_differs", "Issue Report",
                                      ", ".join(f"{k}: {v}" for k, v in
                                                scan.n_annotators.items())))
    scan.rows = pd.concat(frames, ignore_index=True)
    scan.annotators = [f"annotator_{n}" for n in sorted(numbers)]
    cross_project_duplicates(scan.rows, anomalies)
    return scan
