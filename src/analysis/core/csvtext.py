"""CSV text that reads back as exactly the rows written: the one CSV writer of the package.

Why: the csv module (and pandas, which writes through it) quotes a cell holding the
delimiter, a quote or a character of the line ending it writes, and nothing else. With
LF line endings a bare carriage return (CR) in a title is written unquoted, and every
reader that takes CR for a line break (pandas, a spreadsheet program, the csv module
reading a file opened in text mode) then reads two rows where one was written: the
second one with the cells an attacker chose. So every cell holding a line break of any
kind (CR, LF, U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR) is quoted here, whatever
the line ending, and a NUL (which pandas' reader takes for the end of the cell, quoted or
not) is written as U+FFFD, the replacement character. Every other cell is written as the
csv module writes it (``QUOTE_MINIMAL``), so a file of ordinary text has the same bytes
as before.

:func:`csv_text` writes rows of cells; :func:`frame_csv_text` writes a DataFrame (pandas
formats the values: floats, missing values, dates, exactly as ``DataFrame.to_csv``).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the frames it writes; importing this module loads no pandas
    import pandas as pd

NUL = "\x00"
NUL_SHOWN = "\ufffd"  # what a NUL is written as
# Characters a reader may take for the end of a line: a cell holding one is quoted.
LINE_BREAKS = "\r\n\u2028\u2029"
QUOTE = '"'


def needs_quotes_pattern(delimiter: str = ",") -> re.Pattern[str]:
    """What makes a cell quoted: the delimiter, a quote or any line break
    (:data:`LINE_BREAKS`)."""
    return re.compile("[" + re.escape(delimiter + QUOTE + LINE_BREAKS) + "]")


COMMA_QUOTES = needs_quotes_pattern(",")
EXTRA = re.compile("[\r\u2028\u2029\x00]")  # what the csv module may leave unquoted


def cell_text(value: object) -> str:
    """A cell as text: None is empty, a NUL is U+FFFD (:data:`NUL_SHOWN`)."""
    text = "" if value is None else str(value)
    return text.replace(NUL, NUL_SHOWN) if NUL in text else text


def quoted(text: str) -> str:
    """A cell in quotes, its own quotes doubled."""
    return QUOTE + text.replace(QUOTE, QUOTE * 2) + QUOTE


def csv_line(cells: Iterable[object], lineterminator: str = "\n",
             delimiter: str = ",") -> str:
    """One row as CSV text ending in ``lineterminator``: each cell quoted when it holds
    the delimiter, a quote or a line break; a row of one empty cell is ``""`` (as the csv
    module writes it, so that it is not read as a blank line)."""
    pattern = COMMA_QUOTES if delimiter == "," else needs_quotes_pattern(delimiter)
    texts = [cell_text(c) for c in cells]
    if texts == [""]:
        return QUOTE * 2 + lineterminator
    return delimiter.join(quoted(t) if pattern.search(t) else t for t in texts) \
        + lineterminator


def csv_text(rows: Iterable[Iterable[object]], lineterminator: str = "\n",
             delimiter: str = ",") -> str:
    """Rows as CSV text (:func:`csv_line` each)."""
    return "".join(csv_line(r, lineterminator, delimiter) for r in rows)


# A cell pandas writes as it is and this module must quote is replaced, before pandas
# writes the frame, by a placeholder pandas quotes itself ("\n<number>\n"); the
# placeholders are then replaced in pandas' text by the cells, quoted. Every cell that
# holds a quote or a line break is replaced so, so no other cell can write the text of
# a placeholder.
PLACEHOLDER = re.compile('"\n([0-9]+)\n"')


def _string_cells(frame: pd.DataFrame) -> list[str]:
    """The columns that may hold text (object, string or category)."""
    import pandas as pd

    return [c for c, dtype in frame.dtypes.items()
            if pd.api.types.is_object_dtype(dtype)
            or isinstance(dtype, pd.StringDtype | pd.CategoricalDtype)]


def frame_csv_text(frame: pd.DataFrame, **kwargs: Any) -> str:
    """A DataFrame as CSV text, formatted by ``DataFrame.to_csv(**kwargs)`` (which must not
    name a file), with the cells holding a line break of any kind quoted and NUL written
    as U+FFFD (see the module docstring). A frame without such a cell is written by pandas
    untouched."""
    delimiter = kwargs.get("sep", ",")
    if kwargs.get("quoting", csv.QUOTE_MINIMAL) != csv.QUOTE_MINIMAL:
        raise ValueError("frame_csv_text writes QUOTE_MINIMAL CSV only")
    columns = [c for c in _string_cells(frame)
               if frame[c].map(lambda v: isinstance(v, str) and EXTRA.search(v) is not None
                               ).any()]
    if not columns:
        return frame.to_csv(**kwargs)
    pattern = needs_quotes_pattern(delimiter)
    cells: list[str] = []

    def hold(value: object) -> object:
        if not isinstance(value, str):
            return value
        if not pattern.search(value):
            return cell_text(value)
        cells.append(quoted(cell_text(value)))
        return f"\n{len(cells) - 1}\n"

    frame = frame.copy()
    for c in _string_cells(frame):
        frame[c] = frame[c].astype(object).map(hold)
    return PLACEHOLDER.sub(lambda m: cells[int(m.group(1))], frame.to_csv(**kwargs))
