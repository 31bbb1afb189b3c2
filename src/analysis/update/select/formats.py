"""Raw issue exports: detect the format, decode the file, read its records.

Accepted, in the shapes the real tools write (see the tests' recorded-format files):

- ``rest``: the GitHub (or Gitee) REST API's issue objects (``html_url``, ``title``,
  ``body``, ``created_at``), as a JSON array (one API page), JSON lines, or a search
  response (``{"total_count": ..., "items": [...]}``, one or one a line);
- ``gh-cli``: ``gh issue list --json url,title,body,createdAt``;
- ``perceval``: GrimoireLab Perceval items (GitHub or Gitee backend), the issue under
  ``data``;
- ``csv``: a CSV file with the columns ``url``, ``title``, ``body``, ``created_at``;
- GH Archive hourly files are read by :mod:`analysis.update.select.gharchive`.

A pull request is known by what marks it, never by a key's presence: a non-null
``pull_request.html_url`` (API pages from before about 2014 carry
``"pull_request": {"html_url": null}`` on every plain issue), Perceval's category
``pull_request``, or a pull-request URL (``/pull/`` on GitHub, ``/pulls/`` on Gitee), which
also catches the ``/pulls`` endpoint's objects and CSV exports. Pull requests are counted
and skipped.

Text is UTF-8 (a byte-order mark is accepted) or UTF-16 with or without a byte-order mark
(as spreadsheet programs save it); anything else stops with the file, the line and what to
do. A CSV record over several lines is reported by its first line.

Memory stays bounded whatever the input (:class:`Limits`): no line, CSV record or
document read whole (a JSON array, a search response, a UTF-16 file) may be longer than
``Limits.line`` bytes, and no gzip file (a GH Archive hour) may decompress to more than
``Limits.file`` bytes. The defaults pass real GH Archive hours (0.1-2 GB decompressed)
and an issue with a 50 MB body; past either limit the file is refused in one line that
names it and the limit.
"""

from __future__ import annotations

import csv
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from analysis.core.dates import date_problem
from analysis.core.encoding import sniff_encoding
from analysis.core.errors import InputError
from analysis.core.sizes import GiB, MiB, size_text
from analysis.core.urls import url_problem

FORMATS = {
    "rest": "GitHub/Gitee REST API issues",
    "gh-cli": "gh issue list --json",
    "perceval": "Perceval items",
    "csv": "CSV (url, title, body, created_at)",
    "gharchive": "GH Archive events",
}
CSV_COLUMNS = ("url", "title", "body", "created_at")
CSV_OPTIONAL = ("labels", "updated_at")  # read when the CSV has them
CSV_FIELD_LIMIT = 1 << 28
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")
PULL_URL_RE = re.compile(r"^https?://[^/]+/[^/]+/[^/]+/pulls?(?:/|$)")
REPO_URL_RE = re.compile(r"^https?://(?:www\.)?(github\.com|gitee\.com)/([^/]+)/([^/?#]+)/",
                         re.IGNORECASE)
PLATFORM_OF_HOST = {"github.com": "github", "gitee.com": "gitee"}
GZIP_MAGIC = b"\x1f\x8b"
GHARCHIVE_SUFFIX = ".json.gz"
MAX_LINE = 128 * MiB     # 2.5 times a 50 MB issue body, JSON escapes included
MAX_FILE = 8 * GiB       # 4 times the largest GH Archive hours
LINE_OPTION = "--max-line-bytes"
FILE_OPTION = "--max-file-bytes"
FIX_FORMATS = ("export GitHub REST API issue JSON (html_url, title, body, created_at), "
               "`gh issue list --json url,title,body,createdAt`, Perceval items, GH Archive "
               "hourly files (.json.gz), or a CSV with url, title, body, created_at")


@dataclass(frozen=True)
class Limits:
    """How much of one input select holds or reads, so that memory stays bounded whatever
    the input: a gzip bomb (1 GiB of zeros in 1 MB) or a file without a line break.

    ``line``: the most bytes of one line (one event, one JSON-lines record; a CSV record,
    counted in characters), and of an export read whole (a JSON array, a search response,
    UTF-16 text). ``file``: the most bytes a gzip file may decompress to.
    """

    line: int = MAX_LINE
    file: int = MAX_FILE


DEFAULT_LIMITS = Limits()


