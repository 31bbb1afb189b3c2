"""Reading a dump and the rules across rows, shared by the clean stage and
``python -m analysis.tools.validate``.

:func:`scan_dump` reads every project's label file, year files and excluded candidates
(:mod:`analysis.core.dump`), judges each row (:func:`analysis.clean.rules.label_rows`,
the year-file schema), then applies the rules that need every row: each row's year from
the year files, duplicate URLs, foreign repositories, the use of every year-file line,
excluded candidates also labelled or listed twice, and URLs kept in several projects. The
clean stage reads everything at once and keeps every row whole (:class:`Reading`); a check
reads in chunks and keeps of each row only what these rules need, so that both find the
same rows to keep and set aside, in memory that a check keeps small.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.clean.keys import KeyGroups
from analysis.clean.rules import RULES, label_rows, quirk_anomaly, repo_of
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
from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.quality import KEPT, SET_ASIDE, make_anomaly
from analysis.core.taxonomy import Taxonomy

EXCLUDED_COLUMNS = ["project", "issue_url", "created_at", "year", "source_file",
                    "source_line"]


@dataclass(frozen=True)
class Reading:
    """How a dump is read. The clean stage keeps every row whole, in one piece (its outputs
    list them); a check (:mod:`analysis.tools.validate`) reads ``chunk_rows`` rows at a
    time and keeps of each row only what the rules across rows need (its line, issue URL,
    reason and year), so that its memory does not grow with what the rows hold. Both
    apply the same rules, in the same functions. Lines (and quoted records) longer than
    ``max_line`` characters are refused."""

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


def _groups(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For codes >= 0: the positions sorted by code (stable), where each code starts in
    that order (``size + 1`` offsets), and each position's rank among its code's."""
    order = np.argsort(codes, kind="stable")
    start = np.zeros(size + 1, dtype=np.int64)
    start[1:] = np.cumsum(np.bincount(codes, minlength=size))
    rank = np.empty(len(codes), dtype=np.int64)
    rank[order] = np.arange(len(codes)) - start[codes[order]]
    return order, start, rank


PAIRED, UNLABELLED, SURPLUS = 0, 1, 2


@dataclass
class YearPairing:
    """What :func:`pair_years` found: per label row its year (missing when its URL is in
    no year file) and its two flags; per year-file line whether it is paired (and with
    which row), unlabelled or surplus."""

    year: pd.arrays.IntegerArray  # by row position
    more_rows: np.ndarray  # bool per row: more_rows_than_year_lines
    many_years: np.ndarray  # bool per row: url_in_multiple_years
    status: np.ndarray  # per year-file line: PAIRED, UNLABELLED or SURPLUS
    paired_row: np.ndarray  # per year-file line: the row's position, or -1


