"""GH Archive hourly files: the issues opened in the spec's repositories.

GH Archive (https://www.gharchive.org) publishes every public GitHub event, one JSON object
a line, in hourly gzip files (``2024-01-01-15.json.gz``); since 2015 each line is an event
of GitHub's Events API: ``{"id", "type", "actor", "repo": {"id", "name", "url"},
"payload", "public", "created_at", ...}``. An ``IssuesEvent`` whose ``payload.action`` is
``opened`` carries the new issue in ``payload.issue`` (``html_url``, ``title``, ``body``,
``created_at``, ``labels``); every later ``IssuesEvent`` of it (``edited``, ``labeled``,
``closed``...) carries the issue as it then was, so the title, body and labels a candidate
gets are those of its latest event (an ``edited`` event in the hour after the opening
gives the full title of a ``[Bug]: crash`` opened in haste); a ``PullRequestEvent``
``opened`` is a new pull request (counted once, skipped), whatever its payload holds.
Hours before 2015 are in GitHub's older Timeline schema (a ``repository`` object,
``payload.issue`` an id without title or body): they are refused in one line that names
the schema (:func:`schema_problem`).

Almost every event is of another type or another repository, so a file is scanned as
decompressed blocks of whole lines, and only the lines of an issue or pull-request event in
a repository of the spec are parsed. GH Archive writes each event compactly, its ``type``
first and its ``repo`` before its ``payload``: a byte search finds the lines whose type is
``"type":"IssuesEvent"`` or ``"type":"PullRequestEvent"`` (a JSON string cannot hold an
unescaped quote, so text inside titles and bodies never matches), and for those lines
only, the event's ``"repo":{..."name":"owner/name"`` is matched against the spec
(case-insensitive, as GitHub names them). Everything else is counted (a newline count, in
numpy) and skipped without being parsed. The work after decompression then costs a
fraction of the decompression itself, which sets the floor: ISA-L (python-isal, an
optional extra: ``pip install isal``) inflates gzip two to three times faster than zlib
and is used when it is installed, with the same bytes out.

"""

from __future__ import annotations

import glob
import re
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import orjson

from analysis.core.errors import InputError
from analysis.core.sizes import MiB, size_text
from analysis.update.select.formats import (
    DATE_RE,
    DEFAULT_LIMITS,
    FILE_OPTION,
    GHARCHIVE_SUFFIX,
    Limits,
    Record,
    Tally,
    label_names,
    line_too_long,
    skip_reason,
    time_text,
)

try:  # ISA-L's inflate: the same interface as zlib's, two to three times faster
    from isal import isal_zlib as INFLATE
except ImportError:  # pragma: no cover - depends on the optional extra
    INFLATE = zlib

BLOCK = 1 << 20          # compressed bytes read at a time
OUT_BLOCK = 16 * MiB     # the most decompressed bytes asked of zlib at a time
SUFFIX = GHARCHIVE_SUFFIX
OPENED = "opened"
EVENT_TYPES = (b'"type":"IssuesEvent"', b'"type":"PullRequestEvent"')
REPO_KEY = b'"repo":{'
NAME_KEY = b'"name":"'


def repo_pattern(repositories: list[str]) -> re.Pattern[bytes]:
    """The bytes pattern of the top-level ``"name":"owner/name"`` of the given repositories
    (matched ignoring case, as GitHub does)."""
    names = sorted({r.lower() for r in repositories}, key=lambda r: (-len(r), r))
    alternatives = b"|".join(re.escape(n.encode("utf-8")) for n in names)
    return re.compile(rb'"name":"(?i:' + alternatives + rb')"')


