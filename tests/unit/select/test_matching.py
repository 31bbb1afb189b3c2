"""The keyword matching rule: word boundaries, and plural endings with --match plural."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.update.select.matching import Matcher, reference_matches

KEYWORDS = ["llm", "LLM", "yi", "gpt", "OPT", "few shot", "torch.compile", "llama",
            "transformer", "transformer decoder", "vLLM", "flash_attn_2", "c++", "fp16"]


def matched(text: str, keywords=KEYWORDS, plural: bool = False) -> set[str]:
    m = Matcher(keywords, plural)
    return {m.keywords[i] for i in m.match([text])[0]}


@pytest.mark.parametrize("text,expect", [
    ("yield the result", set()),
    ("Yi-34B crashes", {"yi"}),
    ("use yi.", {"yi"}),
    ("optimizer options", set()),
    ("OPT-1.3b fails", {"OPT"}),
    ("vllm server", {"vLLM"}),
    ("LLMs are large", set()),
    ("an LLM", {"llm"}),
    ("my_llm_model", set()),
    ("few-shot prompts", set()),
    ("few shot prompts", {"few shot"}),
    ("Torch.Compile hangs", {"torch.compile"}),
    ("torch.compiler", set()),
    ("使用llama模型", {"llama"}),
    ("transformer decoder layer", {"transformer", "transformer decoder"}),
    ("chatgpt and gpt4", set()),
    ("GPT: ok", {"gpt"}),
    ("flash_attn_2 missing", {"flash_attn_2"}),
    ("built with c++17", set()),
    ("built with c++ 17", {"c++"}),
    ("", set()),
])
def test_matching_rule(text, expect):
    assert matched(text) == expect
    assert set(reference_matches(text, Matcher(KEYWORDS).keywords)) == expect


@pytest.mark.parametrize("text,expect", [
    ("LLMs are large", {"llm"}),
    ("two llamas", {"llama"}),
    ("Transformers 4.40", {"transformer"}),
    ("the GPTes", {"gpt"}),
    ("LLMsx", set()),            # a plural ending must end the word too
    ("fp16s", set()),            # keywords ending in a digit take no plural
    ("optimizer options", set()),
    ("vllms", {"vLLM"}),
])
def test_plural_matching(text, expect):
    assert matched(text, plural=True) == expect
    assert set(reference_matches(text, Matcher(KEYWORDS).keywords, plural=True)) == expect


ALPHABET = st.sampled_from(list("abcdeilmnoprstuvy _.-+2\n") + ["é", "中", "L", "Y", "S", "İ"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(KEYWORDS), st.text(ALPHABET, max_size=8)),
                max_size=8), st.booleans())
def test_fast_matcher_equals_the_reference(parts, plural):
    text = "".join(parts)
    assert matched(text, plural=plural) == set(
        reference_matches(text, Matcher(KEYWORDS).keywords, plural=plural))


def test_a_matcher_survives_pickling_for_the_workers():
    m = pickle.loads(pickle.dumps(Matcher(KEYWORDS, plural=True)))
    assert m.plural and m.match(["LLMs"])[0] == [0]


def test_an_empty_list_is_refused():
    from analysis.core.errors import InputError

    with pytest.raises(InputError, match="empty"):
        Matcher(["", " "])
