"""The word boundary of the keyword rule (:mod:`analysis.core.words`)."""

from __future__ import annotations

import pytest

from analysis.core.words import ascii_lower, is_word_char, on_boundary, takes_plural


def test_word_characters_are_ascii_letters_digits_and_underscore():
    assert all(is_word_char(c) for c in "aZ09_")
    assert not any(is_word_char(c) for c in " -.'é١\u212a")
    assert not is_word_char("")


def test_ascii_lower_keeps_length_and_every_other_character():
    assert ascii_lower("LLaMA Ärger \u212a İ") == "llama Ärger \u212a İ"
    assert len(ascii_lower("İİ")) == 2  # str.lower gives four characters


@pytest.mark.parametrize(("text", "keyword", "plural", "expect"), [
    ("use Yi-34B", "yi", False, True),
    ("yield", "yi", False, False),
    ("vllm", "llm", False, False),
    ("使用llama", "llama", False, True),
    ("LLMs", "llm", False, False),
    ("LLMs", "llm", True, True),
    ("fp16s", "fp16", True, False),
    ("the transformers", "transformer", True, True),
    ("x", "", False, False),
])
def test_a_keyword_occurs_only_where_no_word_character_touches_it(text, keyword, plural,
                                                                  expect):
    assert on_boundary(text, keyword, plural) is expect


# Inputs on which the keyword audit (str.lower, Unicode case) and the selection (ASCII
# case only) used to disagree; the one rule now gives the selection's answer.
@pytest.mark.parametrize(("text", "keyword", "unicode_lower", "expect"), [
    ("ÄRGER", "ärger", True, False),  # a non-ASCII letter keeps its case
    ("\u212allm", "llm", False, True),  # the Kelvin sign is no ASCII 'k': a boundary
    ("İllm", "İllm", True, True),
])
def test_case_is_ignored_for_ascii_letters_only(text, keyword, unicode_lower, expect):
    def audit_before(outer: str, inner: str) -> bool:  # the audit's rule until now
        o, i = outer.lower(), inner.lower()
        start = o.find(i)
        while start >= 0:
            end = start + len(i)
            if ((start == 0 or not is_word_char(o[start - 1]))
                    and (end == len(o) or not is_word_char(o[end]))):
                return True
            start = o.find(i, start + 1)
        return False

    assert audit_before(text, keyword) is unicode_lower
    assert on_boundary(text, keyword) is expect


def test_a_plural_ending_follows_only_a_keyword_ending_in_a_letter():
    assert takes_plural("llm") and not takes_plural("fp16") and not takes_plural("")