def natural(path: str) -> tuple:
    """Sort key: GH Archive's hours are not zero-padded (``-9`` before ``-10``)."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", path))


def expand(inputs: list[str]) -> list[str]:
    """Input files in order: folders give their ``*.json.gz`` files, globs their matches
    (each sorted naturally); a folder or glob without any is a user error."""
    files: list[str] = []
    for item in inputs:
        if Path(item).is_dir():
            found = sorted((str(p) for p in Path(item).glob(f"*{SUFFIX}")), key=natural)
            where = "folder"
        elif glob.has_magic(item):
            found = sorted(glob.glob(item), key=natural)
            where = "pattern"
        else:
            files.append(item)
            continue
        if not found:
            raise InputError(f"no GH Archive files ({where} matches no *{SUFFIX})",
                             file=item, fix="check the path or the pattern (quote it)")
        files += found
    seen: set[str] = set()
    return [f for f in files if not (f in seen or seen.add(f))]


class LineTooLong(Exception):
    """A line of the file is longer than the line limit (its number is the reader's)."""


def too_big(name: str, limits: Limits) -> InputError:
    """The one-line refusal of a file that decompresses to more than ``limits.file``."""
    return InputError(f"decompresses to more than the limit of {size_text(limits.file)} "
                      f"({FILE_OPTION})", file=name,
                      fix=f"a GH Archive hour is far smaller, so the file is damaged or not "
                          f"an hour: download it again (raise {FILE_OPTION} only for a "
                          f"genuine file that big)")


def _blocks(path: Path, name: str, limits: Limits = DEFAULT_LIMITS,
            inflate_module=None) -> Iterator[tuple[bytes, int, int]]:
    """Decompressed whole lines, as ``(buffer, start, end)``: ``buffer[start:end]`` holds
    whole lines (multi-member gzip files included); a damaged or truncated file is a user
    error. The lines are handed over as ranges of what the decompressor gave, not copied:
    only a line begun in one block and ended in the next is joined (and given alone).
    At most ``limits.file`` bytes are decompressed and a line longer than ``limits.line``
    raises :class:`LineTooLong`: the decompressor gives at most one output block at a
    time, no bigger than the line limit, so every line inside a block is shorter than it
    and only the line carried from block to block is measured. ``inflate_module`` is zlib
    or ISA-L's ``isal_zlib`` (default :data:`INFLATE`, the faster one installed)."""
    module = inflate_module or INFLATE
    out_block = min(OUT_BLOCK, limits.line)
    inflate = module.decompressobj(wbits=31)
    held: list[bytes] = []   # the line begun and not yet ended
    held_bytes = 0
    total = 0
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(BLOCK):
                while True:
                    data = inflate.decompress(chunk, out_block)
                    if data:
                        total += len(data)
                        if total > limits.file:
                            raise too_big(name, limits)
                        cut = data.rfind(b"\n")
                        if cut < 0:
                            held_bytes += len(data)
                            if held_bytes > limits.line:
                                raise LineTooLong
                            held.append(data)
                        else:
                            start = 0
                            if held:
                                first = data.find(b"\n")
                                if held_bytes + first > limits.line:
                                    raise LineTooLong
                                held.append(data[:first + 1])
                                line = b"".join(held)
                                yield line, 0, len(line)
                                start = first + 1
                            if start <= cut:
                                yield data, start, cut + 1
                            held = [data[cut + 1:]] if cut + 1 < len(data) else []
                            held_bytes = len(data) - cut - 1
                    if inflate.eof:  # the end of a gzip member; another may follow
                        chunk = inflate.unused_data
                        if not chunk:
                            break
                        inflate = module.decompressobj(wbits=31)
                        continue
                    chunk = inflate.unconsumed_tail
                    if not chunk and len(data) < out_block:
                        break  # the decompressor wants more input
        if not inflate.eof:
            raise InputError("the gzip file is truncated", file=name,
                             fix="download the hour again")
    except (zlib.error, module.error) as exc:
        raise InputError(f"not a valid gzip file ({exc})", file=name,
                         fix="download the hour again") from exc
    rest = b"".join(held)
    if rest.strip():
        yield rest + b"\n", 0, len(rest) + 1


def schema_problem(first_line: bytes, name: str) -> InputError | None:
    """The refusal of an hour written in GH Archive's pre-2015 schema (GitHub's Timeline
    events), judged on its first event; None for the Events API schema it uses since
    2015-01-01.

    Why refuse: in that schema the repository is a ``repository`` object (``owner`` and
    ``name`` apart), not ``repo``, and an ``IssuesEvent``'s ``payload.issue`` is the
    issue's id, without title or body: no keyword can be matched on it, and the
    repository filter would silently find nothing."""
    try:
        event = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        return None  # the scan names the line
    if isinstance(event, dict) and "repository" in event and "repo" not in event:
        return InputError(PRE_2015, file=name,
                          fix="select reads GH Archive hours from 2015-01-01 on; for older "
                              "issues pass an export of the GitHub API instead (gh issue "
                              "list --json url,title,body,createdAt, or REST API pages)")
    return None


PRE_2015 = ("a GH Archive hour in the pre-2015 schema (GitHub Timeline events: a "
            "'repository' object instead of 'repo', 'payload.issue' an id without title or "
            "body)")


def typed_line_starts(block: bytes, lo: int = 0, hi: int | None = None) -> list[int]:
    """The offsets, in order and each once, of the lines of ``block[lo:hi]`` (whole lines)
    that hold an issue or pull-request event (:data:`EVENT_TYPES`): a few percent of GH
    Archive's events, found by a byte search instead of a pattern run over every byte."""
    hi = len(block) if hi is None else hi
    starts: set[int] = set()
    for needle in EVENT_TYPES:
        at = block.find(needle, lo, hi)
        while at >= 0:
            starts.add(max(block.rfind(b"\n", lo, at) + 1, lo))
            at = block.find(needle, at + len(needle), hi)
    return sorted(starts)


def in_spec(block: bytes, start: int, end: int, pattern: re.Pattern[bytes]) -> bool:
    """Whether the event on ``block[start:end]`` is of a repository of ``pattern``: the
    first ``"name"`` of its ``"repo"`` object (GH Archive writes ``repo`` before
    ``payload``); a line without a ``"repo"`` object is searched whole."""
    repo = block.find(REPO_KEY, start, end)
    if repo < 0:
        return pattern.search(block, start, end) is not None
    name = block.find(NAME_KEY, repo, end)
    return name >= 0 and pattern.match(block, name, end) is not None


def newlines(block: bytes, start: int = 0, end: int | None = None) -> int:
    """The number of line breaks in ``block[start:end]``, counted in numpy (several times
    faster than ``bytes.count`` on large blocks)."""
    view = np.frombuffer(block, dtype=np.uint8)[start:end]
    return int(np.count_nonzero(view == 10))


def scan_file(path: str | Path, pattern: re.Pattern[bytes], tally: Tally,
              progress: Callable[[int], None] | None = None,
              limits: Limits = DEFAULT_LIMITS, inflate_module=None) -> Iterator[Record]:
    """The issues opened (and, flagged, the pull requests opened) in the repositories of
    ``pattern`` in one GH Archive file. ``tally.records`` counts every event of the file,
    and every event is counted once: a record yielded, a record skipped for a reason
    (``missing_url``, ``bad_url``, ``missing_created_at``, ``created_at_out_of_range``:
    :func:`~analysis.update.select.formats.skip_reason`; ``malformed_event``: a line that is no
    JSON object, or whose ``payload`` or ``repo`` is not one), or ``other_events``
    (another repository or another type, counted without being parsed). An hour of the
    pre-2015 schema is refused (:func:`schema_problem`); so is a line longer than
    ``limits.line`` or more than ``limits.file`` bytes decompressed, each in one message."""
    path = Path(path)
    name = path.name
    if not path.is_file():
        raise InputError("GH Archive file not found", file=str(path), fix="check the path")
    tally.fmt, tally.container = "gharchive", "gzip JSON lines"
    lines_before = 0
    other = 0
    blocks = _blocks(path, name, limits, inflate_module)
    while True:
        try:
            block, lo, hi = next(blocks)
        except StopIteration:
            break
        except LineTooLong:
            raise line_too_long(name, lines_before + 1, limits) from None
        if lines_before == 0 and (problem := schema_problem(
                block[lo:block.find(b"\n", lo, hi)].strip(), name)) is not None:
            raise problem
        events = newlines(block, lo, hi)
        judged = 0
        cursor, line = lo, lines_before + 1  # the line number at ``cursor``, moved forward
        for start in typed_line_starts(block, lo, hi):
            end = block.find(b"\n", start, hi)
            if not in_spec(block, start, end, pattern):
                continue
            line += newlines(block, cursor, start)
            cursor = start
            record = _event_record(block[start:end], name, line, tally)
            if record is not None:
                judged += 1
                if record is not SKIPPED:
                    yield record
        other += events - judged
        tally.records += events
        lines_before += events
        if progress is not None:
            progress(events)
    if other:
        tally.skipped["other_events"] += other


SKIPPED = Record(0, "", None, None, "", False)  # an event counted under a skip reason


def _event_record(raw: bytes, name: str, line: int, tally: Tally) -> Record | None:
    """The issue (or pull request) an event line opens, or a later sighting of an issue
    (``update``: any other ``IssuesEvent``, ``edited`` among them, whose issue object holds
    the title, body and labels as they were then); :data:`SKIPPED` when it opens one that
    cannot be used (counted in ``tally`` under the reason); None for any other event (and
    a sighting without a title to take).

    A pull request is counted as one whatever its payload holds: GitHub's Events API
    trims some payloads (a ``pull_request`` without ``html_url``), so its address is
    rebuilt from the event's repository and number when it is missing, as is an issue's."""
    if b'"IssuesEvent"' not in raw and b'"PullRequestEvent"' not in raw:
        return None
    try:
        event = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc})", file=name, line=line,
                         fix="download the hour again") from exc
    if not isinstance(event, dict):
        tally.skip("malformed_event", line)
        return SKIPPED
    kind = event.get("type")
    if kind not in ("IssuesEvent", "PullRequestEvent"):
        return None
    payload = event.get("payload") or {}
    if not isinstance(payload, dict) or not isinstance(event.get("repo", {}), dict):
        tally.skip("malformed_event", line)
        return SKIPPED
    pull = kind == "PullRequestEvent"
    update = payload.get("action") != OPENED
    if update and pull:
        return None
    item = payload.get("pull_request" if pull else "issue")
    item = item if isinstance(item, dict) else {}
    url = item.get("html_url") or _address(event, item, payload, pull)
    created = item.get("created_at") or (None if update else event.get("created_at"))
    title, body = item.get("title"), item.get("body")
    if update and not (isinstance(url, str) and isinstance(title, str)
                       and isinstance(created, str) and DATE_RE.match(created)):
        return None
    if (reason := skip_reason(url, created)) is not None:
        tally.skip(reason, line)
        return SKIPPED
    marker = item.get("pull_request")
    pull = pull or (isinstance(marker, dict) and bool(marker.get("html_url")))
    seen = event.get("created_at") or item.get("updated_at")
    return Record(line, url, title if isinstance(title, str) else None,
                  body if isinstance(body, str) else None, created, pull,
                  label_names(item.get("labels")), time_text(seen), update)


def _address(event: dict, item: dict, payload: dict, pull: bool) -> str | None:
    """The web address of an issue or pull request from the event's repository name and
    the item's number, for a payload without ``html_url``; None without them."""
    repo = event.get("repo")
    name = repo.get("name") if isinstance(repo, dict) else None
    number = item.get("number", payload.get("number"))
    if not isinstance(name, str) or "/" not in name or not isinstance(number, int):
        return None
    return f"https://github.com/{name}/{'pull' if pull else 'issues'}/{number}"
