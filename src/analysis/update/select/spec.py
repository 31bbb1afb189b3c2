"""The collection spec: which repositories to read, how to filter each, in what window.

Built from the projects file (``data/projects.yaml``: per project ``platform``,
``repository``, ``former_names``, ``filter``) and the keyword file (``filter_keywords``,
whose lists the filters name). A project without a repository is not collected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from analysis.core.errors import InputError
from analysis.core.projects import Projects
from analysis.keywords.compute import KeywordList, keywords_for
from analysis.update.select.matching import MATCH_MODES

DATE_ARG_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Target:
    """One project to collect: where its issues live and the keywords that select them."""

    key: str                          # the project's folder name
    platform: str                     # github or gitee
    repository: str                   # owner/name today (URLs are rewritten to it)
    former_names: tuple[str, ...]     # earlier owner/name
    filter: str | None                # the keyword list's name; None: every issue
    keywords: tuple[str, ...] | None  # its distinct keywords

    @property
    def names(self) -> tuple[str, ...]:
        return (self.repository, *self.former_names)


@dataclass(frozen=True)
class Spec:
    """The targets in Table I's order, the creation-date window and the matching mode."""

    targets: tuple[Target, ...]
    since: str | None = None
    until: str | None = None
    match: str = "word"

    def repositories(self) -> dict[tuple[str, str], int]:
        """(platform, lower-case owner/name) -> index of the target, former names too."""
        return {(t.platform, name.lower()): i for i, t in enumerate(self.targets)
                for name in t.names}

    def github_names(self) -> list[str]:
        """Every GitHub owner/name of the spec (GH Archive records GitHub only)."""
        return [name for t in self.targets if t.platform == "github" for name in t.names]

    def in_window(self, created: str) -> bool:
        """Whether a creation date (as written, its first ten characters) is in the
        window; both ends included."""
        day = created[:10]
        return not ((self.since and day < self.since) or (self.until and day > self.until))


def _is_date(value: str) -> bool:
    """True for a date of the calendar (2025-02-30 is not one)."""
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def check_window(since: str | None, until: str | None) -> None:
    """``--since``/``--until`` must be YYYY-MM-DD, in order."""
    for value, flag in ((since, "--since"), (until, "--until")):
        if value and not (DATE_ARG_RE.fullmatch(value) and _is_date(value)):
            raise InputError(f"{flag} {value!r} is not a date", column=flag,
                             fix="write dates as YYYY-MM-DD")
    if since and until and since > until:
        raise InputError(f"--since {since} is after --until {until}", column="--since",
                         fix="swap the dates")


def build_spec(projects: Projects, lists: list[KeywordList] | None,
               only: list[str] | None = None, since: str | None = None,
               until: str | None = None, match: str = "word") -> Spec:
    """The spec of the projects file's projects that name a repository (or of ``only``),
    in Table I's order; a filter naming a list the keyword file lacks is a user error."""
    check_window(since, until)
    if match not in MATCH_MODES:
        raise InputError(f"--match {match!r} is not one of {', '.join(MATCH_MODES)}",
                         column="--match", fix="use --match word or --match plural")
    described = projects.described
    unknown = sorted(set(only or ()) - set(described))
    if unknown:
        raise InputError(f"project(s) not in the projects file: {', '.join(unknown)}",
                         column="--project", fix="add them to the projects file, with "
                         "platform, repository and filter, or choose from: "
                         + ", ".join(projects.order(described)))
    keys = projects.order(only or described)
    targets = []
    for key in keys:
        p = described[key]
        if p.repository is None:
            if only:
                raise InputError(f"project {key!r} names no repository", column="--project",
                                 fix="add platform and repository to the projects file")
            continue
        if lists is None and p.filter is not None:
            raise InputError(f"project {key!r} is filtered by the {p.filter!r} keyword list, "
                             "but no keyword file was read", column="--keywords",
                             fix="pass --keywords filter_keywords")
        if p.filter is not None and p.filter.lower() not in {kl.framework.lower()
                                                             for kl in lists or ()}:
            raise InputError(f"project {key!r}: no keyword list {p.filter!r} in the keyword "
                             "file", column="filter", fix="name one of: " + ", ".join(
                                 sorted(kl.framework for kl in lists or ())))
        kws = tuple(keywords_for(lists, p.filter)) if p.filter is not None else None
        targets.append(Target(key, p.platform or "github", p.repository, p.former_names,
                              p.filter, kws))
    if not targets:
        raise InputError("no project of the projects file names a repository",
                         column="--projects",
                         fix="give projects platform, repository and filter")
    return Spec(tuple(targets), since, until, match)