def line_too_long(name: str, line: int, limits: Limits, what: str = "a line") -> InputError:
    """The one-line refusal of a line (or record) longer than ``limits.line``."""
    return InputError(f"{what} longer than the limit of {size_text(limits.line)} "
                      f"({LINE_OPTION})", file=name, line=line,
                      fix=f"an issue or an event is far smaller, so the file is damaged or "
                          f"not an export: download or export it again (raise {LINE_OPTION} "
                          f"only for a genuine line that long)")


def too_big_to_read_whole(name: str, what: str, limits: Limits, fix: str) -> InputError:
    """The one-line refusal of a document read whole that is over ``limits.line``."""
    return InputError(f"{what} is read whole, and this one is over the limit of "
                      f"{size_text(limits.line)} ({LINE_OPTION})", file=name,
                      fix=f"{fix}, or raise {LINE_OPTION}")


def bounded_lines(handle, name: str, limits: Limits) -> Iterator[bytes]:
    """The lines of a binary file (line breaks kept), none longer than ``limits.line``:
    one that is longer is refused before it is read whole."""
    limit = limits.line
    n = 0
    while line := handle.readline(limit + 1):
        n += 1
        if len(line) > limit and not line.endswith(b"\n"):
            raise line_too_long(name, n, limits)
        yield line


@dataclass(frozen=True)
class Record:
    """One issue or pull request of an export, normalised; or (``update``) a later sighting
    of an issue: a GH Archive event other than its opening, whose issue object holds the
    title, body and labels as they were at that time."""

    where: int            # line (JSON lines, CSV: the record's first line) or item number
    url: str
    title: str | None
    body: str | None
    created: str
    pull_request: bool
    labels: tuple[str, ...] = ()  # the labels (GitHub's, Gitee's), as named there
    seen: str = ""        # when this state of the issue was seen (event or update time)
    update: bool = False  # a later sighting of an issue, not the issue itself


def label_names(value: object) -> tuple[str, ...]:
    """An issue's labels as their names: the API's list of label objects (``name``), a
    list of names, or a CSV cell of names separated by ``;``; anything else is none."""
    if isinstance(value, str):
        return tuple(n.strip() for n in value.split(";") if n.strip())
    if not isinstance(value, list):
        return ()
    names = (v.get("name") if isinstance(v, dict) else v for v in value)
    return tuple(n.strip() for n in names if isinstance(n, str) and n.strip())


def skip_reason(url: object, created: object) -> str | None:
    """Why a record is set aside (its reason in the selection's counts), or None when its
    address and creation date can be a candidate's: ``missing_url`` (none, or not
    http(s)), ``bad_url`` (not an address the next steps accept:
    :func:`analysis.core.urls.url_problem`), ``missing_created_at`` (no ISO date) or
    ``created_at_out_of_range`` (not a day, or outside the years a study holds:
    :func:`analysis.core.dates.date_problem`)."""
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        return "missing_url"
    if url_problem(url) is not None:
        return "bad_url"
    if not isinstance(created, str) or not DATE_RE.match(created):
        return "missing_created_at"
    if date_problem(created) is not None:
        return "created_at_out_of_range"
    return None


def time_text(value: object) -> str:
    """A time field as written (an ISO time), or empty when it is not one."""
    return value if isinstance(value, str) and DATE_RE.match(value) else ""


@dataclass
class Tally:
    """What happened to every record of one input: its format and what was skipped."""

    fmt: str = ""
    container: str = ""
    records: int = 0
    skipped: Counter = field(default_factory=Counter)
    examples: dict[str, list[int]] = field(default_factory=dict)

    def skip(self, reason: str, where: int) -> None:
        self.skipped[reason] += 1
        ex = self.examples.setdefault(reason, [])
        if len(ex) < 5:
            ex.append(where)


def is_pull_url(url: str) -> bool:
    """Whether ``url`` is a pull request's page (GitHub ``/pull/N``, Gitee ``/pulls/N``)."""
    return PULL_URL_RE.match(url) is not None


def is_pull_request(record: dict, url: str) -> bool:
    """A pull request by what marks it: a non-null ``pull_request.html_url`` (or ``url``),
    or a pull-request URL. ``"pull_request": {"html_url": null}`` is a plain issue."""
    marker = record.get("pull_request")
    if isinstance(marker, dict) and (marker.get("html_url") or marker.get("url")):
        return True
    return is_pull_url(url)


