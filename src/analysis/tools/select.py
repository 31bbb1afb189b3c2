"""Select candidate issues from a raw issue export with a framework's keywords (Section III.A).

    python -m analysis.tools.select export.jsonl --framework pytorch --out newdump \\
        [--keywords data/raw/filter_keywords] [--project pytorch] \\
        [--since 2023-01-01] [--until 2025-04-30] [--annotators 7]

Accepted exports (the format is detected from the first record and reported; anything
else is refused with a message saying what was found):

- ``github-rest``: the GitHub REST API's issue objects (``html_url``, ``title``, ``body``,
  ``created_at``); objects with a ``pull_request`` key are pull requests and are skipped;
- ``gh-cli``: ``gh issue list --json url,title,body,createdAt``;
- ``perceval``: GrimoireLab Perceval items (GitHub or Gitee backend), the issue under
  ``data``; pull requests are skipped;
- ``csv``: a CSV file with the columns ``url``, ``title``, ``body``, ``created_at``.

JSON exports may be JSON lines (one object a line, streamed in batches: memory stays flat
however large the export) or one JSON array (read whole: fine for a ``gh`` listing or an
API page; convert large ones to JSON lines with ``jq -c '.[]'``).

Matching rule: a keyword matches when it occurs in the title or the body, ignoring the
case of ASCII letters, and is neither preceded nor followed by an ASCII letter, digit or
underscore. So 'yi' matches "Yi-34B" and "use yi" but not "yield"; 'llm' does not match
"vllm" or the plural "LLMs"; keywords with spaces or dots match literally ('few shot'
does not match "few-shot"). A CJK character next to a keyword counts as a boundary, so
"使用llama" matches 'llama'. The issue year is the year written in ``created_at``.

Output (``--out``), in the upstream layout so the labelled sheet goes straight back in as
a dump (``ingest.source: <out>``):

- ``Issue Report/<project>/<project>.csv``: a blank labelling sheet
  (``Issue_URL, Label1..LabelN, Final_Label``), one row a candidate;
- ``Issue Report/<project>/<project>_<year>.txt``: the candidates' URLs by year (a URL
  listed twice in the export is kept once; duplicates are found by a 64-bit digest);
- ``selection/<project>_candidates.csv``: every candidate with the keywords that matched
  in its title and in its body;
- ``selection/<project>_selection.json``: the format found, the counts (records, pull
  requests and out-of-range issues skipped, duplicates, candidates) and hits per keyword.

Speed: a single RE2 pattern (through pyarrow) finds the issues with at least one match;
an Aho-Corasick automaton (pyahocorasick) then lists every keyword of those issues, with
word boundaries checked in numpy.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import itertools
import os
import re
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import ahocorasick
import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from analysis.core.artifacts import to_json_text
from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.keywords.lists import is_word_char, keywords_for, read_keyword_file

FORMATS = {
    "github-rest": "GitHub REST API issues",
    "gh-cli": "gh issue list --json",
    "perceval": "Perceval items",
    "csv": "CSV (url, title, body, created_at)",
}
CSV_COLUMNS = ("url", "title", "body", "created_at")
CSV_FIELD_LIMIT = 1 << 28
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")
RE2_SPECIAL = set("\\.^$|?*+()[]{}")
_WORD = np.zeros(128, dtype=bool)
for _c in b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_":
    _WORD[_c] = True


def ascii_lower(text: str) -> str:
    """Lower-case ASCII letters only (length-preserving; other characters unchanged)."""
    if text.isascii():
        return text.lower()
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def reference_matches(text: str, keywords: list[str]) -> list[str]:
    """The matching rule, written plainly (the definition the fast matcher is tested on)."""
    low = ascii_lower(text or "")
    found = []
    for kw in keywords:
        k = ascii_lower(kw)
        start = low.find(k) if k else -1
        while start >= 0:
            end = start + len(k)
            if ((start == 0 or not is_word_char(low[start - 1]))
                    and (end == len(low) or not is_word_char(low[end]))):
                found.append(kw)
                break
            start = low.find(k, start + 1)
    return found


def _re2_literal(keyword: str) -> str:
    """A keyword as an RE2 pattern: ASCII letters as [aA] classes, boundaries where needed."""
    out = []
    for ch in keyword:
        if ch.isascii() and ch.isalpha():
            out.append(f"[{ch.lower()}{ch.upper()}]")
        elif ch in RE2_SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(ch)
    body = "".join(out)
    left = r"\b" if is_word_char(keyword[0]) else r"(?:^|[^0-9A-Za-z_])"
    right = r"\b" if is_word_char(keyword[-1]) else r"(?:$|[^0-9A-Za-z_])"
    return left + body + right


class Matcher:
    """Every keyword of a list, matched by the rule above, fast on many texts at once."""

    def __init__(self, keywords: list[str]):
        spelling: dict[str, str] = {}
        for kw in keywords:
            if kw.strip():
                spelling.setdefault(ascii_lower(kw), kw)
        if not spelling:
            raise InputError("the keyword list is empty", column="--framework",
                             fix="choose a framework whose list has keywords")
        self.keys = list(spelling)  # ASCII-lowered, distinct
        self.keywords = [spelling[k] for k in self.keys]  # first spelling of each
        self.lengths = np.array([len(k) for k in self.keys], dtype=np.int64)
        self.pattern = "|".join(_re2_literal(k) for k in sorted(self.keys, key=len,
                                                                 reverse=True))
        self.automaton = ahocorasick.Automaton()
        for i, k in enumerate(self.keys):
            self.automaton.add_word(k, i)
        self.automaton.make_automaton()

    def any_match(self, texts: list[str | None]) -> np.ndarray:
        """Which texts contain at least one keyword (one vectorised RE2 pass)."""
        if not texts:
            return np.zeros(0, dtype=bool)
        arr = pa.array(texts)
        if arr.type == pa.null():
            return np.zeros(len(texts), dtype=bool)
        hit = pc.match_substring_regex(arr, self.pattern)
        return hit.fill_null(False).to_numpy(zero_copy_only=False)

    def find(self, texts: list[str | None]) -> list[list[int]]:
        """For each text, the indexes of the keywords it contains (sorted)."""
        lowered = [ascii_lower(t) if t else "" for t in texts]
        out: list[list[int]] = [[] for _ in texts]
        if not lowered:
            return out
        big = "\n".join(lowered)
        starts = np.zeros(len(lowered), dtype=np.int64)
        if len(lowered) > 1:
            np.cumsum([len(t) + 1 for t in lowered[:-1]], out=starts[1:])
        flat = np.fromiter(itertools.chain.from_iterable(self.automaton.iter(big)),
                           dtype=np.int64)
        if not flat.size:
            return out
        ends, kw = flat[0::2], flat[1::2]
        begin = ends - self.lengths[kw] + 1
        codes = (np.frombuffer(big.encode("ascii"), dtype=np.uint8) if big.isascii() else
                 np.frombuffer(big.encode("utf-32-le", "surrogatepass"), dtype=np.uint32))
        word = np.zeros(len(codes), dtype=bool)
        ascii_mask = codes < 128
        word[ascii_mask] = _WORD[codes[ascii_mask]]
        before = np.where(begin > 0, word[np.maximum(begin - 1, 0)], False)
        after = np.where(ends + 1 < len(codes), word[np.minimum(ends + 1, len(codes) - 1)],
                         False)
        ok = ~before & ~after
        text_of = np.searchsorted(starts, begin[ok], side="right") - 1
        pairs = np.unique(np.stack([text_of, kw[ok]], axis=1), axis=0)
        for t, k in pairs.tolist():
            out[t].append(k)
        return out

    def names(self, indexes: list[int]) -> str:
        """Matched keywords as one ';'-separated cell, in list order."""
        return ";".join(self.keywords[i] for i in indexes)


# --------------------------------------------------------------------------- reading


@dataclass
class Batch:
    """Issues of one batch: parallel lists, plus the export line of each."""

    lines: list[int] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    titles: list[str | None] = field(default_factory=list)
    bodies: list[str | None] = field(default_factory=list)
    created: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.urls)


@dataclass
class Tally:
    """What happened to every record of the export."""

    fmt: str = ""
    container: str = ""
    records: int = 0
    skipped: Counter = field(default_factory=Counter)
    examples: dict[str, list[int]] = field(default_factory=dict)

    def skip(self, reason: str, line: int) -> None:
        self.skipped[reason] += 1
        ex = self.examples.setdefault(reason, [])
        if len(ex) < 5:
            ex.append(line)


def detect_format(record: object, where: str) -> str:
    """Name the export format from its first record, or refuse it with what was found."""
    if isinstance(record, dict):
        data = record.get("data")
        if isinstance(data, dict) and ("backend_name" in record or "origin" in record):
            if "html_url" in data and "created_at" in data:
                return "perceval"
        if "html_url" in record and "created_at" in record and "title" in record:
            return "github-rest"
        if "url" in record and "createdAt" in record and "title" in record:
            return "gh-cli"
        keys = ", ".join(sorted(map(str, record))[:12]) or "no keys"
    else:
        keys = type(record).__name__
    raise InputError(
        f"unrecognised export format (first record has: {keys})", file=where,
        fix="export GitHub REST API issue JSON (html_url, title, body, created_at), "
            "`gh issue list --json url,title,body,createdAt`, Perceval items, or a CSV with "
            "url, title, body, created_at")


def _records_jsonl(handle, name: str) -> Iterator[tuple[int, object]]:
    loads = orjson.loads
    for n, raw in enumerate(handle, 1):
        try:
            yield n, loads(raw)
        except orjson.JSONDecodeError as exc:
            if not raw.strip():
                continue
            hint = ("the file looks like pretty-printed JSON objects; write one object a "
                    "line (perceval --json-line, jq -c)" if n == 1 else
                    "the export may be truncated or corrupted; re-export it")
            raise InputError(f"not valid JSON ({exc})", file=name, line=n, fix=hint) from exc


def _records_array(handle, name: str) -> Iterator[tuple[int, object]]:
    try:
        items = orjson.loads(handle.read())
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not a valid JSON array ({exc})", file=name,
                         fix="re-export it, or write JSON lines (jq -c '.[]')") from exc
    if not isinstance(items, list):
        raise InputError("the JSON is not an array of issues", file=name,
                         fix="export a list of issues")
    yield from enumerate(items, 1)


def _csv_rows(reader, name: str) -> Iterator[tuple[int, list[str]]]:
    """The rows of a CSV reader with their line numbers; unreadable CSV is a user error."""
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"not valid CSV ({exc})", file=name, line=reader.line_num,
                             fix="re-export the issues, or write JSON lines") from exc
        yield reader.line_num, fields


def _records_csv(path: Path, name: str) -> Iterator[tuple[int, object]]:
    # Issue bodies with pasted logs exceed the csv module's default 128 KiB per field.
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_LIMIT))
    with open(path, encoding="utf-8-sig", newline="") as handle:
        rows = _csv_rows(csv.reader(handle, strict=True), name)
        header = next(rows, (1, []))[1]
        cols = {h.strip().lower(): i for i, h in enumerate(header)}
        missing = [c for c in CSV_COLUMNS if c not in cols]
        if missing:
            raise InputError(f"unrecognised export format: CSV without column(s) "
                             f"{', '.join(missing)} (header: {', '.join(header)[:200]})",
                             file=name, line=1,
                             fix="a CSV export needs the columns url, title, body, created_at")
        idx = [cols[c] for c in CSV_COLUMNS]
        for line, fields in rows:
            if len(fields) < len(header):
                fields = fields + [""] * (len(header) - len(fields))
            yield line, {"url": fields[idx[0]], "title": fields[idx[1]],
                         "body": fields[idx[2]], "createdAt": fields[idx[3]]}


def read_export(path: str | Path, tally: Tally, batch_size: int = 20_000,
                since: str | None = None, until: str | None = None) -> Iterator[Batch]:
    """Stream the issues of an export in batches, skipping (and counting) the rest."""
    path = Path(path)
    name = path.name
    if not path.is_file():
        raise InputError("export file not found", file=str(path), fix="check the path")
    with open(path, "rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"["):
        tally.container = "JSON array"
        opener = open(path, "rb")
        records = _records_array(opener, name)
    elif head.startswith(b"{"):
        tally.container = "JSON lines"
        opener = open(path, "rb")
        records = _records_jsonl(opener, name)
    elif head:
        tally.container = "CSV"
        opener = None
        records = _records_csv(path, name)
    else:
        raise InputError("the export is empty", file=str(path), fix="export some issues")
    try:
        batch = Batch()
        fmt = None
        lines, urls, titles = batch.lines, batch.urls, batch.titles
        bodies, created_at = batch.bodies, batch.created
        skip = tally.skip
        for line, rec in records:
            if fmt is None:
                fmt = "csv" if tally.container == "CSV" else detect_format(rec, name)
                tally.fmt = fmt
                keys = {"github-rest": ("html_url", "created_at"),
                        "perceval": ("html_url", "created_at")}.get(fmt, ("url", "createdAt"))
                nested = fmt == "perceval"
                pr_key = fmt in ("github-rest", "perceval")
            tally.records += 1
            if nested and isinstance(rec, dict):
                if rec.get("category") == "pull_request":
                    skip("pull_request", line)
                    continue
                rec = rec.get("data")
            if not isinstance(rec, dict):
                skip("not_an_object", line)
                continue
            if pr_key and "pull_request" in rec:
                skip("pull_request", line)
                continue
            url = rec.get(keys[0])
            if not isinstance(url, str) or not url.startswith(("https://", "http://")):
                skip("missing_url", line)
                continue
            created = rec.get(keys[1])
            if not isinstance(created, str) or not DATE_RE.match(created):
                skip("missing_created_at", line)
                continue
            if since or until:
                day = created[:10]
                if (since and day < since) or (until and day > until):
                    skip("outside_date_range", line)
                    continue
            title = rec.get("title")
            body = rec.get("body")
            lines.append(line)
            urls.append(url.strip())
            titles.append(title if isinstance(title, str) else None)
            bodies.append(body if isinstance(body, str) else None)
            created_at.append(created)
            if len(urls) >= batch_size:
                yield batch
                batch = Batch()
                lines, urls, titles = batch.lines, batch.urls, batch.titles
                bodies, created_at = batch.bodies, batch.created
        if fmt is None:
            raise InputError("the export holds no records", file=str(path),
                             fix="export some issues")
        if len(batch):
            yield batch
    finally:
        if opener is not None:
            opener.close()


# --------------------------------------------------------------------------- selecting


def select_batch(batch: Batch, matcher: Matcher) -> list[tuple[int, list[int], list[int]]]:
    """(position in batch, title keyword ids, body keyword ids) of the matching issues."""
    t_hit = matcher.any_match(batch.titles)
    b_hit = matcher.any_match(batch.bodies)
    t_idx = np.flatnonzero(t_hit).tolist()
    b_idx = np.flatnonzero(b_hit).tolist()
    found: dict[int, tuple[list[int], list[int]]] = {}
    for i, ids in zip(t_idx, matcher.find([batch.titles[i] for i in t_idx]), strict=True):
        if ids:
            found[i] = (ids, [])
    for i, ids in zip(b_idx, matcher.find([batch.bodies[i] for i in b_idx]), strict=True):
        if ids:
            found[i] = (found.get(i, ([], []))[0], ids)
    return [(i, *found[i]) for i in sorted(found)]


def url_digests(urls: list[str]) -> np.ndarray:
    """64-bit BLAKE2b digests of URLs: duplicate detection in 8 bytes a candidate, so memory
    stays flat however many candidates a large export yields."""
    return np.array([int.from_bytes(hashlib.blake2b(u.encode("utf-8", "surrogatepass"),
                                                    digest_size=8).digest(), "little")
                     for u in urls], dtype=np.uint64)


CANDIDATE_COLUMNS = ["Issue_URL", "created_at", "year", "title", "keywords_title",
                     "keywords_body", "keywords", "n_keywords", "export_line"]


def run_selection(export: str | Path, keywords: list[str], out: str | Path, project: str,
                  annotators: int = 7, since: str | None = None, until: str | None = None,
                  batch_size: int = 20_000, force: bool = False,
                  progress: bool = False) -> dict:
    """Select candidates from ``export`` and write the sheet, year files and candidate list."""
    if annotators < 1:
        raise InputError("--annotators must be at least 1", column="--annotators",
                         fix="give the number of label columns of the sheet")
    if not re.fullmatch(r"[A-Za-z0-9._-]+", project):
        raise InputError(f"project name {project!r} is not a plain folder name",
                         column="--project", fix="use letters, digits, '.', '_' or '-'")
    for value, flag in ((since, "--since"), (until, "--until")):
        if value and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise InputError(f"{flag} {value!r} is not a date", column=flag,
                             fix="write dates as YYYY-MM-DD")
    out = Path(out)
    folder = out / "Issue Report" / project
    sheet = folder / f"{project}.csv"
    if sheet.exists() and not force:
        raise InputError("a labelling sheet already exists here (it may hold labels)",
                         file=str(sheet), fix="choose another --out, or pass --force")
    matcher = Matcher(keywords)
    tally = Tally()
    hits = Counter()
    seen = np.zeros(0, dtype=np.uint64)  # sorted digests of the candidates' URLs
    per_year: Counter = Counter()
    candidates = 0
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".select-", dir=out))
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(unit=" issues", unit_scale=True, desc="select", file=sys.stderr)
    year_handles: dict[int, object] = {}
    try:
        with open(work / "candidates.csv", "w", encoding="utf-8", newline="") as cand_f, \
                open(work / "sheet.csv", "w", encoding="utf-8", newline="") as sheet_f:
            cand = csv.writer(cand_f, lineterminator="\n")
            cand.writerow(CANDIDATE_COLUMNS)
            sheet_w = csv.writer(sheet_f, lineterminator="\n")
            sheet_w.writerow(["Issue_URL", *[f"Label{i}" for i in range(1, annotators + 1)],
                              "Final_Label"])
            blanks = [""] * (annotators + 1)
            for batch in read_export(export, tally, batch_size, since, until):
                found = select_batch(batch, matcher)
                digests = url_digests([batch.urls[i] for i, _, _ in found])
                dup = np.isin(digests, seen)
                _, first = np.unique(digests, return_index=True)
                repeat = np.ones(len(digests), dtype=bool)
                repeat[first] = False
                dup |= repeat
                seen = np.union1d(seen, digests[~dup])
                for (i, t_ids, b_ids), is_dup in zip(found, dup.tolist(), strict=True):
                    url = batch.urls[i]
                    if is_dup:
                        tally.skip("duplicate_url", batch.lines[i])
                        continue
                    ids = sorted(set(t_ids) | set(b_ids))
                    hits.update(matcher.keywords[k] for k in ids)
                    year = int(batch.created[i][:4])
                    per_year[year] += 1
                    candidates += 1
                    cand.writerow([url, batch.created[i], year, batch.titles[i] or "",
                                   matcher.names(t_ids), matcher.names(b_ids),
                                   matcher.names(ids), len(ids), batch.lines[i]])
                    sheet_w.writerow([url, *blanks])
                    handle = year_handles.get(year)
                    if handle is None:
                        handle = open(work / f"year_{year}.txt", "w", encoding="utf-8",
                                      newline="\n")
                        year_handles[year] = handle
                    handle.write(url + "\n")
                if bar is not None:
                    bar.update(len(batch))
        for handle in year_handles.values():
            handle.close()
        duplicates = tally.skipped.get("duplicate_url", 0)
        scanned = tally.records - sum(tally.skipped.values()) + duplicates
        summary = {
            "export": str(export),
            "format": tally.fmt,
            "format_description": FORMATS.get(tally.fmt, tally.fmt),
            "container": tally.container,
            "project": project,
            "keywords": len(matcher.keys),
            "records": tally.records,
            "skipped": dict(sorted(tally.skipped.items())),
            "skipped_examples_lines": dict(sorted(tally.examples.items())),
            "issues_scanned": scanned,
            "candidates": candidates,
            "not_matched": scanned - candidates - duplicates,
            "candidates_by_year": {str(y): n for y, n in sorted(per_year.items())},
            "hits_by_keyword": {k: hits.get(k, 0) for k in matcher.keywords},
            "since": since,
            "until": until,
            "matching": ("ASCII case-insensitive, on ASCII word boundaries "
                         "(see analysis.tools.select)"),
        }
        folder.mkdir(parents=True, exist_ok=True)
        (out / "selection").mkdir(exist_ok=True)
        for old in folder.glob(f"{project}_*.txt"):
            if re.fullmatch(rf"{re.escape(project)}_\d{{4}}\.txt", old.name):
                old.unlink()
        os.replace(work / "sheet.csv", sheet)
        for year in sorted(year_handles):
            os.replace(work / f"year_{year}.txt", folder / f"{project}_{year}.txt")
        os.replace(work / "candidates.csv", out / "selection" / f"{project}_candidates.csv")
        (out / "selection" / f"{project}_selection.json").write_text(
            to_json_text(summary), encoding="utf-8")
    finally:
        for handle in year_handles.values():
            handle.close()  # closing twice is harmless; an error mid-export leaves them open
        if bar is not None:
            bar.close()
        shutil.rmtree(work, ignore_errors=True)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.select",
                                     description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Matching rule and outputs: see the module "
                                            "docstring (python -m pydoc analysis.tools.select).")
    parser.add_argument("export", help="raw issue export (JSON lines, JSON array or CSV)")
    parser.add_argument("--framework", required=True,
                        help="whose keyword list to use (pytorch, mindspore, tensorflow)")
    parser.add_argument("--keywords", default=str(PATHS.raw_keywords),
                        help="keyword file in upstream's format (default: %(default)s)")
    parser.add_argument("--out", required=True, help="folder to write the new dump into")
    parser.add_argument("--project", help="project folder name (default: the framework)")
    parser.add_argument("--since", help="first creation date to keep, YYYY-MM-DD")
    parser.add_argument("--until", help="last creation date to keep, YYYY-MM-DD")
    parser.add_argument("--annotators", type=int, default=7,
                        help="label columns of the sheet (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=20_000)
    parser.add_argument("--force", action="store_true",
                        help="overwrite an existing labelling sheet")
    args = parser.parse_args(argv)
    try:
        kw = keywords_for(read_keyword_file(args.keywords), args.framework)
        summary = run_selection(args.export, kw, args.out, args.project or args.framework,
                                annotators=args.annotators, since=args.since,
                                until=args.until, batch_size=args.batch_size,
                                force=args.force, progress=sys.stderr.isatty())
    except InputError as exc:
        print(f"select: {exc}", file=sys.stderr)
        return 1
    skipped = ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in summary["skipped"].items())
    print(f"select: found {summary['format_description']} ({summary['container']}) in "
          f"{args.export}; {summary['records']:,} records"
          + (f" ({skipped} skipped)" if skipped else "")
          + f"; {summary['candidates']:,} candidates matched {summary['keywords']} keywords "
          f"of {args.framework}; wrote {args.out}/Issue Report/{summary['project']}/ and "
          f"{args.out}/selection/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
