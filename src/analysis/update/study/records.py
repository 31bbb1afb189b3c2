"""The ``batches`` stage: the study's batches, as ``params.yaml`` lists them, checked
against the team's records (``labels/<batch>/``), and what each batch's records hold.

    python -m analysis.update.study.records --out build/merged/batches.json [--params FILE]

Each listed batch must have its folder with the annotators' answers in it (filled sheets
or a Label Studio export, :func:`analysis.update.labels.merge.folder_inputs`); anything else is
one line naming the folder and what to do, and the stage fails. The record lists, per
batch in the study's order, its folder and every file of it with its SHA-256, so the
study's provenance says which records made it. A folder of ``labels/`` that the list does
not name is said (it is not part of the study until listed).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import sys
from pathlib import Path

from analysis.core.artifacts import to_json_text, write_text
from analysis.core.batchfiles import read_record, walk_records
from analysis.core.errors import InputError, run_command, user_error_line
from analysis.core.paths import Paths
from analysis.core.safeyaml import safe_load
from analysis.update.labels.merge import folder_inputs
from analysis.update.study import INDEX, RECORDS
from analysis.update.study.params import StudyParams, add_params_option, listed_batches

PROG = "batches"
LISTED = "study.batches in params.yaml"


def batch_record(root: Path, name: str) -> dict:
    """One batch's records: its folder (``labels/<name>``, relative to the project
    ``root``), its inputs, candidates and decisions, and every file's SHA-256. A missing
    folder, one without answers, or records holding anything but regular files within
    their limits (:func:`~analysis.core.batchfiles.walk_records`) is an
    :class:`InputError`."""
    folder = root / RECORDS / name
    shown = f"{RECORDS}/{name}"
    if not (folder.exists() or folder.is_symlink()):
        near = difflib.get_close_matches(name, folders(root), n=1)
        hint = f"did you mean {RECORDS}/{near[0]}? Correct the name in the list, or " \
            if near else ""
        raise InputError(f"batch {name!r} is listed in {LISTED} but has no records folder",
                         file=shown, fix=f"{hint}put the batch's records in {shown}/ "
                         f"(select --out {shown}, labels sheets --out {shown}), or remove "
                         f"{name} from the list")
    walk = walk_records(folder, PROG, shown)
    inputs, candidates, decisions = folder_inputs(folder, walk)
    if not inputs:
        raise InputError("no filled sheets (sheets/annotator_*.csv or .xlsx) nor Label "
                         "Studio export (studio/export.json)", file=shown,
                         fix="put the annotators' filled sheets or the export there, or "
                             f"remove {name} from {LISTED}")
    return {"name": name, "folder": shown,
            "inputs": [p.relative_to(folder).as_posix() for p in inputs],
            "candidates": candidates.relative_to(folder).as_posix() if candidates else None,
            "decisions": decisions.relative_to(folder).as_posix() if decisions else None,
            "files": {rel: hashlib.sha256(read_record(walk, rel)).hexdigest()
                      for rel in sorted(walk.files)}}


def folders(root: Path) -> list[str]:
    """The names of the folders of ``labels/``, sorted."""
    folder = root / RECORDS
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def unlisted(root: Path, names: list[str]) -> list[str]:
    """The folders of ``labels/`` that are not listed batches."""
    return [n for n in folders(root) if n not in names]


def unlisted_note(root: Path, names: list[str]) -> str:
    """The sentence on the folders of ``labels/`` the list leaves out ("" when none)."""
    others = unlisted(root, names)
    return (f"not in {LISTED}, so not in the study: "
            + ", ".join(f"{RECORDS}/{n}" for n in others) if others else "")


def preflight(root: Path) -> tuple[list[str], list[str]]:
    """Before any stage runs (the pipeline driver asks): the problems of the study's list
    of batches, one line each (a batch without its folder or answers, with the folder it
    was likely meant to name), and notes (the folders of ``labels/`` not listed). Said
    first, before DVC finds a listed batch's folder missing; nothing when the project's
    params.yaml has no study."""
    params = Paths(root).params
    try:
        if "study" not in (safe_load(params.read_text(encoding="utf-8")) or {}):
            return [], []
        names = StudyParams.load(params).batches
    except OSError:
        return [], []
    except InputError as exc:
        return [user_error_line(PROG, exc)], []
    problems = []
    for name in names:
        try:
            batch_record(root, name)
        except InputError as exc:
            problems.append(user_error_line(PROG, exc))
    note = unlisted_note(root, names)
    return problems, [f"{PROG}: {note}"] if note else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.update.study.records",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=INDEX, help="the record (default: %(default)s)")
    add_params_option(parser, "study.batches")
    args = parser.parse_args(argv)
    return run_command(PROG, lambda: listed_records(args.params),
                       lambda listed: write_index(*listed, args.out), errors=(InputError,))


def listed_records(params: str) -> tuple[Path, list[str], list[dict]]:
    """The project of the params file, the batches it lists and their records
    (:func:`batch_record`)."""
    root, names = listed_batches(params)
    return root, names, [batch_record(root, name) for name in names]


def write_index(root: Path, names: list[str], records: list[dict], out: str) -> int:
    """Write the batches' ``records`` to ``out`` and say what the study holds; the exit
    status."""
    (root / out).parent.mkdir(parents=True, exist_ok=True)
    write_text(root / out, to_json_text({"batches": records}))
    note = unlisted_note(root, names)
    print(f"{PROG}: {len(records)} batch(es) in the study"
          + (f" ({', '.join(names)})" if names else ": the release alone")
          + (f"; {note}" if note else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