def repository_of(url: str) -> tuple[str, str] | None:
    """(platform, lower-case owner/name) of an issue URL on GitHub or Gitee, else None."""
    m = REPO_URL_RE.match(url)
    if m is None:
        return None
    return PLATFORM_OF_HOST[m.group(1).lower()], f"{m.group(2)}/{m.group(3)}".lower()


def _decode_error(exc: UnicodeDecodeError, data: bytes, start_line: int, name: str,
                  encoding: str) -> InputError:
    """A decode error as a one-line message naming the line of the bad bytes."""
    line = start_line + data[:exc.start].count(b"\n")
    byte = data[exc.start:exc.start + 1].hex()
    return InputError(f"not valid {encoding.upper().removesuffix('-SIG')} "
                      f"(byte 0x{byte} at offset {exc.start})", file=name, line=line,
                      fix="save the export as UTF-8 (in a spreadsheet program: CSV UTF-8)")


def read_whole(path: Path, name: str, what: str, limits: Limits, fix: str) -> bytes:
    """The bytes of a file read whole, refused when over ``limits.line``."""
    if path.stat().st_size > limits.line:
        raise too_big_to_read_whole(name, what, limits, fix)
    return path.read_bytes()


def text_lines(path: Path, encoding: str, name: str,
               limits: Limits = DEFAULT_LIMITS) -> Iterator[str]:
    """The lines of a text file (line endings kept), decoded strictly.

    UTF-8 is decoded a line at a time (streamed, each line held to ``limits.line``);
    UTF-16, written only by spreadsheet programs and small, is decoded whole (held to
    ``limits.line`` too). A decode error names the line."""
    if encoding.startswith("utf-16"):
        data = read_whole(path, name, "a UTF-16 export", limits,
                          "save it as UTF-8 (in a spreadsheet program: CSV UTF-8)")
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            unit = "\n".encode(encoding.replace("utf-16", "utf-16-le")
                               if encoding == "utf-16" else encoding)
            line = 1 + data[:exc.start].count(unit)
            raise InputError(f"not valid UTF-16 (at byte offset {exc.start})", file=name,
                             line=line, fix="save the export again as UTF-8") from exc
        yield from text.removeprefix("\ufeff").splitlines(keepends=True)
        return
    with open(path, "rb") as handle:
        for n, raw in enumerate(bounded_lines(handle, name, limits), 1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _decode_error(exc, raw, n, name, "utf-8") from exc
            yield text.removeprefix("\ufeff") if n == 1 else text


def _loads(raw: bytes | str, name: str, line: int, first: bool) -> object:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "utf-8" in str(exc).lower() or "surrogate" in str(exc).lower():
            raise InputError("not valid UTF-8", file=name, line=line,
                             fix="save the export as UTF-8") from exc
        hint = ("the file looks like pretty-printed JSON; write one object a line "
                "(perceval --json-line, jq -c)" if first else
                "the export may be truncated or corrupted; re-export it")
        raise InputError(f"not valid JSON ({exc})", file=name, line=line, fix=hint) from exc


def _search_items(value: object) -> list | None:
    """The issues of a search response (``{"total_count": n, "items": [...]}``)."""
    if isinstance(value, dict) and isinstance(value.get("items"), list) \
            and "total_count" in value:
        return value["items"]
    return None


def _records_json(path: Path, encoding: str, name: str, tally: Tally,
                  limits: Limits) -> Iterator[tuple[int, object]]:
    """Records of a JSON file: an array, one object (a search response), or JSON lines."""
    with open(path, "rb") as handle:
        head = handle.read(1 << 16)
    text_head = head.decode(encoding, errors="replace").lstrip("\ufeff").lstrip()
    if text_head.startswith("["):
        tally.container = "JSON array"
        data = read_whole(path, name, "a JSON array", limits,
                          "write one issue a line (JSON lines: jq -c '.[]')")
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            raise _decode_error(exc, data, 1, name, encoding) from exc
        items = _loads(text.removeprefix("\ufeff"), name, 1, False)
        if not isinstance(items, list):
            raise InputError("the JSON is not an array of issues", file=name,
                             fix="export a list of issues")
        yield from enumerate(items, 1)
        return
    handle = open(path, "rb") if encoding == "utf-8" else None
    source = (bounded_lines(handle, name, limits) if handle is not None
              else text_lines(path, encoding, name, limits))
    first = True
    try:
        for n, raw in enumerate(source, 1):
            if not raw.strip():
                continue
            try:
                value = _loads(raw, name, n, first)
            except InputError:
                if not first:
                    raise
                whole = _whole_object(path, encoding, limits)
                items = _search_items(whole)
                if items is None:
                    raise
                tally.container = "JSON (search response)"
                yield from enumerate(items, 1)
                return
            items = _search_items(value)
            if first:
                tally.container = "JSON lines (search responses)" if items is not None \
                    else "JSON lines"
            first = False
            if items is not None:
                for item in items:
                    yield n, item
            else:
                yield n, value
    finally:
        if handle is not None:
            handle.close()


def _whole_object(path: Path, encoding: str, limits: Limits) -> object:
    """The whole file as one JSON value, or None if it is not one (or too big to read
    whole: the caller's message about its first line stands)."""
    if path.stat().st_size > limits.line:
        return None
    try:
        return orjson.loads(path.read_bytes().decode(encoding).removeprefix("\ufeff"))
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        return None


class _Counted:
    """An iterator over lines that counts how many it has given (the csv module's
    ``line_num`` is the last line of a record; the first is wanted) and holds the record
    begun at :meth:`begin` to ``limits.line`` characters."""

    def __init__(self, lines: Iterator[str], name: str, limits: Limits):
        self.lines = lines
        self.count = 0
        self.name = name
        self.limits = limits
        self.start = 1
        self.held = 0

    def __iter__(self):
        return self

    def begin(self) -> int:
        """A record starts at the next line; return that line's number."""
        self.start, self.held = self.count + 1, 0
        return self.start

    def __next__(self) -> str:
        line = next(self.lines)
        self.count += 1
        self.held += len(line)
        if self.held > self.limits.line:
            raise line_too_long(self.name, self.start, self.limits, "a CSV record")
        return line


def _records_csv(path: Path, encoding: str, name: str,
                 limits: Limits) -> Iterator[tuple[int, object]]:
    # Issue bodies with pasted logs exceed the csv module's default 128 KiB per field.
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_LIMIT))
    lines = _Counted(text_lines(path, encoding, name, limits), name, limits)
    reader = csv.reader(lines, strict=True)
    header: list[str] | None = None
    idx: list[int] = []
    optional: dict[str, int] = {}
    while True:
        start = lines.begin()
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"not valid CSV ({exc})", file=name, line=start,
                             fix="re-export the issues, or write JSON lines") from exc
        if not fields:
            continue
        if header is None:
            header = fields
            cols = {h.strip().lower(): i for i, h in enumerate(header)}
            missing = [c for c in CSV_COLUMNS if c not in cols]
            if missing:
                raise InputError(f"unrecognised export format: CSV without column(s) "
                                 f"{', '.join(missing)} (header: {', '.join(header)[:200]})",
                                 file=name, line=start, fix=FIX_FORMATS)
            idx = [cols[c] for c in CSV_COLUMNS]
            optional = {c: cols[c] for c in CSV_OPTIONAL if c in cols}
            continue
        if len(fields) < len(header):
            fields = fields + [""] * (len(header) - len(fields))
        yield start, {"url": fields[idx[0]], "title": fields[idx[1]],
                      "body": fields[idx[2]], "createdAt": fields[idx[3]],
                      "labels": fields[optional["labels"]] if "labels" in optional else "",
                      "updatedAt": fields[optional["updated_at"]]
                      if "updated_at" in optional else ""}


