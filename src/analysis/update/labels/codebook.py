"""The codebook annotators label with: every issue type, theme and sub-theme with its
definition, its details and the paper's examples, and the answers that are no theme.

Built from four sources, so that it says what the study knows and nothing typed twice:

- the taxonomy (``data/taxonomy.yaml``): the types, themes and sub-themes, their codes and
  names, and the paper's own words for a sub-theme where they differ from its name;
- the annotators' guide (``data/codebook.yaml``): the paper's definitions of the types, of
  each theme and of a false positive, the instructions, and what ``unsure``,
  ``confidence`` and ``minutes`` mean;
- the release's detail files (the study dump's ``bug_symptoms.csv``,
  ``question_intents.csv`` and ``requirement_expections.csv``, read by
  :func:`analysis.taxonomy.details.parse_detail_files`): the symptoms, intents and
  expectations the paper's annotators mapped to each sub-theme, the first
  :data:`DETAILS_SHOWN` of each; a dump without them gives a codebook without details (and
  its record says so);
- the paper's cited examples (``data/examples.yaml``): the reports it cites for each
  sub-theme.

It is written as rows (the sheets' Codebook tab and ``sheets/codebook.csv``:
:meth:`Codebook.rows`), as HTML (a Label Studio project's instructions: :meth:`Codebook.html`,
every text escaped) and as one line a theme (a Label Studio choice's hint:
:meth:`Codebook.hint`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from analysis.core.config import load_yaml
from analysis.core.errors import InputError
from analysis.core.examples import load_examples, safe_issue_url
from analysis.core.paths import PATHS, recorded_path
from analysis.core.taxonomy import Taxonomy
from analysis.taxonomy.details import parse_detail_files
from analysis.taxonomy.params import TaxonomyParams

# The details shown for each sub-theme: enough to recognise it (the paper's sub-themes
# hold 1 to 112 symptoms, intents or expectations, most of them variants of the first
# few), few enough that a codebook row stays readable in a spreadsheet cell and a Label
# Studio tooltip; the rest are counted ("+N more").
DETAILS_SHOWN = 8
DETAIL_WORDS = {"Bug": "symptoms", "Question": "intents", "Requirement": "expectations"}
EXCLUDED, UNSURE = "excluded", "unsure"
CONFIDENCE = ("low", "medium", "high")
COLUMNS = ["code", "level", "type", "name", "definition", "details", "examples"]
GUIDE_TEXTS = ("instructions", "excluded", "unsure", "confidence", "minutes")
GUIDE_FIX = "keep data/codebook.yaml as the repository has it (see its comments)"


@dataclass(frozen=True)
class Entry:
    """One row of the codebook: a type, a theme, a sub-theme, or an answer that is no
    theme (``excluded``, ``unsure``)."""

    code: str
    level: str  # type | theme | subtheme | answer
    type: str
    name: str
    definition: str = ""
    details: tuple[str, ...] = ()
    more_details: int = 0  # details not shown
    examples: tuple[str, ...] = ()

    def details_text(self) -> str:
        """The details shown, ``; ``-separated, and how many more there are."""
        text = "; ".join(self.details)
        return text + (f" (+{self.more_details:,} more)" if self.more_details else "")


@dataclass(frozen=True)
class Codebook:
    """The entries in the taxonomy's order, the guide's instructions, and where the
    details came from (``record``)."""

    entries: tuple[Entry, ...]
    instructions: str
    record: dict = field(default_factory=dict)

    @property
    def theme_codes(self) -> list[str]:
        return [e.code for e in self.entries if e.level == "theme"]

    def entry(self, code: str) -> Entry:
        return next(e for e in self.entries if e.code == code)

    def rows(self) -> list[list[str]]:
        """Header and one row an entry (:data:`COLUMNS`)."""
        return [COLUMNS] + [[e.code, e.level, e.type, e.name, e.definition, e.details_text(),
                             " ".join(e.examples)] for e in self.entries]

    def hint(self, code: str) -> str:
        """One line about a theme or an answer: its type and definition, then its
        sub-themes by code and name."""
        entry = self.entry(code)
        subs = [f"{e.code} {e.name}" for e in self.entries
                if e.level == "subtheme" and e.code.rsplit(".", 1)[0] == code]
        head = f"{entry.type}. {entry.definition}" if entry.level == "theme" \
            else entry.definition
        return head + (" Sub-themes: " + "; ".join(subs) + "." if subs else "")

    def html(self) -> str:
        """The codebook as HTML (every text escaped; links only to cited issue pages)."""
        out = [f"<p>{html.escape(self.instructions)}</p>"]
        for e in self.entries:
            name = html.escape(f"{e.code} {e.name}" if e.level != "answer" else e.name)
            if e.level in ("type", "answer"):
                out.append(f"<h3>{name}</h3><p>{html.escape(e.definition)}</p>")
            elif e.level == "theme":
                out.append(f"<h4>{name}</h4><p>{html.escape(e.definition)}</p>")
            else:
                links = " ".join(f'<a href="{html.escape(u)}" target="_blank" '
                                 f'rel="noopener noreferrer">{html.escape(u)}</a>'
                                 for u in e.examples)
                said = [html.escape(e.definition), html.escape(e.details_text())]
                out.append(f"<p><b>{name}</b>" + "".join(f"<br>{t}" for t in said if t)
                           + (f"<br>Examples: {links}" if links else "") + "</p>")
        return "\n".join(out)


def load_guide(path: Path = PATHS.codebook_file) -> dict:
    """The annotators' guide (``data/codebook.yaml``), checked: its texts are text, its
    ``types`` and ``themes`` map codes to text."""
    data = load_yaml(path) if Path(path).is_file() else None
    if not isinstance(data, dict):
        raise InputError("not the annotators' guide (a mapping of instructions, types, "
                         "themes and answers)", file=str(path), fix=GUIDE_FIX)
    for key in GUIDE_TEXTS:
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise InputError(f"{key!r} is not a text", file=str(path), fix=GUIDE_FIX)
    for key in ("types", "themes"):
        found = data.get(key)
        if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
            raise InputError(f"{key!r} is not a mapping of codes to texts", file=str(path),
                             fix=GUIDE_FIX)
    return data


def detail_files() -> dict[str, str]:
    """The detail files of a dump by issue type, as the taxonomy stage reads them
    (``taxonomy.detail_files`` of ``params.yaml``)."""
    return {k: str(v) for k, v in TaxonomyParams.load(PATHS.params).detail_files.items()}


def load_details(dump: Path | None, taxonomy: Taxonomy,
                 files: dict[str, str] | None = None) -> tuple[dict[str, list[str]], dict]:
    """Sub-theme code -> its details, from a dump's detail files (parenthesis-aware
    items: a comma inside parentheses splits nothing), and what was read; none without a
    dump or files."""
    if dump is None:
        return {}, {"dump": None, "files": 0}
    files = files if files is not None else detail_files()
    present = {t: rel for t, rel in files.items() if (Path(dump) / rel).is_file()}
    if not present:
        return {}, {"dump": recorded_path(dump), "files": 0}
    result = parse_detail_files(Path(dump), present, taxonomy)
    details: dict[str, list[str]] = {}
    for item in result.items.itertuples(index=False):
        if item.subtheme_code:
            details.setdefault(item.subtheme_code, []).append(item.detail)
    return details, {"dump": recorded_path(dump), "files": len(present),
                     "details": sum(len(v) for v in details.values())}


def build_codebook(taxonomy: Taxonomy, guide: dict, details: dict[str, list[str]] | None = None,
                   examples: dict[str, list[str]] | None = None,
                   record: dict | None = None) -> Codebook:
    """The codebook of ``taxonomy`` (see the module docstring); ``details`` and
    ``examples``: sub-theme code -> texts, URLs."""
    details, examples = details or {}, examples or {}
    types = {code: name for code, name in taxonomy.types.items()}
    themes = taxonomy.themes.sort_values("order", kind="mergesort")
    subs = taxonomy.subthemes.sort_values("order", kind="mergesort")
    entries = []
    for type_code, type_name in types.items():
        entries.append(Entry(type_code, "type", type_name, type_name,
                             str(guide["types"].get(type_code, "")).strip()))
        for theme in themes[themes["type_code"] == type_code].itertuples():
            entries.append(Entry(theme.code, "theme", type_name, theme.name,
                                 " ".join(str(guide["themes"].get(theme.code, "")).split())))
            word = DETAIL_WORDS.get(type_name, "details")
            for sub in subs[subs["theme_code"] == theme.code].itertuples():
                found = details.get(sub.code, [])
                said = sub.paper if sub.paper and sub.paper.casefold() != \
                    sub.name.casefold() else ""
                definition = f"the paper: {said}" if said else ""
                if found:
                    definition = (definition + "; " if definition else "") + \
                        f"{len(found):,} {word} in the release"
                entries.append(Entry(sub.code, "subtheme", type_name, sub.name, definition,
                                     tuple(found[:DETAILS_SHOWN]),
                                     max(0, len(found) - DETAILS_SHOWN),
                                     tuple(examples.get(sub.code, ()))))
    for code in (EXCLUDED, UNSURE):
        entries.append(Entry(code, "answer", "", code, " ".join(guide[code].split())))
    return Codebook(tuple(entries), " ".join(guide["instructions"].split()), record or {})


def cited_examples(path: Path = PATHS.examples_file) -> dict[str, list[str]]:
    """Sub-theme code -> the URLs of the reports the paper cites for it."""
    found: dict[str, list[str]] = {}
    for row in load_examples(path).itertuples(index=False):
        url = safe_issue_url(row.url)
        for code in str(row.subthemes).split(", "):
            if url:
                found.setdefault(code, []).append(url)
    return found


def codebook_for(taxonomy: Taxonomy, dump: Path | None) -> Codebook:
    """The codebook with everything the project holds: the guide, the cited examples and
    the details of ``dump`` (the current study dump; None: without details)."""
    details, record = load_details(dump, taxonomy)
    return build_codebook(taxonomy, load_guide(), details, cited_examples(), record)