def pair_years(rc: np.ndarray, lc: np.ndarray, size: int, line_years: pd.Series,
               line_numbers: pd.Series) -> YearPairing:
    """Give every label row with an issue URL a year from the year files (multiset
    matching).

    ``rc``: the codes of the rows' issue URLs (:class:`~analysis.clean.keys.KeyGroups`, -1
    when a row has none), in file order; the year-file lines of one project by ``lc``, the
    codes of their URLs (-1 when a line is not one, or has no row), year and line number
    (one year file per year); ``size``: the number of codes. The i-th row of a URL takes
    the i-th listing of that URL in the year files (by year, then line); rows beyond the
    listings reuse the last one. A listing is paired with the row of its rank, unlabelled
    when its URL has no row, surplus when it has fewer rows than listings.
    """
    years = line_years.to_numpy(dtype=np.int64)
    listing = np.lexsort((line_numbers.to_numpy(dtype=np.int64), years))
    listing = listing[lc[listing] >= 0]  # the lines that are URLs, by year then line
    lcodes = lc[listing]
    l_order, l_start, l_rank = _groups(lcodes, size)
    by_url = listing[l_order]  # the same lines by URL, then year and line
    del l_order
    listed = np.diff(l_start)  # listings per URL
    distinct = np.bincount(np.unique(lcodes * 10_000 + years[listing] % 10_000) // 10_000,
                           minlength=size)  # years per URL

    has = np.flatnonzero(rc >= 0)
    codes = rc[has]
    r_order, r_start, r_rank = _groups(codes, size)
    rows_by_url = has[r_order]  # the rows by URL, then file order
    del r_order
    found = listed[codes] > 0
    at, code, rank = has[found], codes[found], r_rank[found]
    del has, codes, r_rank, found
    year = np.zeros(len(rc), dtype=np.int64)
    year[at] = years[by_url[l_start[code] + np.minimum(rank, listed[code] - 1)]]
    no_year = np.ones(len(rc), dtype=bool)
    no_year[at] = False
    more_rows = np.zeros(len(rc), dtype=bool)
    more_rows[at] = rank >= listed[code]
    many_years = np.zeros(len(rc), dtype=bool)
    many_years[at] = distinct[code] > 1
    del at, code, rank, by_url

    status = np.full(len(lc), UNLABELLED, dtype=np.int8)
    paired_row = np.full(len(lc), -1, dtype=np.int64)
    rows_of = np.diff(r_start)[lcodes]  # rows of each listed line's URL
    status[listing[(rows_of > 0) & (l_rank >= rows_of)]] = SURPLUS
    hit = l_rank < rows_of
    status[listing[hit]] = PAIRED
    paired_row[listing[hit]] = rows_by_url[r_start[lcodes[hit]] + l_rank[hit]]
    return YearPairing(pd.arrays.IntegerArray(year, no_year), more_rows, many_years, status,
                       paired_row)


def _flag(rows: pd.DataFrame, positions: np.ndarray, flag: str) -> None:
    """Add a flag to the rows at ``positions`` (kept rows carry their flags into the issues
    table; a compact reading keeps no flags)."""
    if "flags" not in rows:
        return
    for i in positions:
        rows.at[int(i), "flags"] = rows.at[int(i), "flags"] + [flag]


def keep_rows(rows: pd.DataFrame, compact: bool, aside: Counter, rel: str) -> pd.DataFrame:
    """Label rows as :func:`label_rows` gives them, with their ``key`` (issue URL) added.
    Compact: line, key and reason of the rows with an issue URL; the others, set aside
    whatever the rules across rows say, are only counted in ``aside[rel]``."""
    if rows.empty:
        rows = pd.DataFrame(columns=["line", "raw", "reason", "flags", "url", "final_label"])
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


def read_label_rows(project: ProjectFiles, raw_dir: Path, taxonomy: Taxonomy,
                    anomalies: list, reading: Reading,
                    aside: Counter) -> tuple[pd.DataFrame, dict[str, int]]:
    """Read and judge a project's label file, ``reading.chunk_rows`` rows at a time: the
    rows (see :func:`keep_rows`) and the annotator columns; anomalies go to
    ``anomalies``."""
    lines = open_lines(project.label_file, raw_dir, reading.max_line)
    reader = read_label_file(lines, lines.rel, reading.max_line)
    parts = []
    for records in reader.chunks(reading.chunk_rows):
        rows, found = label_rows(records, reader.header, reader.url_column,
                                 reader.final_column, reader.annotator_columns, taxonomy,
                                 lines.rel)
        anomalies.extend(found)
        parts.append(keep_rows(rows, reading.compact, aside, lines.rel))
    anomalies.extend(quirk_anomaly(q) for q in lines.quirks + reader.quirks)
    if reader.header and reader.count == 0:
        anomalies.append(make_anomaly(RULES, "header_only", lines.rel, "no data rows"))
    rows = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
    return rows, reader.annotator_columns


LOOKUP_LINES = 1_000_000  # year-file lines looked up among the rows' URLs at a time