def detect_format(record: object, where: str) -> str:
    """Name the export format from its first record, or refuse it with what was found."""
    if isinstance(record, dict):
        data = record.get("data")
        if isinstance(data, dict) and ("backend_name" in record or "origin" in record):
            if "html_url" in data and "created_at" in data:
                return "perceval"
        if "html_url" in record and "created_at" in record and "title" in record:
            return "rest"
        if "url" in record and "createdAt" in record and "title" in record:
            return "gh-cli"
        if "type" in record and "payload" in record and "repo" in record:
            raise InputError("GH Archive events in an uncompressed file", file=where,
                             fix="pass GH Archive's hourly .json.gz files as they are")
        keys = ", ".join(sorted(map(str, record))[:12]) or "no keys"
    else:
        keys = type(record).__name__
    raise InputError(f"unrecognised export format (first record has: {keys})", file=where,
                     fix=FIX_FORMATS)


def gharchive_name(name: str) -> str:
    """What a GH Archive hour saved under ``name`` should be called (``x.json.gz``)."""
    stem = name
    while (cut := re.sub(r"\.(?:json|jsonl|gz|gzip)$", "", stem, flags=re.IGNORECASE)) != stem:
        stem = cut
    return stem + GHARCHIVE_SUFFIX


def looks_like_gharchive(head: bytes) -> bool:
    """Whether the first bytes of a gzip file decompress to GH Archive events (a line
    with an event's ``type``, ``repo`` and ``payload``); only 64 KiB are decompressed."""
    try:
        text = zlib.decompressobj(wbits=31).decompress(head, 1 << 16)
    except zlib.error:
        return False
    first = text.split(b"\n", 1)[0]
    return first.startswith(b"{") and all(k in first for k in (b'"type":', b'"repo":',
                                                               b'"payload":'))


