"""The word boundary of the keyword rule (Section III.A), for every place that matches a
keyword in text: the selection of candidates (:mod:`analysis.update.select.matching`) and the
audit of the keyword lists.

A keyword occurs on a word boundary when no ASCII letter, digit or underscore touches it
on either side; case is ignored for ASCII letters only. Other characters, a CJK one or an
accented letter, are boundaries and keep their case: "使用llama" holds 'llama', "Ärger"
does not hold 'ärger', and the Kelvin sign (U+212A, which ``str.lower`` turns into an ASCII
'k') stays a boundary. One rule, so that what the audit says about a keyword is what the
selection does with it.
"""

from __future__ import annotations

PLURAL_ENDINGS = ("s", "es")


def is_word_char(ch: str) -> bool:
    """An ASCII letter, digit or underscore: what a keyword may not touch."""
    return ch.isascii() and (ch.isalnum() or ch == "_")


def ascii_lower(text: str) -> str:
    """Lower-case ASCII letters only (length-preserving; other characters unchanged)."""
    if text.isascii():
        return text.lower()
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def takes_plural(keyword: str) -> bool:
    """Whether a plural ending may follow ``keyword``: it must end in an ASCII letter."""
    return keyword[-1:].isascii() and keyword[-1:].isalpha()


def _ends_ok(low: str, end: int, plural: bool) -> bool:
    if end == len(low) or not is_word_char(low[end]):
        return True
    if not plural:
        return False
    for ending in PLURAL_ENDINGS:
        stop = end + len(ending)
        if low.startswith(ending, end) and (stop == len(low) or not is_word_char(low[stop])):
            return True
    return False


def on_boundary(text: str, keyword: str, plural: bool = False) -> bool:
    """Whether ``keyword`` occurs in ``text`` on word boundaries, ASCII case ignored.

    ``plural``: an English plural ending (``s``, ``es``) may follow a keyword that ends in
    a letter ('llm' then occurs in "LLMs"; 'fp16' is unchanged).
    """
    low, key = ascii_lower(text), ascii_lower(keyword)
    plural = plural and takes_plural(key)
    start = low.find(key) if key else -1
    while start >= 0:
        if ((start == 0 or not is_word_char(low[start - 1]))
                and _ends_ok(low, start + len(key), plural)):
            return True
        start = low.find(key, start + 1)
    return False
