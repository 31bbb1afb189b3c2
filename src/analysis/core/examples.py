"""The paper's cited example reports and its statements that rest on particular themes.

``data/examples.yaml`` (next to ``data/claims.yaml``) lists the issue reports the paper
cites for its sub-themes (Section III.D, references [44] to [111]), the numbered points of
its findings with the themes they speak of, and the interviewees' rankings of themes. This
module reads and checks it; a stage matches the examples against the release,
and the scorecard turns each example into a claim (:func:`example_claims`).

Issue links are data that reach web pages, so an example's URL must be an
``https://github.com/<owner>/<name>/<kind>/<number>`` or ``https://gitee.com/...`` address
(:func:`parse_issue_url`); anything else is refused with the row that holds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.core.config import load_yaml
from analysis.core.errors import InputError
from analysis.core.taxonomy import SUBTHEME_CODE_RE, THEME_CODE_RE

HOSTS = ("github.com", "gitee.com")
# kinds of page whose number is the report's number in its repository: GitHub numbers
# issues, pull requests and discussions in one sequence per repository
KINDS = ("issues", "pull", "pulls", "discussions")
_URL_RE = re.compile(
    rf"https://(?P<host>{'|'.join(map(re.escape, HOSTS))})/"
    r"(?P<owner>[A-Za-z0-9][A-Za-z0-9._-]*)/(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)/"
    rf"(?P<kind>{'|'.join(KINDS)})/(?P<number>[A-Za-z0-9]+)/?")


@dataclass(frozen=True)
class IssueRef:
    """An issue address split into its parts (``repository`` is ``owner/name``)."""

    host: str
    repository: str
    kind: str
    number: str


def parse_issue_url(url: object) -> IssueRef | None:
    """The parts of an issue, pull-request or discussion URL on GitHub or Gitee, or None
    for anything else (another host, another scheme, extra characters)."""
    m = _URL_RE.fullmatch(str(url).strip()) if isinstance(url, str) else None
    if not m:
        return None
    return IssueRef(m["host"], f"{m['owner']}/{m['name']}", m["kind"], m["number"])


def safe_issue_url(url: object) -> str:
    """``url`` if it is a GitHub or Gitee issue address (:func:`parse_issue_url`), else "".
    Pages link only what this returns."""
    return str(url).strip() if parse_issue_url(url) else ""


def _fail(path: Path, what: str, row: int | None, fix: str) -> InputError:
    return InputError(what, file=str(path), row=row, fix=fix)


def _section(data: object, key: str, path: Path) -> list:
    """``data[key]``: a list of entries (none when the key is absent)."""
    if not isinstance(data, dict):
        raise _fail(path, "the file must be a mapping with examples, findings and rankings",
                    None, "see the file's header for its layout")
    entries = data.get(key) or []
    if not isinstance(entries, list):
        raise _fail(path, f"{key} must be a list", None, f"write {key}: as a list of entries")
    return entries


def _whole(value: object, path: Path, what: str, row: int) -> int:
    """A whole number written in the file (a reference, a finding, a count)."""
    try:
        return int(str(value))
    except ValueError:
        raise _fail(path, f"{what}: {value!r} is not a whole number", row,
                    "write the number in digits") from None


def _codes(value: object) -> list[str]:
    """A list of codes; a bare string is one code (not its characters)."""
    return [str(value)] if isinstance(value, str) else [str(v) for v in value or []]


def load_examples(path: Path) -> pd.DataFrame:
    """The cited examples, one row per reference: ``ref``, ``url``, ``subthemes`` (joined
    by ", "), ``theme`` (their common theme), ``source``, and the URL's parts
    (``host``, ``repository``, ``kind``, ``number``). A missing file has no examples."""
    cols = ["ref", "url", "subthemes", "theme", "source", "host", "repository", "kind",
            "number"]
    data = (load_yaml(path) or {}) if path.is_file() else {}
    rows = []
    for i, entry in enumerate(_section(data, "examples", path), 1):
        if not isinstance(entry, dict) or "ref" not in entry or "url" not in entry:
            raise _fail(path, f"example #{i} needs a ref and a url", i,
                        "write {ref: 44, url: ..., subthemes: [A.1.i], source: ...}")
        ref = parse_issue_url(entry["url"])
        if ref is None:
            raise _fail(path, f"example [{entry['ref']}]: {entry['url']!r} is not a GitHub "
                        "or Gitee issue, pull-request or discussion URL", i,
                        "write https://github.com/<owner>/<name>/issues/<number>")
        number = _whole(entry["ref"], path, f"example #{i} ref", i)
        subs = _codes(entry.get("subthemes"))
        bad = [s for s in subs if not SUBTHEME_CODE_RE.fullmatch(s)]
        themes = sorted({s.rsplit(".", 1)[0] for s in subs})  # C.1.ii -> C.1
        if not subs or bad or len(themes) != 1:
            raise _fail(path, f"example [{entry['ref']}]: subthemes must be sub-theme codes "
                        f"of one theme, got {subs}", i, "write e.g. [C.1.i, C.1.ii]")
        rows.append({"ref": number, "url": str(entry["url"]).strip(),
                     "subthemes": ", ".join(subs), "theme": themes[0],
                     "source": str(entry.get("source", "")), "host": ref.host,
                     "repository": ref.repository, "kind": ref.kind, "number": ref.number})
    frame = pd.DataFrame(rows, columns=cols)
    dup = sorted(set(frame["ref"][frame["ref"].duplicated()]))
    if dup:
        raise InputError(f"duplicate example refs {dup}", file=str(path),
                         fix="list each reference once")
    return frame.sort_values("ref", kind="mergesort").reset_index(drop=True)


def _theme_list(values: object, path: Path, what: str, row: int) -> list[str]:
    items = _codes(values)
    if not items or not all(THEME_CODE_RE.fullmatch(v) for v in items):
        raise _fail(path, f"{what}: themes must be theme codes such as A.1, got {items}", row,
                    "fix the theme codes")
    return items


def load_statements(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The findings' points (``id``, ``finding``, ``source``, ``themes``, ``text``) and the
    interview rankings (``id``, ``who``, ``source``, ``of``, ``theme``, ``rank``: one row
    per ranked theme, rank 1 first; themes of one tier share a rank)."""
    data = (load_yaml(path) or {}) if path.is_file() else {}
    findings = []
    for i, f in enumerate(_section(data, "findings", path), 1):
        if not isinstance(f, dict):
            raise _fail(path, f"finding entry #{i} is not a mapping", i,
                        "write {id: ..., finding: 1, themes: [A.1], text: ...}")
        findings.append({"id": str(f.get("id", i)),
                         "finding": _whole(f.get("finding", 0), path, f"finding #{i}", i),
                         "source": str(f.get("source", "")),
                         "themes": ", ".join(_theme_list(f.get("themes"), path,
                                                         f"finding {f.get('id', i)}", i)),
                         "text": str(f.get("text", ""))})
    ranks = []
    for i, r in enumerate(_section(data, "rankings", path), 1):
        if not isinstance(r, dict) or not isinstance(r.get("tiers") or [], list):
            raise _fail(path, f"ranking entry #{i} needs a list of tiers", i,
                        "write tiers: [[A.3], [A.1, A.2]] (one list of themes a rank)")
        of = _whole(r.get("of", 0), path, f"ranking #{i} of", i)
        for rank, tier in enumerate(r.get("tiers") or [], 1):
            for theme in _theme_list(tier, path, f"ranking {r.get('id', i)}", i):
                ranks.append({"id": str(r.get("id", i)), "who": str(r.get("who", "")),
                              "source": str(r.get("source", "")), "of": of,
                              "theme": theme, "rank": rank})
    return (pd.DataFrame(findings, columns=["id", "finding", "source", "themes", "text"]),
            pd.DataFrame(ranks, columns=["id", "who", "source", "of", "theme", "rank"]))


def example_claim_id(ref: object) -> str:
    """The scorecard claim of cited example ``ref``: ``examples.ref44``."""
    return f"examples.ref{ref}"


def example_claims(examples: pd.DataFrame) -> pd.DataFrame:
    """The examples as claims of the scorecard (``kind: label``): claim ``examples.ref44``
    says the release's final label of [44] has the theme the paper cites it for."""
    rows = [{
        "claim_id": example_claim_id(r.ref),
        "description": f"[{r.ref}] {r.repository} {r.kind}/{r.number}, cited for "
                       f"{r.subthemes}: its final label is theme {r.theme}",
        "paper_value": r.theme, "source": r.source, "relation": "=", "kind": "label",
        "reproducible": True, "reason": "", "group": "examples"}
        for r in examples.itertuples(index=False)]
    return pd.DataFrame(rows, columns=["claim_id", "description", "paper_value", "source",
                                       "relation", "kind", "reproducible", "reason", "group"])