def gzip_refusal(name: str, head: bytes) -> InputError:
    """Why a gzip file not named ``*.json.gz`` is refused: a GH Archive hour is known by
    its name, so one saved under another name is told to be renamed."""
    if looks_like_gharchive(head):
        return InputError(f"a GH Archive hour whose name does not end in {GHARCHIVE_SUFFIX}",
                          file=name, fix=f"rename it {gharchive_name(name)}: select takes "
                                         f"a file for a GH Archive hour by that ending")
    return InputError("a gzip file that is not a GH Archive hour", file=name,
                      fix="decompress it (gunzip) and pass the export, or pass GH Archive "
                          f"hourly files (*{GHARCHIVE_SUFFIX})")


def read_records(path: str | Path, tally: Tally,
                 limits: Limits = DEFAULT_LIMITS) -> Iterator[Record]:
    """Every issue and pull request of an export, normalised; records that are neither
    (no URL, no creation date, not an object) are counted in ``tally`` and skipped. No
    line or document read whole may be longer than ``limits.line``."""
    path = Path(path)
    name = path.name
    if not path.is_file():
        raise InputError("export file not found", file=str(path), fix="check the path")
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError as exc:
        raise InputError(f"cannot read the export ({exc.strerror})", file=str(path),
                         fix="check that the file is readable") from exc
    if head.startswith(GZIP_MAGIC):
        raise gzip_refusal(name, head)
    encoding = sniff_encoding(head)
    text_head = head.decode(encoding, errors="replace").lstrip("\ufeff").lstrip()
    if not text_head:
        raise InputError("the export is empty", file=name, fix="export some issues")
    if text_head.startswith(("[", "{")):
        records = _records_json(path, encoding, name, tally, limits)
    else:
        tally.container = "CSV"
        records = _records_csv(path, encoding, name, limits)
    if encoding != "utf-8":
        tally.container += f", {encoding.upper().removesuffix('-SIG')}"
    fmt = None
    keys = ("url", "createdAt", "updatedAt")
    for where, rec in records:
        if fmt is None:
            fmt = "csv" if tally.container.startswith("CSV") else detect_format(rec, name)
            tally.fmt = fmt
            keys = (("html_url", "created_at", "updated_at") if fmt in ("rest", "perceval")
                    else keys)
        tally.records += 1
        marked_pr = False
        if fmt == "perceval" and isinstance(rec, dict):
            marked_pr = rec.get("category") == "pull_request"
            rec = rec.get("data")
        if not isinstance(rec, dict):
            tally.skip("not_an_object", where)
            continue
        url = rec.get(keys[0])
        url = url.strip() if isinstance(url, str) else url
        created = rec.get(keys[1])
        if (reason := skip_reason(url, created)) is not None:
            tally.skip(reason, where)
            continue
        title, body = rec.get("title"), rec.get("body")
        yield Record(where, url, title if isinstance(title, str) else None,
                     body if isinstance(body, str) else None, created,
                     marked_pr or is_pull_request(rec, url), label_names(rec.get("labels")),
                     time_text(rec.get(keys[2])))
    if fmt is None:
        raise InputError("the export holds no records", file=name, fix="export some issues")
