"""The keyword matching rule of Section III.A, and a fast matcher for many texts at once.

A keyword matches when it occurs in the title or the body, ignoring the case of ASCII
letters, and is neither preceded nor followed by an ASCII letter, digit or underscore. So
'yi' matches "Yi-34B" and "use yi" but not "yield"; 'llm' does not match "vllm"; keywords
with spaces or dots match literally ('few shot' does not match "few-shot"). A CJK
character next to a keyword counts as a boundary, so "使用llama" matches 'llama'. The
rule is :mod:`analysis.core.words`, which the keyword audit uses too.

``plural=True`` (``--match plural``) also accepts an English plural ending ``s`` or ``es``
right after a keyword that ends in a letter: 'llm' then matches "LLMs" and 'transformer'
"transformers"; 'fp16' (ending in a digit) is unchanged.

Speed: a single RE2 pattern (through pyarrow) finds the texts with at least one match; an
Aho-Corasick automaton (pyahocorasick) then lists every keyword of those texts, with the
boundaries checked in numpy.
"""

from __future__ import annotations

import itertools

import ahocorasick
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analysis.core.errors import InputError
from analysis.core.words import ascii_lower, is_word_char, on_boundary, takes_plural

MATCH_MODES = ("word", "plural")
RE2_SPECIAL = set("\\.^$|?*+()[]{}")
_WORD = np.zeros(128, dtype=bool)
for _c in b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_":
    _WORD[_c] = True


def reference_matches(text: str, keywords: list[str], plural: bool = False) -> list[str]:
    """The matching rule, written plainly (the definition the fast matcher is tested on):
    the keywords that occur in ``text`` on word boundaries (:func:`on_boundary`)."""
    return [kw for kw in keywords if on_boundary(text or "", kw, plural)]


def _re2_literal(keyword: str, plural: bool) -> str:
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
    if plural and takes_plural(keyword):
        right = r"(?:[eE]?[sS])?" + right
    return left + body + right


class Matcher:
    """Every keyword of a list, matched by the rule above, fast on many texts at once."""

    def __init__(self, keywords: list[str] | tuple[str, ...], plural: bool = False):
        spelling: dict[str, str] = {}
        for kw in keywords:
            if kw.strip():
                spelling.setdefault(ascii_lower(kw), kw)
        if not spelling:
            raise InputError("the keyword list is empty", column="filter",
                             fix="name a keyword list that has keywords")
        self.plural = plural
        self.keys = list(spelling)  # ASCII-lowered, distinct
        self.keywords = [spelling[k] for k in self.keys]  # first spelling of each
        self.lengths = np.array([len(k) for k in self.keys], dtype=np.int64)
        self.pluralised = np.array([plural and takes_plural(k) for k in self.keys])
        self.pattern = "|".join(_re2_literal(k, plural)
                                for k in sorted(self.keys, key=len, reverse=True))
        self.automaton = ahocorasick.Automaton()
        for i, k in enumerate(self.keys):
            self.automaton.add_word(k, i)
        self.automaton.make_automaton()

    def __reduce__(self):
        # The automaton does not pickle portably; rebuild it where the matcher is used.
        return (Matcher, (self.keywords, self.plural))

    def any_match(self, texts: list[str | None]) -> np.ndarray:
        """Which texts contain at least one keyword (one vectorised RE2 pass)."""
        if not texts:
            return np.zeros(0, dtype=bool)
        arr = pa.array(texts, type=pa.string())
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
        n = len(codes)
        word = np.zeros(n, dtype=bool)
        ascii_mask = codes < 128
        word[ascii_mask] = _WORD[codes[ascii_mask]]

        def word_at(pos: np.ndarray) -> np.ndarray:
            return np.where(pos < n, word[np.minimum(pos, n - 1)], False)

        def char_at(pos: np.ndarray, ch: str) -> np.ndarray:
            return np.where(pos < n, codes[np.minimum(pos, n - 1)] == ord(ch), False)

        before = np.where(begin > 0, word[np.maximum(begin - 1, 0)], False)
        after_ok = ~word_at(ends + 1)
        if self.plural:
            plural = self.pluralised[kw]
            s_end = char_at(ends + 1, "s") & ~word_at(ends + 2)
            es_end = char_at(ends + 1, "e") & char_at(ends + 2, "s") & ~word_at(ends + 3)
            after_ok |= plural & (s_end | es_end)
        ok = ~before & after_ok
        text_of = np.searchsorted(starts, begin[ok], side="right") - 1
        pairs = np.unique(np.stack([text_of, kw[ok]], axis=1), axis=0)
        for t, k in pairs.tolist():
            out[t].append(k)
        return out

    def match(self, texts: list[str | None]) -> list[list[int]]:
        """For each text, the keywords it contains (RE2 pass first, then the automaton on
        the texts that matched)."""
        hit = np.flatnonzero(self.any_match(texts)).tolist()
        out: list[list[int]] = [[] for _ in texts]
        for i, ids in zip(hit, self.find([texts[i] for i in hit]), strict=True):
            out[i] = ids
        return out

    def names(self, indexes: list[int]) -> str:
        """Matched keywords as one ';'-separated cell, in list order."""
        return ";".join(self.keywords[i] for i in indexes)
