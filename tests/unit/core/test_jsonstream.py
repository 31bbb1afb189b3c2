"""A JSON list read one item at a time: the items json.loads gives, whatever the chunks'
boundaries cut (a number, a multi-byte character, an escape), with a byte order mark, and
every other document one message naming the character."""

from __future__ import annotations

import io
import json

import pytest

from analysis.core import jsonstream
from analysis.core.errors import InputError
from analysis.core.jsonstream import ItemReader, json_items

ITEMS = [{"title": "naïve « é » 🦀 \"quoted\" \\ \u2028", "n": 12345678901234567890},
         123456789, -0.5e-3, "text", None, True, [], {}, [[1, 2], {"a": [3]}], 1e300]


def items(data: bytes, max_item: int = 1 << 20) -> list:
    return list(json_items(ItemReader(io.BytesIO(data), "e.json", "fix it"), max_item))


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_the_items_are_those_json_loads_gives_whatever_the_chunks(monkeypatch, chunk):
    monkeypatch.setattr(jsonstream, "CHUNK", chunk)
    text = json.dumps(ITEMS, ensure_ascii=False, indent=1)
    assert items(text.encode("utf-8")) == json.loads(text)
    assert items(b"\xef\xbb\xbf \n[ ]\n") == []
    assert items(("\ufeff" + json.dumps(ITEMS)).encode("utf-8")) == ITEMS


def test_the_digest_is_that_of_the_bytes_read():
    import hashlib

    data = json.dumps(ITEMS).encode("utf-8")
    reader = ItemReader(io.BytesIO(data), "e.json", "fix it")
    list(json_items(reader, 1 << 20))
    assert reader.sha256 == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("data,said", [
    (b'{"a": 1}', "e.json: not a JSON list -> fix it"),
    (b"", "not a JSON list"),
    (b"[1, 2", "the file ends inside the list"),
    (b"[1 2]", "expecting ',' or ']'"),
    (b"[1,]", "not valid JSON at character 3 (Expecting value)"),
    (b'[1] [2]', "data after the list, at character 4"),
    (b"[NaN]", "NaN is not a JSON number"),
    (b"[-Infinity]", "-Infinity is not a JSON number"),
    (b"[" * 100_000, "JSON nested too deeply"),
    (b'["\xff"]', "not UTF-8 text"),
    (b'["' + b"x" * 5000 + b'"]', "an item of the list is over the limit of 1,000 bytes"),
    (b'[{"a": ' + b" " * 5000 + b"}]", "over the limit of 1,000 bytes"),
])
def test_anything_else_is_one_message(monkeypatch, data, said):
    monkeypatch.setattr(jsonstream, "CHUNK", 256)
    with pytest.raises(InputError, match=None) as caught:
        items(data, 1000)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_large_item_is_read_in_linear_time(monkeypatch):
    """An item far larger than a chunk is parsed a few times, not once per chunk."""
    monkeypatch.setattr(jsonstream, "CHUNK", 1024)
    calls = []
    decode = jsonstream.DECODER.raw_decode

    class Counting:
        def raw_decode(self, text, pos):
            calls.append(len(text) - pos)
            return decode(text, pos)

    monkeypatch.setattr(jsonstream, "DECODER", Counting())
    big = json.dumps(["x" * (1 << 20)]).encode()
    assert items(big, 4 << 20) == ["x" * (1 << 20)]
    assert len(calls) <= 15 and sum(calls) < 3 * len(big)