def read_year_lines(project: ProjectFiles, raw_dir: Path, urls: KeyGroups, anomalies: list,
                    reading: Reading, aside: Counter) -> pd.DataFrame:
    """Read and judge a project's year files (in year order), ``reading.chunk_rows`` lines
    at a time: every line (see :func:`keep_lines`) with ``url_code``, its URL's code among
    ``urls`` (the rows' URLs; -1 when it is not a URL or has no row). Blank lines, lines
    that are not URLs and URLs without a row are set aside (a compact reading counts them
    in ``aside`` and keeps them no further); they go to ``anomalies``."""
    parts: list[pd.DataFrame] = []
    pending: list[pd.DataFrame] = []
    for year, path in project.year_files.items():
        lines = open_lines(path, raw_dir, reading.max_line)
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
        anomalies.extend(quirk_anomaly(q) for q in lines.quirks)
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


def judge_project(rows: pd.DataFrame, lines: pd.DataFrame, urls: KeyGroups, rel: str,
                  duplicates: str, anomalies: list) -> None:
    """The rules across a project's rows: years from the year files (``no_year``), duplicate
    URLs, foreign repositories, and the reason of every year-file line with a row. ``urls``:
    the rows' URLs (their codes, and ``url_code`` of the lines, number them). Sets ``year`` and
    ``reason`` of ``rows`` and ``reason`` of ``lines`` (and flags, when the rows have them);
    anomalies go to ``anomalies``."""
    codes, line_codes = urls.codes, lines["url_code"].to_numpy()
    pairing = pair_years(codes, line_codes, len(urls), lines["year"], lines["line"])
    _years(rows, pairing, codes, urls, rel, anomalies)
    _duplicates(rows, codes, urls, rel, duplicates, anomalies)
    _foreign_repos(rows, codes, urls, rel, anomalies)
    _line_reasons(lines, rows["reason"].notna().to_numpy(), pairing, line_codes, urls,
                  anomalies)


def _years(rows: pd.DataFrame, pairing: YearPairing, codes: np.ndarray, urls: KeyGroups,
           rel: str, anomalies: list) -> None:
    """Each row's year and year flags; a usable row without a year is set aside
    (``no_year``)."""
    rows["year"] = pairing.year
    lines = rows["line"].to_numpy()
    for flag, mask in (("more_rows_than_year_lines", pairing.more_rows),
                       ("url_in_multiple_years", pairing.many_years)):
        positions = np.flatnonzero(mask)
        _flag(rows, positions, flag)
        for i in positions:
            url = urls.text(codes[i])
            anomalies.append(make_anomaly(RULES, flag, rel, url, int(lines[i]), value=url))
    no_year = rows["reason"].isna().to_numpy() & rows["year"].isna().to_numpy()
    rows.loc[no_year, "reason"] = "no_year"
    for i in np.flatnonzero(no_year):
        url = None if codes[i] < 0 else urls.text(codes[i])
        anomalies.append(make_anomaly(RULES, "no_year", rel, "URL in no year file",
                                      int(lines[i]), value=url))


def _duplicates(rows: pd.DataFrame, codes: np.ndarray, urls: KeyGroups, rel: str,
                duplicates: str, anomalies: list) -> None:
    """Flag the usable rows whose URL is on other rows too (of any reason); with
    ``duplicates="first"``, set aside all but the first usable one."""
    usable = rows["reason"].isna().to_numpy() & (codes >= 0)
    per_url = np.bincount(codes[codes >= 0], minlength=len(urls))
    rank = np.zeros(len(codes), dtype=np.int64)
    rank[usable] = _groups(codes[usable], len(urls))[2]  # 0: the URL's first usable row
    repeated = usable.copy()
    repeated[usable] = per_url[codes[usable]] > 1
    lines = rows["line"].to_numpy()
    for i in np.flatnonzero(repeated):
        setaside = duplicates == "first" and rank[i] > 0
        _flag(rows, np.array([i]), "duplicate_url")
        if setaside:
            rows.at[int(i), "reason"] = "duplicate_url"
        url = urls.text(codes[i])
        anomalies.append(make_anomaly(RULES, "duplicate_url", rel,
                                      f"{url} is on {int(per_url[codes[i]])} rows",
                                      int(lines[i]), value=url,
                                      action=SET_ASIDE if setaside else KEPT))


