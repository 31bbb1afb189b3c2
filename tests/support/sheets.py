"""Filled labelling sheets, as annotators and their spreadsheet programs save them."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd


def candidates_frame(rows: list[tuple[str, str, str, str]]) -> pd.DataFrame:
    """Candidates as select gives them: project, url, created_at, title."""
    return pd.DataFrame(rows, columns=["project", "url", "created_at", "title"])


def read_rows(path: Path) -> list[list[str]]:
    """A sheet's rows (header first), whatever its encoding and delimiter (a workbook's
    first worksheet as text)."""
    from analysis.update.labels.tables import (
        decode_text,
        sheet_lines,
        sniff_delimiter,
        workbook_rows,
    )

    raw = path.read_bytes()
    if raw.startswith(b"PK"):
        return [fields for _, fields in workbook_rows(raw, str(path))]
    text, _ = decode_text(raw)
    delim = sniff_delimiter(sheet_lines(text)[0]) or ","
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=delim))


def fill(path: Path, decisions: dict[str, tuple[str, str]], *, delimiter: str = ",",
         encoding: str = "utf-8-sig", line_end: str = "\r\n",
         cells: dict[str, dict[str, str]] | None = None) -> None:
    """Write url -> (label, excluded) into a sheet (and url -> {column: text} of
    ``cells``: a comment, a confidence, minutes) and save it as a spreadsheet program
    would (``encoding``: utf-8-sig as Excel's "CSV UTF-8", utf-16 as its "Unicode Text",
    cp1252 as its plain "CSV" on Windows; ``delimiter``: ';' in locales with a decimal
    comma). A workbook is saved as CSV, as an annotator may."""
    rows = read_rows(path)
    header = rows[0]
    u, lab, exc = header.index("url"), header.index("label"), header.index("excluded")
    for row in rows[1:]:
        if row and row[u] in decisions:
            row[lab], row[exc] = decisions[row[u]]
        for column, text in ((cells or {}).get(row[u] if row else "", {})).items():
            row[header.index(column)] = text
    text = "".join(csv_line(row, delimiter) + line_end for row in rows)
    path.write_bytes(text.encode(encoding, errors="replace"))


def csv_line(row: list[str], delimiter: str) -> str:
    """One row as a spreadsheet program writes it: a cell holding the delimiter, a quote or
    a line break of any kind quoted (the csv module quotes only the characters of its own
    line terminator)."""
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\r\n").writerow(row)
    return out.getvalue().removesuffix("\r\n")


def gh_cli_export(path: Path, repo: str, issues: list[tuple[int, str, str, str]]) -> Path:
    """A ``gh issue list --json url,title,body,createdAt`` export of ``repo``: one
    (number, createdAt, title, body) per issue."""
    import json

    path.write_text(json.dumps([
        {"url": f"https://github.com/{repo}/issues/{n}", "title": title, "body": body,
         "createdAt": created} for n, created, title, body in issues], indent=1),
        encoding="utf-8")
    return path


_CODEBOOKS: dict[tuple, object] = {}


def codebook_of(taxonomy):
    """The codebook of ``taxonomy`` with the project's guide and cited examples, without
    the details of a dump. Built once for each taxonomy, known by what goes into its
    codebook (the fixture gives each test its own copy of the same one): it takes some 60
    ms, and its entries are frozen."""
    from analysis.update.labels.codebook import build_codebook, cited_examples, load_guide

    key = (tuple(taxonomy.types.items()), tuple(taxonomy.themes.itertuples(index=False)),
           tuple(taxonomy.subthemes.itertuples(index=False)))
    if key not in _CODEBOOKS:
        _CODEBOOKS[key] = build_codebook(taxonomy, load_guide(), None, cited_examples())
    return _CODEBOOKS[key]


def blank_sheets(folder: Path, candidates: pd.DataFrame, annotators: int | list[str],
                 taxonomy=None, fmt: str = "csv", seed: int | None = None,
                 force: bool = False) -> list[Path]:
    """What select and ``labels sheets`` leave in ``folder``: the selection's candidates
    (``selection/candidates.csv``, which the merge checks the sheets against) and the
    blank sheets (in the selection's order unless a ``seed`` is given)."""
    from analysis.update.labels.sheets import write_blank_sheets

    (folder / "selection").mkdir(parents=True, exist_ok=True)
    candidates.to_csv(folder / "selection" / "candidates.csv", index=False)
    return write_blank_sheets(folder, candidates, annotators,
                              codebook_of(taxonomy) if taxonomy is not None else None, fmt,
                              seed, force)


def issues_of(repo: str, count: int, year: int = 2025) -> tuple[list[str], pd.DataFrame]:
    """``count`` candidates of one project (named by the repository's name): their URLs,
    and the frame select gives (creation dates month by month, on the 1st, then the 2nd...
    past twelve; titles "issue N")."""
    urls = [f"https://github.com/{repo}/issues/{i}" for i in range(1, count + 1)]
    return urls, candidates_frame([(repo.split("/")[1], u,
                                    f"{year}-{(i - 1) % 12 + 1:02d}-{(i - 1) // 12 + 1:02d}"
                                    "T00:00:00Z", f"issue {i}") for i, u in enumerate(urls, 1)])


def fill_workbook(path: Path, decisions: dict[str, tuple[str, str]],
                  cells: dict[str, dict[str, str]] | None = None) -> None:
    """Write url -> (label, excluded) (and url -> {column: text} of ``cells``) into a
    workbook sheet's first worksheet and save it, as an annotator does in Excel."""
    import openpyxl

    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[0]
    header = [c.value for c in sheet[1]]
    for row in sheet.iter_rows(min_row=2):
        url = row[header.index("url")].value
        values = dict(zip(("label", "excluded"), decisions.get(url, ()), strict=False))
        values.update((cells or {}).get(url, {}))
        for column, text in values.items():
            row[header.index(column)].value = text or None
    book.save(path)
