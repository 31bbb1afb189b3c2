"""The JSON records a study and a batch carry, checked before anything reads them: a
study's ``labels/batches.json`` (its batches, their label columns and counts) and a batch's
``labels/merge.json`` (what merge read). Each problem is one message naming the file, the
batch and the field. Also the one line that sums up a merge's record, which the command
line and the merge stage print."""

from __future__ import annotations

import json
import re

from analysis.core.errors import InputError

# A batch's name: a plain name, usable as a folder's name and in a label row's Batch cell,
# at most MAX_NAME_CHARS long: it names folders (labels/<batch>, build/merged/<batch>) and
# their working folders (.<batch>-<pid>-<random part>.previous), under every file system's
# limit of 255 bytes a name.
MAX_NAME_CHARS = 100
NAME_RE = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{MAX_NAME_CHARS - 1}}}")
NAME_RULE = f"letters, digits, '.', '_', '-', at most {MAX_NAME_CHARS} characters"


def json_kind(value: object) -> str:
    """What a JSON value is, for a message (``a list``, ``null``...)."""
    kinds = ((None, "null"), (bool, "true or false"), (int, "a number"),
             (float, "a number"), (str, "a string"), (list, "a list"), (dict, "an object"))
    return next((name for kind, name in kinds
                 if (value is None if kind is None else isinstance(value, kind))), "a value")


def batch_field_problem(key: str, value: object) -> str | None:
    """What is wrong with the field ``key`` of an entry of ``labels/batches.json``
    (:data:`BATCH_FIELDS`), or None."""
    if key == "name":
        good = isinstance(value, str) and NAME_RE.fullmatch(value) is not None
        wanted = f"a plain name ({NAME_RULE})"
    elif key == "annotator_columns":
        good = isinstance(value, list) and all(
            isinstance(c, str) and LABEL_COLUMN_RE.fullmatch(c) for c in value)
        wanted = "a list of column names Label<n>"
    elif key == "records_exclusions":
        good, wanted = isinstance(value, bool), "true or false"
    else:  # a count
        good = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        wanted = "a whole number of at least 0"
    if good:
        return None
    shown = json.dumps(value)
    return f"{key!r} is {shown if len(shown) <= 40 else json_kind(value)}, not {wanted}"


# The fields of each batch of a study's ``labels/batches.json`` that extend and the clean
# stage read (extend writes more: counts per project, the inputs' SHA-256).
BATCH_FIELDS = ("name", "annotator_columns", "label_rows", "excluded", "records_exclusions")


LABEL_COLUMN_RE = re.compile(r"Label[1-9][0-9]*")


RECORD_FIX = "give a study extend wrote, with its labels/batches.json as extend wrote it"


def recorded_batches(data: object, shown: str) -> list[dict]:
    """The batches of a study's record (``labels/batches.json``, parsed), checked: an
    object whose ``batches`` is a list of one or more objects, each with the
    :data:`BATCH_FIELDS` of the right kind and a name of its own. Anything else is one
    message naming the file (``shown``), the batch and the field."""
    def refuse(problem: str) -> InputError:
        return InputError(problem, file=shown, fix=RECORD_FIX)

    batches = data.get("batches") if isinstance(data, dict) else None
    if not isinstance(batches, list) or not batches:
        found = (json_kind(data) if not isinstance(data, dict) else
                 "no 'batches'" if "batches" not in data else
                 f"'batches' {json_kind(batches)}" if not isinstance(batches, list) else
                 "an empty 'batches'")
        raise refuse(f"not a record of batches (an object whose 'batches' lists them; "
                     f"found {found})")
    names: set[str] = set()
    for i, entry in enumerate(batches, 1):
        if not isinstance(entry, dict):
            raise refuse(f"batch {i} of 'batches' is {json_kind(entry)}, not an object")
        for key in BATCH_FIELDS:
            if key not in entry:
                raise refuse(f"batch {i} of 'batches' has no {key!r}")
            problem = batch_field_problem(key, entry[key])
            if problem:
                raise refuse(f"batch {i} of 'batches': {problem}")
        if entry["name"] in names:
            raise refuse(f"batch {i} of 'batches' repeats the name {entry['name']!r}")
        names.add(entry["name"])
        if entry.get("annotator_names") is not None:
            problem = names_problem(entry["annotator_names"], len(entry["annotator_columns"]))
            if problem:
                raise refuse(f"batch {i} of 'batches': 'annotator_names' {problem}")
    return batches


def parse_json(raw: bytes, shown: str, fix: str) -> object:
    """The bytes of a JSON file (``shown`` names it), parsed; a file that is not UTF-8
    JSON is one message."""
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # (UnicodeDecodeError is one)
        raise InputError(f"not a JSON file ({exc})", file=shown, fix=fix) from exc


MERGE_FIX = "give the folder labels merge wrote, with its labels/merge.json untouched"


def checked_merge_record(data: object, shown: str) -> dict:
    """A batch's ``labels/merge.json`` (parsed), checked for what extend reads from it:
    an object, ``annotators`` a whole number of at least 1 (or absent), ``sheets`` a list
    of objects, ``decisions`` an object or null. Anything else is one message."""
    def refuse(problem: str) -> InputError:
        return InputError(problem, file=shown, fix=MERGE_FIX)

    if not isinstance(data, dict):
        raise refuse(f"not a merge record (an object; found {json_kind(data)})")
    annotators = data.get("annotators")
    if annotators is not None and (isinstance(annotators, bool) or not isinstance(
            annotators, int) or annotators < 1):
        raise refuse(f"'annotators' is {json_kind(annotators)}, not a whole number of at "
                     "least 1")
    sheets = data.get("sheets") or []
    if not isinstance(sheets, list) or not all(isinstance(s, dict) for s in sheets):
        raise refuse("'sheets' is not a list of objects")
    if not isinstance(data.get("decisions") or {}, dict):
        raise refuse(f"'decisions' is {json_kind(data['decisions'])}, not an object or null")
    names = data.get("annotator_names")
    if names is not None and names_problem(names, annotators) is not None:
        raise refuse(f"'annotator_names' {names_problem(names, annotators)}")
    return data


def names_problem(names: object, count: object) -> str | None:
    """What is wrong with a list of annotators' names beside ``count`` annotators (a name
    a text or null, once each), or None."""
    if not isinstance(names, list) or not all(n is None or (isinstance(n, str) and n)
                                              for n in names):
        return "is not a list of names (or nulls)"
    if isinstance(count, int) and len(names) != count:
        return f"lists {len(names)} names for {count} annotators"
    given = [n for n in names if n]
    if len(given) != len(set(given)):
        return "names someone twice"
    return None


def summary_line(record: dict, out: str) -> str:
    """One line saying what the merge did."""
    projects = record["projects"].values()
    majority = sum(p["with_majority"] for p in projects)
    by_all = sum(p["excluded_by_all"] for p in projects)
    names = [n for n in record.get("annotator_names") or [] if n]
    return (f"merge: {record['annotators']} annotators"
            + (f" ({', '.join(names)})" if names else "")
            + f", {record['candidates']:,} candidates in "
            f"{len(record['projects'])} project(s): {record['labelled']:,} labelled "
            f"({majority:,} by a majority, {record['labelled'] - majority:,} by decision), "
            f"{record['excluded']:,} excluded ({by_all:,} by all annotators, "
            f"{record['excluded'] - by_all:,} by decision), {record['undecided']:,} "
            f"undecided{' (left out of the batch)' if record['undecided'] else ''}; "
            f"{record['adjudication']:,} on labels/adjudication.csv; wrote {out}")