def _foreign_repos(rows: pd.DataFrame, codes: np.ndarray, urls: KeyGroups, rel: str,
                   anomalies: list) -> None:
    """Flag the kept rows whose repository (:func:`~analysis.clean.rules.repo_of`) is not
    the project's own: the most common among kept rows (the first by name on a tie)."""
    kept = np.flatnonzero(rows["reason"].isna().to_numpy())
    if not len(kept):
        return
    used = np.zeros(len(urls), dtype=bool)
    used[codes[kept]] = True
    repo_ids: dict[str, int] = {}
    repo_of_url = np.fromiter(
        (repo_ids.setdefault(repo_of(url), len(repo_ids)) if wanted else -1
         for url, wanted in zip(urls.texts(), used, strict=True)),
        dtype=np.int64, count=len(urls))
    row_repo = repo_of_url[codes[kept]]
    counts = np.bincount(row_repo, minlength=len(repo_ids))
    home = min(r for r, i in repo_ids.items() if counts[i] == counts.max())
    names = list(repo_ids)
    foreign = kept[row_repo != repo_ids[home]]
    _flag(rows, foreign, "foreign_repo_url")
    lines = rows["line"].to_numpy()
    for i in foreign:
        anomalies.append(make_anomaly(RULES, "foreign_repo_url", rel,
                                      f"{names[repo_of_url[codes[i]]]} is not {home}",
                                      int(lines[i]), value=urls.text(codes[i])))


def _line_reasons(lines: pd.DataFrame, row_set_aside: np.ndarray, pairing: YearPairing,
                  line_codes: np.ndarray, urls: KeyGroups, anomalies: list) -> None:
    """Every year-file line with a row is used (paired with a kept row) or set aside: its
    row set aside, or more lines than rows for its URL."""
    reason = lines["reason"].to_numpy(dtype=object)
    listed = line_codes >= 0
    paired = listed & (pairing.status == PAIRED)
    reason[paired] = np.where(row_set_aside[pairing.paired_row[paired]],
                              "label_row_set_aside", None)
    files, numbers = lines["file"].to_numpy(), lines["line"].to_numpy()
    for i in np.flatnonzero(listed & (pairing.status == SURPLUS)):
        reason[i] = "surplus_year_line"
        url = urls.text(line_codes[i])
        anomalies.append(make_anomaly(RULES, "surplus_year_line", files[i], url,
                                      int(numbers[i]), value=url))
    lines["reason"] = pd.Series(reason, index=lines.index, dtype=object)


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
    anomalies: list, reading: Reading = Reading(),
) -> ProjectScan:
    """Clean one project: label rows with years and flags, their URLs, the accounting, the
    annotator columns and the rows set aside; anomalies go to ``anomalies``."""
    rel = project.label_file.relative_to(raw_dir).as_posix()
    aside: Counter[str] = Counter()  # by file: set aside, and not kept by a compact reading
    rows, annotators = read_label_rows(project, raw_dir, taxonomy, anomalies, reading, aside)
    urls = KeyGroups.of(rows["key"])
    lines = read_year_lines(project, raw_dir, urls, anomalies, reading, aside)
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
    project: ProjectFiles, raw_dir: Path, labelled: KeyGroups, anomalies: list,
    reading: Reading = Reading(),
) -> tuple[pd.DataFrame | None, pd.DataFrame | None, dict]:
    """Read a project's excluded candidates: the rows counted as excluded and the rows set
    aside (blank, no URL, also labelled, listed twice; both None for a compact reading),
    and the file's accounting; anomalies go to ``anomalies``. ``labelled``: the issue URLs
    of the project's label rows.

    Why set aside a URL that is also labelled: a candidate cannot be both an issue and a
    false positive; the label row wins, so the rate never counts an issue as excluded.
    """
    lines = open_lines(project.excluded_file, raw_dir, reading.max_line)
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
    anomalies.extend(quirk_anomaly(q) for q in lines.quirks)
    rows = pd.concat(parts, ignore_index=True)
    is_labelled = labelled.find(rows["key"]) >= 0
    listed = KeyGroups.of(rows["key"])
    codes = listed.codes
    ok = rows["reason"].isna().to_numpy() & (codes >= 0)
    rank = np.zeros(len(codes), dtype=np.int64)
    rank[ok] = _groups(codes[ok], len(listed))[2]  # > 0: the URL is listed again
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
                             "source_line": kept["line"].astype("int64")},
                            columns=EXCLUDED_COLUMNS)
    rejected = pd.DataFrame({"source_file": rel, "source_line": set_aside["line"],
                             "reason": set_aside["reason"], "raw": set_aside["raw"]})
    return excluded.reset_index(drop=True), rejected, files


