"""The keyword lists of Section III.A: read them safely, count them, audit them.

Upstream's ``filter_keywords`` is Python source (``pytorch_keywords = ['llm', ...]``). It is
data, never code: :func:`parse_keyword_file` reads it with :mod:`ast` and accepts only
top-level assignments of a name to a list (or tuple) of string literals; anything else
(a call, a name, an f-string, an operator) stops with the file and line. Nothing is
executed or evaluated.

What counts as one keyword: one distinct string, exactly as written. The paper's counts
(claims ``keywords.*`` in ``data/claims.yaml``) are the distinct exact strings of each list;
the raw lists are longer (some entries are repeated) and case-insensitive
matching, as :mod:`analysis.update.select` does it, merges a few more ('llm'/'LLM', 'gpt'/'GPT').

The audit (:func:`audit`) lists, per list, what makes a keyword match more or less than
it says: duplicates, keywords short enough to match inside other words under substring
matching ('yi' in 'yield'), keywords contained in others, two keywords merged by a missing
comma ('text generationglm'), edges that are no word characters, and ordinary English or
code words (``data/ordinary_words.tsv``: wordfreq's English words with a Zipf frequency of
3 or more, and Python's keywords and built-in names), which match text that has nothing to
do with LLMs even on word boundaries: 'ZeRO' matches "division by zero".
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.core.dump import decode
from analysis.core.errors import InputError
from analysis.core.words import is_word_char, on_boundary

LIST_SUFFIX = "_keywords"
SHORT_MAX = 3  # keywords this short match inside many words under substring matching
# Common words of issue text, used only to show what a short keyword would hit inside
# words if it were matched as a substring (the audit's examples).
COMMON_WORDS = (
    "yield", "yields", "optimizer", "option", "optional", "output", "adopt", "gpt2",
    "chatgpt", "vllm", "ollama", "qlora", "t5x", "tpus", "vlms",
)
CAMEL_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@dataclass(frozen=True)
class KeywordList:
    """One list of the keyword file: its framework name, entries as written, source lines."""

    framework: str
    entries: list[str]
    lines: list[int]
    merged_literals: list[str]  # entries written as two or more adjacent string literals


def _literal_pieces(source: str, node: ast.AST) -> int:
    """How many string tokens make up a (possibly implicitly concatenated) literal."""
    segment = ast.get_source_segment(source, node) or ""
    try:
        tokens = tokenize.generate_tokens(io.StringIO(segment).readline)
        return sum(1 for t in tokens if t.type == tokenize.STRING)
    except (tokenize.TokenError, SyntaxError):
        return 1


def parse_keyword_file(text: str, file: str = "filter_keywords") -> list[KeywordList]:
    """Read keyword lists from Python-literal source without executing anything."""
    try:
        with warnings.catch_warnings():
            # The parser's own warnings (e.g. "invalid decimal literal") are about the
            # data, not the code; anything that matters becomes an error below.
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, filename=file)
    except SyntaxError as exc:
        raise InputError(f"not valid Python literal syntax ({exc.msg})", file=file,
                         line=exc.lineno, fix="fix the quoting or brackets on that line") from exc
    lists: list[KeywordList] = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)):
            raise InputError("only assignments `name = [...]` are allowed", file=file,
                             line=stmt.lineno, fix="keep the file to lists of strings")
        name = stmt.targets[0].id
        if not isinstance(stmt.value, ast.List | ast.Tuple):
            raise InputError(f"{name} is not a list of strings", file=file, line=stmt.lineno,
                             fix="write the keywords as ['a', 'b', ...]")
        entries, lines, merged = [], [], []
        for elt in stmt.value.elts:
            if not (isinstance(elt, ast.Constant) and isinstance(elt.value, str)):
                raise InputError(f"{name}: element is not a plain string literal "
                                 f"({type(elt).__name__})", file=file, line=elt.lineno,
                                 fix="quote the keyword; expressions are not allowed")
            entries.append(elt.value)
            lines.append(elt.lineno)
            if _literal_pieces(text, elt) > 1:
                merged.append(elt.value)
        framework = name.removesuffix(LIST_SUFFIX) if name.endswith(LIST_SUFFIX) else name
        lists.append(KeywordList(framework, entries, lines, merged))
    if not lists:
        raise InputError("no keyword lists found", file=file,
                         fix="define e.g. pytorch_keywords = ['llm', ...]")
    names = [k.framework for k in lists]
    if len(set(names)) != len(names):
        dup = sorted(n for n, c in Counter(names).items() if c > 1)
        raise InputError(f"list(s) defined twice: {', '.join(dup)}", file=file,
                         fix="keep one definition per framework")
    return lists


def read_keyword_file(path: str | Path) -> list[KeywordList]:
    """Read and parse a keyword file (UTF-8, read as the dump's files are); a missing or
    undecodable file is a user error."""
    p = Path(path)
    try:
        text, _ = decode(p.read_bytes(), str(p))  # a byte-order mark and CRs are no matter
    except FileNotFoundError as exc:
        raise InputError("keyword file not found", file=str(p),
                         fix="point --keywords at upstream's filter_keywords") from exc
    except OSError as exc:
        raise InputError(f"cannot read the keyword file ({exc.strerror})", file=str(p),
                         fix="point --keywords at upstream's filter_keywords") from exc
    return parse_keyword_file(text, str(p.name))


def distinct(entries: list[str]) -> list[str]:
    """Distinct exact strings, first occurrence order (what counts as one keyword)."""
    return list(dict.fromkeys(entries))


def distinct_casefold(entries: list[str]) -> list[str]:
    """One spelling (the first) per case-insensitively distinct keyword."""
    seen: dict[str, str] = {}
    for e in entries:
        seen.setdefault(e.lower(), e)
    return list(seen.values())


def counts(kl: KeywordList) -> dict[str, int]:
    """Raw entries, distinct exact strings, and case-insensitively distinct keywords."""
    return {"raw": len(kl.entries), "distinct": len(distinct(kl.entries)),
            "distinct_casefold": len(distinct_casefold(kl.entries))}


def vocabulary(lists: list[KeywordList]) -> set[str]:
    """Lower-case words of every keyword, plus the acronyms inside camelCase words.

    'ChatGLM' gives 'chatglm' and 'glm'; 'MindFormers' gives only 'mindformers' (its
    capitalised parts are not acronyms), so 'transformers' is not read as two words.
    """
    vocab: set[str] = set()
    for kl in lists:
        for e in kl.entries:
            for word in re.split(r"[^0-9A-Za-z]+", e):
                vocab.add(word.lower())
                vocab.update(p.lower() for p in CAMEL_RE.findall(word)
                             if p.isupper() and len(p) >= 3 and p != word)
    vocab.discard("")
    return vocab


def merged_token(keyword: str, vocab: set[str], min_part: int = 3,
                 min_rest: int = 4) -> str | None:
    """A lower-case word of ``keyword`` that ends (or starts) with another keyword token.

    'text generationglm' -> 'generation|glm' ('glm' is a token of 'ChatGLM'). Words
    written in camelCase are split first, so 'KerasNLP' is not flagged.
    """
    for word in re.split(r"[^0-9A-Za-z]+", keyword):
        if not word or word != word.lower() or len(word) < min_part + min_rest:
            continue
        for k in range(min_part, len(word) - min_rest + 1):
            head, tail = word[:-k], word[-k:]
            if tail in vocab and head not in vocab and tail != word:
                return f"{head}|{tail}"
    return None


def read_ordinary_words(path: str | Path) -> dict[str, tuple[str, str]]:
    """The ordinary-words file: word -> (source, Zipf frequency or ''). Lines starting with
    '#' are comments; a missing file gives no words (the audit then skips the check)."""
    p = Path(path)
    if not p.is_file():
        return {}
    words: dict[str, tuple[str, str]] = {}
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise InputError("expected word, source and frequency, tab-separated", file=p.name,
                             line=n, fix="keep the file's three columns")
        words.setdefault(parts[0], (parts[1], parts[2]))
    return words


def ordinary_detail(source: str, zipf: str) -> str:
    """Why an ordinary word is a finding, with the evidence."""
    if source == "english":
        return (f"an ordinary English word (Zipf frequency {zipf} in wordfreq's English "
                "list): it matches ordinary text that has nothing to do with LLMs, even on "
                "word boundaries")
    return ("a Python keyword or built-in name: it matches code pasted into issues, even on "
            "word boundaries")


def audit(lists: list[KeywordList],
          ordinary: dict[str, tuple[str, str]] | None = None) -> pd.DataFrame:
    """One row per finding: list, keyword, kind, detail (sorted, deterministic).

    Kinds: ``exact_duplicate``, ``case_duplicate``, ``short_keyword``,
    ``contained_in_other``, ``merged_literals``, ``looks_merged``, ``non_word_edge``,
    ``ordinary_word`` (with ``ordinary``, from :func:`read_ordinary_words`).
    """
    ordinary = ordinary or {}
    vocab = vocabulary(lists)
    rows = []
    for kl in lists:
        line_of = {}
        for e, ln in zip(kl.entries, kl.lines, strict=True):
            line_of.setdefault(e, ln)
        for e, n in Counter(kl.entries).items():
            if n > 1:
                rows.append((kl.framework, e, "exact_duplicate", f"listed {n} times",
                             line_of[e]))
        groups: dict[str, list[str]] = {}
        for e in distinct(kl.entries):
            groups.setdefault(e.lower(), []).append(e)
        for spellings in groups.values():
            if len(spellings) > 1:
                rows.append((kl.framework, spellings[0], "case_duplicate",
                             "same keyword as " + ", ".join(repr(s) for s in spellings[1:]),
                             line_of[spellings[0]]))
        kws = distinct_casefold(kl.entries)
        for e in kws:
            low = e.lower()
            if len(low.strip()) <= SHORT_MAX:
                inside = [w for w in COMMON_WORDS if low in w and w != low]
                others = [o for o in kws if low in o.lower() and o.lower() != low
                          and not on_boundary(o, e)]
                hits = inside + [f"keyword {o!r}" for o in others]
                detail = (f"{len(low)} characters; as a substring it would also match "
                          + ("inside " + ", ".join(hits[:6]) if hits else
                             "inside longer words") + "; word-boundary matching does not")
                rows.append((kl.framework, e, "short_keyword", detail, line_of[e]))
            containers = [o for o in kws if o.lower() != low and on_boundary(o, e)]
            if containers:
                rows.append((kl.framework, e, "contained_in_other",
                             "every match of " + ", ".join(repr(c) for c in containers[:4])
                             + " is also a match of this keyword", line_of[e]))
            if not (is_word_char(low[:1]) and is_word_char(low[-1:])):
                rows.append((kl.framework, e, "non_word_edge",
                             "does not start and end with a letter, digit or underscore",
                             line_of[e]))
            if low in ordinary:
                rows.append((kl.framework, e, "ordinary_word", ordinary_detail(*ordinary[low]),
                             line_of[e]))
            split = merged_token(e, vocab)
            if split:
                rows.append((kl.framework, e, "looks_merged",
                             f"'{split.replace('|', '')}' reads as '{split.split('|')[0]}' + "
                             f"'{split.split('|')[1]}': probably two keywords with a "
                             "missing comma", line_of[e]))
        for e in kl.merged_literals:
            rows.append((kl.framework, e, "merged_literals", "written as adjacent string "
                         "literals, which Python joins: a missing comma", line_of[e]))
    frame = pd.DataFrame(rows, columns=["list", "keyword", "kind", "detail", "line"])
    return frame.sort_values(["list", "kind", "line", "keyword"], kind="mergesort") \
        .reset_index(drop=True)


def keyword_table(lists: list[KeywordList]) -> pd.DataFrame:
    """Every entry of every list: position, source line, whether it counts, duplicates."""
    rows = []
    for kl in lists:
        seen: set[str] = set()
        seen_ci: set[str] = set()
        for pos, (e, ln) in enumerate(zip(kl.entries, kl.lines, strict=True), 1):
            rows.append({"list": kl.framework, "position": pos, "line": ln, "keyword": e,
                         "counted": e not in seen,
                         "distinct_casefold": e.lower() not in seen_ci})
            seen.add(e)
            seen_ci.add(e.lower())
    return pd.DataFrame(rows, columns=["list", "position", "line", "keyword", "counted",
                                       "distinct_casefold"])


COUNT_COLUMNS = ["list", "raw", "distinct", "distinct_casefold"]


def counts_table(lists: list[KeywordList]) -> pd.DataFrame:
    """Per list: raw entries, distinct exact strings (the paper's count), case-insensitive.
    No lists (a dump without the keyword file) give an empty table with the same columns."""
    frame = pd.DataFrame([{"list": kl.framework, **counts(kl)} for kl in lists],
                         columns=COUNT_COLUMNS)
    return frame.sort_values("list", kind="mergesort").reset_index(drop=True)


def keywords_for(lists: list[KeywordList], framework: str) -> list[str]:
    """The distinct keywords of one framework's list (a user error if there is none)."""
    by_name = {kl.framework.lower(): kl for kl in lists}
    kl = by_name.get(framework.lower())
    if kl is None:
        raise InputError(f"no keyword list for framework {framework!r}",
                         column="filter",
                         fix="use one of: " + ", ".join(sorted(by_name)))
    return distinct(kl.entries)


@dataclass(frozen=True)
class Keywords:
    """What the stage computes: the lists, their counts, every entry, the audit findings.

    No lists (a dump without the keyword file) give empty tables with the same columns.
    """

    lists: list[KeywordList]
    counts: pd.DataFrame     # per list: raw, distinct (the paper's count), distinct_casefold
    entries: pd.DataFrame    # every entry of every list (:func:`keyword_table`)
    findings: pd.DataFrame   # the audit (:func:`audit`)
