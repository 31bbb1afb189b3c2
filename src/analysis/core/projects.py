"""The projects of the issue dump as the study presents them: display name, order, kind.

``data/projects.yaml`` describes the projects by the folder name they have under
``Issue Report/``: how the pages name them, their row in Table I, whether each is a general
framework or an LLM toolkit, how the paper spells it where it differs, and its repository
(``owner/name``) with the names it had before (``former_names``: an organisation rename
such as microsoft/DeepSpeed -> deepspeedai/DeepSpeed, so that links to the old name still
find its reports). Projects are
discovered from the dump, never from this file: a project it does not describe is shown
under its folder name, ordered after the described ones, of kind ``unknown``.

The same file is the collection spec of :mod:`analysis.update.select`: per project its
``platform``, ``repository`` (``owner/name``), ``former_names`` and ``filter`` (the keyword
list that selects its issues, or ``none`` to take every issue, as the paper does for the
toolkits).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from analysis.core.config import load_yaml
from analysis.core.errors import InputError

UNKNOWN_KIND = "unknown"
UNLISTED_ORDER = 10_000


@dataclass(frozen=True)
class Project:
    key: str                 # the folder name under "Issue Report/"
    name: str                # how the pages name it
    kind: str                # framework, toolkit or unknown
    order: int               # its row in Table I
    paper_name: str | None = None  # how the paper spells it, where that differs
    host: str | None = None
    # the collection spec (python -m analysis.update.select): where the issues live and how they
    # are filtered
    platform: str | None = None      # github or gitee
    repository: str | None = None    # owner/name, as the platform names it today
    former_names: tuple[str, ...] = ()  # earlier owner/name (renames, transfers)
    filter: str | None = None        # the keyword list to filter by; None: every issue


@dataclass(frozen=True)
class Projects:
    """The described projects, by folder name."""

    described: dict[str, Project]

    @classmethod
    def load(cls, path: Path) -> Projects:
        """Read ``data/projects.yaml`` (a missing file describes no project)."""
        if not path.is_file():
            return cls({})
        data = load_yaml(path) or {}
        entries = data.get("projects") or {}
        if not isinstance(entries, dict):
            raise InputError("`projects` must map folder names to descriptions",
                             file=str(path), fix="see the comment at the top of the file")
        return cls({str(key): _project(str(key), value or {}, path)
                    for key, value in entries.items()})

    def get(self, key: str) -> Project:
        """The project of folder ``key``: its description, or one made from the name."""
        return self.described.get(key) or Project(key, key, UNKNOWN_KIND, UNLISTED_ORDER)

    def name(self, key: str) -> str:
        return self.get(key).name

    def kind(self, key: str) -> str:
        return self.get(key).kind

    def names(self, keys: Iterable[str]) -> dict[str, str]:
        """Folder name -> display name, for ``keys``."""
        return {k: self.name(k) for k in keys}

    def order(self, keys: Iterable[str]) -> list[str]:
        """``keys`` in Table I's order (described ones first, then by folder name)."""
        return sorted(set(keys), key=lambda k: (self.get(k).order, k))

    def is_described(self, key: str) -> bool:
        return key in self.described

    def renames(self) -> dict[str, str]:
        """Former ``owner/name`` (lower case) -> the current one, over every project that
        lists ``former_names`` and its ``repository``."""
        return {old.lower(): p.repository for p in self.described.values() if p.repository
                for old in p.former_names}


def _project(key: str, value: dict, path: Path) -> Project:
    if not isinstance(value, dict):
        raise InputError(f"project {key!r}: expected a mapping", file=str(path),
                         fix="write {name: ..., kind: ..., order: ...}")
    return Project(key=key, name=str(value.get("name") or key),
                   kind=str(value.get("kind") or UNKNOWN_KIND),
                   order=int(value.get("order", UNLISTED_ORDER)),
                   paper_name=value.get("paper_name"), host=value.get("host"),
                   **_collection(key, value, path))


PLATFORMS = ("github", "gitee")
REPOSITORY_RE = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def _collection(key: str, value: dict, path: Path) -> dict:
    """The collection-spec keys of one project (``platform``, ``repository``,
    ``former_names``, ``filter``), checked: a wrong one stops with the project named."""
    platform = value.get("platform")
    if platform is not None and platform not in PLATFORMS:
        raise InputError(f"project {key!r}: platform {platform!r} is not one of "
                         f"{', '.join(PLATFORMS)}", file=str(path),
                         fix="write platform: github or platform: gitee")
    names = [value.get("repository"), *(value.get("former_names") or [])]
    for name in names:
        if name is not None and not (isinstance(name, str) and REPOSITORY_RE.fullmatch(name)):
            raise InputError(f"project {key!r}: repository {name!r} is not owner/name",
                             file=str(path), fix="write e.g. repository: pytorch/pytorch")
    if names[1:] and names[0] is None:
        raise InputError(f"project {key!r}: former_names without a repository",
                         file=str(path), fix="add repository: owner/name (its current name)")
    kw_filter = value.get("filter")
    if kw_filter is not None and not isinstance(kw_filter, str):
        raise InputError(f"project {key!r}: filter must name a keyword list or be none",
                         file=str(path), fix="write e.g. filter: pytorch, or filter: none")
    return {"platform": platform, "repository": names[0],
            "former_names": tuple(names[1:]),
            "filter": None if kw_filter in (None, "none") else kw_filter}
