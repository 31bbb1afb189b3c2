"""The issues a study dump already holds, to leave out of a selection (``select --known``)
and to keep a batch from labelling twice (``labels extend``).

Two addresses name the same report when their normalised keys (:func:`issue_key`) are
equal: the scheme (``http``/``https``), a ``www.``, the letter case of the host, owner
and name, the default port (``:443``, ``:80``), a trailing dot of the host
(``github.com.``), doubled slashes in the path, leading zeros of an issue number
(``/issues/007``), a trailing slash, a query or a fragment do not count (another port,
``:8443``, does; ``/issues/7`` and ``/issues/70`` stay two reports); a former name of a
repository (``former_names`` in ``data/projects.yaml``: ``microsoft/DeepSpeed`` is now
``deepspeedai/DeepSpeed``) counts as its current name; and ``issues/N``, ``pull/N``,
``pulls/N`` and ``discussions/N`` are one report, as the taxonomy stage matches the
paper's cited examples (GitHub numbers issues, pull requests and discussions of a
repository in one sequence; Gitee's issue identifiers are letters and digits, its pull
requests numbers, so they never meet).

A dump "holds" an issue when a project's label file lists it (``Issue_URL``) or its
excluded-candidates file does (a false positive already judged is not to be judged
again).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from analysis.core.config import load_params
from analysis.core.dump import (
    ISSUE_DIR,
    discover_projects,
    parse_excluded_file,
    parse_label_file,
    read_text,
)
from analysis.core.dumpfiles import DumpFiles, walked
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, Paths, project_path

ISSUE_URL_RE = re.compile(
    r"^(?P<host>[^/\s]+)/(?P<owner>[^/\s]+)/(?P<name>[^/\s]+)/"
    r"(?:issues|pull|pulls|discussions)/(?P<number>[^/?#\s]+)", re.IGNORECASE)
SCHEME_RE = re.compile(r"^(?:https?://)?(?:www\.)?", re.IGNORECASE)
NONE = "none"
READER = "select"  # who reads the dump, in messages about its files

# What issue_key ignores, in a sentence (the selection's record states it).
KEY_RULE = ("scheme, www, letter case, default port, trailing dot of the host, doubled and "
            "trailing slashes, leading zeros of the number and issues/pull links ignored, "
            "former names as the current one")
# an address without its scheme: host, port, path, then a query or a fragment
ADDRESS_RE = re.compile(r"(?P<host>[^/?#:]*)(?::(?P<port>\d+))?(?P<path>/[^?#]*)?"
                        r"(?P<tail>[?#].*)?", re.DOTALL)
SLASHES_RE = re.compile(r"/{2,}")
DEFAULT_PORTS = ("443", "80")


def address(url: str) -> str:
    """``url`` without what does not tell reports apart: its scheme, ``www.``, the
    trailing dot of its host and a default port (:data:`DEFAULT_PORTS`), with doubled
    slashes of its path made one (its query and fragment as they are)."""
    text = SCHEME_RE.sub("", url.strip())
    m = ADDRESS_RE.fullmatch(text)
    if m is None:  # not host[:port]/path: keyed as it is written
        return text
    port = m["port"]
    host = m["host"].rstrip(".") + (f":{port}" if port and port not in DEFAULT_PORTS else "")
    return host + SLASHES_RE.sub("/", m["path"] or "") + (m["tail"] or "")


def issue_key(url: str, renames: dict[str, str] | None = None) -> str:
    """The key that identifies the report at ``url`` (see the module docstring):
    ``host/owner/name#number`` in lower case, an issue number without leading zeros, a
    former ``owner/name`` replaced by the current one (``renames``: lower-case former
    name -> current name). An address that is not an issue, pull request or discussion
    is keyed by itself (:func:`address`), without trailing slashes, in lower case."""
    text = address(url)
    m = ISSUE_URL_RE.match(text)
    if m is None:
        return text.rstrip("/").lower()
    repo = f"{m['owner']}/{m['name']}".lower()
    repo = (renames or {}).get(repo, repo).lower()
    number = (m["number"].lstrip("0") or "0") if m["number"].isdigit() else m["number"]
    return f"{m['host'].lower()}/{repo}#{number.lower()}"


@dataclass
class DumpIssues:
    """Every issue a dump holds, by key: where it is (``file, line N``) and its URL."""

    dump: Path
    where: dict[str, str] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)
    labelled: int = 0
    excluded: int = 0

    def __contains__(self, key: str) -> bool:
        return key in self.where

    def __len__(self) -> int:
        return len(self.where)


def dump_issues(dump: Path | DumpFiles, renames: dict[str, str] | None = None,
                option: str = "--known") -> DumpIssues:
    """The issues of the dump at ``dump`` (label files and excluded-candidates files),
    keyed by :func:`issue_key`; a folder that is not a dump is one message. The dump is
    read as ingest reads it (:class:`~analysis.core.dumpfiles.DumpFiles`: links and
    special files refused in one line); ``dump`` is its folder or its walk."""
    root = dump.root if isinstance(dump, DumpFiles) else Path(dump)
    if not (root / ISSUE_DIR).is_dir():
        raise InputError(f"not a study dump (no {ISSUE_DIR!r} folder)", file=str(root),
                         column=option, fix="give a dump in the upstream layout (data/raw, "
                                            "the release, or a study written by labels "
                                            "extend)")
    files = walked(dump, READER)
    found = DumpIssues(root)
    projects, _ = discover_projects(files)
    for project in projects:
        text, _ = read_text(project.label_file, files)
        rel = files.rel(project.label_file)
        parsed = parse_label_file(text, rel)
        column = parsed.header.index(parsed.url_column) if parsed.header else 0
        for rec in parsed.records.itertuples(index=False):
            if column < len(rec.fields) and rec.fields[column].strip():
                found.labelled += _add(found, rec.fields[column], f"{rel}, line {rec.line}",
                                       renames)
        if project.excluded_file is not None:
            text, _ = read_text(project.excluded_file, files)
            rel = files.rel(project.excluded_file)
            for rec in parse_excluded_file(text, rel).itertuples(index=False):
                if rec.url:
                    found.excluded += _add(found, rec.url, f"{rel}, line {rec.line}", renames)
    return found


def _add(found: DumpIssues, url: str, where: str, renames: dict[str, str] | None) -> int:
    """Record one URL (the first place it is listed wins); 1 if it was new."""
    key = issue_key(url, renames)
    if key in found.where:
        return 0
    found.where[key] = where
    found.urls[key] = url.strip()
    return 1


def current_dump(paths: Paths = PATHS) -> tuple[Path | None, str]:
    """The study dump the pipeline reads now, and one line saying which it is: the
    ingested ``data/raw/``, else the folder ``ingest.source`` of ``params.yaml`` names;
    None (and why) when neither is a dump folder."""
    if (paths.raw / ISSUE_DIR).is_dir():
        return paths.raw, f"{paths.raw} (the pipeline's current study dump)"
    try:
        source = (load_params(paths.params).get("ingest") or {}).get("source")
    except InputError:
        source = None
    if source:
        folder = project_path(str(source), paths.root)
        if (folder / ISSUE_DIR).is_dir():
            return folder, f"{folder} (ingest.source of {paths.params.name}; data/raw is absent)"
        return None, (f"ingest.source ({source}) is not a dump folder and data/raw is absent, "
                      "so no issue is left out as known -> pass --known DUMP")
    return None, ("no current study dump (data/raw is absent, ingest.source is not set), so "
                  "no issue is left out as known -> pass --known DUMP")