def exclusion_summary(project: str, rows: pd.DataFrame, excluded: pd.DataFrame | None
                      ) -> dict:
    """One project's line of the exclusions table: whether the dump records its excluded
    candidates, its label rows (every non-blank row: each is a candidate that was not
    excluded, even one set aside for want of a final label), the excluded count and the
    candidates (label rows + excluded); the last two empty when nothing is recorded."""
    label_rows = int((rows["reason"] != "blank_row").sum()) if len(rows) else 0
    if excluded is None:
        return {"project": project, "recorded": False, "label_rows": label_rows,
                "excluded": None, "candidates": None}
    return {"project": project, "recorded": True, "label_rows": label_rows,
            "excluded": len(excluded), "candidates": label_rows + len(excluded)}


def cross_project_duplicates(rows: pd.DataFrame, anomalies: list) -> None:
    """Flag the kept rows whose URL is kept in more than one project (each project keeps
    its row); anomalies go to ``anomalies``."""
    kept = np.flatnonzero(rows["reason"].isna().to_numpy())
    project, names = pd.factorize(rows["project"].iloc[kept])
    if len(names) < 2:
        return
    urls = KeyGroups.of(rows["key"])
    codes = urls.codes[kept]
    pairs = np.unique(codes * len(names) + project)
    multi = np.bincount(pairs // len(names), minlength=len(urls)) > 1
    hits = kept[multi[codes]]
    _flag(rows, hits, "cross_project_duplicate")
    files, numbers = rows["source_file"].to_numpy(), rows["line"].to_numpy()
    for i in hits:
        url = urls.text(urls.codes[i])
        anomalies.append(make_anomaly(RULES, "cross_project_duplicate", files[i], url,
                                      int(numbers[i]), value=url))


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

    def summary(self, duplicates: str) -> dict:
        """The quality report's summary: projects, annotators, years and issues kept."""
        kept = self.rows["reason"].isna()
        return {"projects": sorted(self.n_annotators), "annotators": len(self.annotators),
                "years": sorted(int(y) for y in self.rows.loc[kept, "year"].unique()),
                "issues": int(kept.sum()), "duplicates_policy": duplicates}


def scan_dump(raw_dir: Path, projects: Projects, taxonomy: Taxonomy, duplicates: str,
              anomalies: list, reading: Reading = Reading()) -> DumpScan:
    """Apply every rule of :data:`RULES` to a dump, project by project, then across
    projects: what the clean stage keeps and sets aside, and why. Anomalies go to
    ``anomalies`` (a list, or :class:`~analysis.core.quality.AnomalySample` for a check)."""
    if duplicates not in {"keep", "first"}:
        raise InputError(f"clean.duplicates must be 'keep' or 'first', not {duplicates!r}",
                         file=PATHS.params.name, column="clean.duplicates",
                         fix="set clean.duplicates to keep or first")
    raw_dir = Path(raw_dir)
    found, quirks = discover_projects(raw_dir)
    anomalies.extend(quirk_anomaly(q) for q in quirks)
    scan = DumpScan(pd.DataFrame(), [], [], {})
    frames, numbers = [], set()
    for project in found:
        result = clean_project(project, raw_dir, taxonomy, duplicates, anomalies, reading)
        rows, rejected, files = result.rows, result.rejected, result.files
        gone = None
        if project.excluded_file is not None:
            gone, ex_rejected, ex_files = clean_excluded(project, raw_dir, result.urls,
                                                         anomalies, reading)
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
            scan.exclusions.append(exclusion_summary(project.name, rows, gone))
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
