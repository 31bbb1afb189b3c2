"""A JSON list read one item at a time, with bounds, for documents too large to parse whole
(a Label Studio export of a million annotations).

:func:`json_items` reads a file holding one JSON list and yields its items one by one:
only the item being parsed is held (at most ``max_item`` characters of it), so memory
stays that of one item plus what the caller keeps. The file is decoded as UTF-8 (a byte
order mark allowed) as it is read, and its SHA-256 is computed on the way
(:attr:`ItemReader.sha256`). An item is parsed with the standard library's decoder from
where it starts; when the text read so far ends inside it, as much again is read before
the next try, so the work stays linear in the file's size. Anything else than a list of
JSON values is one :class:`~analysis.core.errors.InputError` naming the file and the
character: a syntax error, ``NaN`` or ``Infinity`` (not JSON), nesting deeper than Python
parses (``[`` a hundred thousand times), an item over ``max_item``, data after the list.
"""

from __future__ import annotations

import codecs
import hashlib
import json
from collections.abc import Iterator
from typing import BinaryIO

from analysis.core.errors import InputError
from analysis.core.sizes import MiB, size_text

CHUNK = MiB
WHITESPACE = " \t\r\n"
DELIMITERS = WHITESPACE + ",]"


def refuse_constant(word: str) -> float:
    """``NaN``, ``Infinity`` and ``-Infinity`` are not JSON: refused, not read as floats."""
    raise ValueError(f"{word} is not a JSON number")


DECODER = json.JSONDecoder(parse_constant=refuse_constant)


class ItemReader:
    """The text of one open file, read as it is parsed (see the module docstring)."""

    def __init__(self, handle: BinaryIO, name: str, fix: str):
        self.handle, self.name, self.fix = handle, name, fix
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.digest = hashlib.sha256()
        self.text, self.pos, self.offset, self.eof = "", 0, 0, False

    @property
    def sha256(self) -> str:
        return self.digest.hexdigest()

    def error(self, problem: str) -> InputError:
        return InputError(problem, file=self.name, fix=self.fix)

    def more(self, at_least: int = 0) -> None:
        """Read at least ``at_least`` more bytes (one chunk at least); drop what was parsed."""
        data = self.handle.read(max(CHUNK, at_least))
        self.digest.update(data)
        try:
            new = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise self.error(f"not UTF-8 text ({exc.reason})") from exc
        self.offset += self.pos
        self.text = self.text[self.pos:] + new
        self.pos = 0
        self.eof = not data

    def next_char(self) -> str | None:
        """The next character that is not white space (not consumed); None at the end."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in WHITESPACE:
                self.pos += 1
            if self.pos < len(self.text):
                return self.text[self.pos]
            if self.eof:
                return None
            self.more()

    def complete(self, found: object, end: int) -> bool:
        """Whether a value parsed up to ``end`` is whole: a number only when a delimiter
        follows it (``1`` may be the start of ``12``, ``1.5`` of ``1.5e3``)."""
        if isinstance(found, int | float) and not isinstance(found, bool):
            return end < len(self.text) and self.text[end] in DELIMITERS
        return end < len(self.text)

    def value(self, max_item: int) -> object:
        """The JSON value that starts at the next character."""
        if self.next_char() is None:
            raise self.error("not valid JSON: the file ends inside the list")
        while True:
            try:
                found, end = DECODER.raw_decode(self.text, self.pos)
                if end - self.pos > max_item:
                    raise self.error(f"an item of the list is over the limit of "
                                     f"{size_text(max_item)}")
                if self.eof or self.complete(found, end):
                    self.pos = end
                    return found
                failure = None
            except json.JSONDecodeError as exc:
                failure = f"not valid JSON at character {self.offset + exc.pos:,} ({exc.msg})"
                if self.eof:
                    raise self.error(failure) from exc
            except RecursionError as exc:
                raise self.error(f"JSON nested too deeply in the item at character "
                                 f"{self.offset + self.pos:,}") from exc
            except ValueError as exc:
                raise self.error(f"not valid JSON in the item at character "
                                 f"{self.offset + self.pos:,} ({exc})") from exc
            pending = len(self.text) - self.pos
            if pending > max_item:
                raise self.error(f"an item of the list is over the limit of "
                                 f"{size_text(max_item)}" + (f", or {failure}" if failure
                                                             else ""))
            self.more(pending)


def json_items(reader: ItemReader, max_item: int, what: str = "a JSON list"
               ) -> Iterator[object]:
    """The items of the JSON list ``reader`` reads, one at a time (see the module
    docstring); ``what``: what the file should be, for the message when it is no list."""
    if reader.next_char() != "[":
        raise reader.error(f"not {what}")
    reader.pos += 1
    if reader.next_char() == "]":
        reader.pos += 1
    else:
        while True:
            yield reader.value(max_item)
            found = reader.next_char()
            reader.pos += 1
            if found is None:
                raise reader.error("not valid JSON: the file ends inside the list")
            if found == "]":
                break
            if found != ",":
                raise reader.error(f"not valid JSON at character "
                                   f"{reader.offset + reader.pos - 1:,} (expecting ',' or "
                                   "']' after an item of the list)")
    if reader.next_char() is not None:
        raise reader.error(f"not valid JSON: data after the list, at character "
                           f"{reader.offset + reader.pos:,}")
