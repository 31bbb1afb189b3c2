"""The projects of the issue dump as the study presents them: display name, order, kind.

``data/projects.yaml`` describes the projects by the folder name they have under
``Issue Report/``: how the pages name them, their row in Table I, whether each is a general
framework or an LLM toolkit, how the paper spells it where it differs, and its repository
(``owner/name``) with the names it had before (``former_names``: an organisation rename
such as microsoft/DeepSpeed -> deepspeedai/DeepSpeed, so that links to the old name still
find its reports). Projects are
discovered from the dump, never from this file: a project it does not describe is shown
under its folder name, ordered after the described ones, of kind ``unknown``.
"""

from __future__ import annotations

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
    repository: str | None = None  # owner/name where the project lives now
    former_names: tuple[str, ...] = ()  # owner/name it had before (renames)


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
                   repository=value.get("repository"),
                   former_names=tuple(str(n) for n in value.get("former_names") or ()))
