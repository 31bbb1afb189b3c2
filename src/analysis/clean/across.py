"""The rules across a project's rows (and across projects), on integer codes of the issue
URLs (:class:`~analysis.clean.keys.KeyGroups`): each label row's year from the year files,
duplicate URLs, foreign repositories, the use of every year-file line, and URLs kept in
several projects. :mod:`analysis.clean.scan` reads the rows and calls them; the clean stage
and ``python -m analysis.tools.validate`` apply them alike, whether a row is kept whole or
only its line, URL and reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.clean.keys import KeyGroups
from analysis.clean.rules import RULES, repo_of
from analysis.core.quality import KEPT, SET_ASIDE, make_anomaly


def code_groups(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    l_order, l_start, l_rank = code_groups(lcodes, size)
    by_url = listing[l_order]  # the same lines by URL, then year and line
    del l_order
    listed = np.diff(l_start)  # listings per URL
    distinct = np.bincount(np.unique(lcodes * 10_000 + years[listing] % 10_000) // 10_000,
                           minlength=size)  # years per URL

    has = np.flatnonzero(rc >= 0)
    codes = rc[has]
    r_order, r_start, r_rank = code_groups(codes, size)
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


def flag_rows(rows: pd.DataFrame, positions: np.ndarray, flag: str) -> None:
    """Add a flag to the rows at ``positions`` (kept rows carry their flags into the issues
    table; a compact reading keeps no flags)."""
    if "flags" not in rows or not len(positions):
        return
    flags = rows["flags"].to_numpy(dtype=object, copy=True)  # one write, not one a row
    for i in positions:
        flags[i] = flags[i] + [flag]
    rows["flags"] = flags


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
        flag_rows(rows, positions, flag)
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
    rank[usable] = code_groups(codes[usable], len(urls))[2]  # 0: the URL's first usable row
    repeated = usable.copy()
    repeated[usable] = per_url[codes[usable]] > 1
    lines = rows["line"].to_numpy()
    positions = np.flatnonzero(repeated)
    flag_rows(rows, positions, "duplicate_url")
    if duplicates == "first":
        rows.loc[rows.index[positions[rank[positions] > 0]], "reason"] = "duplicate_url"
    for i in positions:
        setaside = duplicates == "first" and rank[i] > 0
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
    flag_rows(rows, foreign, "foreign_repo_url")
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
    flag_rows(rows, hits, "cross_project_duplicate")
    files, numbers = rows["source_file"].to_numpy(), rows["line"].to_numpy()
    for i in hits:
        url = urls.text(urls.codes[i])
        anomalies.append(make_anomaly(RULES, "cross_project_duplicate", files[i], url,
                                      int(numbers[i]), value=url))
