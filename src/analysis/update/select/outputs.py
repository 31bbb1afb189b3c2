"""The selection's folder: its candidates and summary written in one step, an identity of
the candidates the sheets were made from, and a selection that sheets (or a Label Studio
project) were made from kept aside rather than replaced."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import atomic_folder, write_csv, write_json
from analysis.core.errors import InputError
from analysis.update.select.engine import (
    CANDIDATES_FILE,
    SELECTION_DIR,
    SUMMARY_FILE,
    Selection,
    selection_id,
    summary,
)


def write_outputs(folder: Path, sel: Selection) -> dict:
    """Write the candidates and the summary into ``folder`` (the selection folder);
    return the summary."""
    write_csv(folder / CANDIDATES_FILE, sel.candidates)
    record = summary(sel)
    write_json(folder / SUMMARY_FILE, record)
    return record


# What select writes into --out (all that --force replaces), and what it leaves there:
# the sheets ``python -m analysis.update.labels sheets`` writes beside the selection, a Label
# Studio project's record, and earlier selections set aside for the sheets made from them.
OUR_FOLDERS = (SELECTION_DIR,)


SHEETS_DIR = "sheets"


STUDIO_DIR = "studio"


SET_ASIDE_PREFIX = f"{SELECTION_DIR}-"


def set_aside_folder(out: Path, selection: str) -> Path:
    """Where an earlier selection of ``out`` is kept once a new one replaced it
    (``--set-aside``): ``<out>/selection-<id without sel->/``, found there by the merge of
    the sheets made from it."""
    return Path(out) / f"{SET_ASIDE_PREFIX}{selection.removeprefix('sel-')}"


def labelled_from(out: Path) -> str | None:
    """The selection in ``out`` when sheets or a Label Studio project were made from it
    (its id), else None: the labels of people are tied to it."""
    folder = Path(out) / SELECTION_DIR
    candidates = folder / CANDIDATES_FILE
    made = [Path(out) / d for d in (SHEETS_DIR, STUDIO_DIR)
            if (Path(out) / d).is_dir() and any((Path(out) / d).iterdir())]
    if not made or not candidates.is_file():
        return None
    try:
        frame = pd.read_csv(candidates, dtype=str, keep_default_na=False,
                            usecols=["project", "url"])
    except (ValueError, OSError, pd.errors.ParserError):
        return None
    return selection_id(frame)


def check_out(out: Path, force: bool, set_aside: bool = False) -> str | None:
    """``--out`` must be new or empty, hold only sheets, or (with ``--force``) an earlier
    selection: a selection is never replaced by accident. One that sheets (or a Label
    Studio project) were made from is replaced only with ``set_aside`` too, and then kept
    beside (:func:`set_aside_folder`); return its id then (None otherwise)."""
    if out.exists() and not out.is_dir():
        raise InputError("--out is a file", file=str(out), fix="name a folder")
    if not out.is_dir():
        return None
    others = sorted(p.name for p in out.iterdir()
                    if p.name not in (*OUR_FOLDERS, SHEETS_DIR, STUDIO_DIR)
                    and not p.name.startswith(SET_ASIDE_PREFIX))
    if others:
        raise InputError(f"--out holds other files ({', '.join(others[:5])})",
                         file=str(out), fix="choose a new or empty folder")
    if not (out / SELECTION_DIR).exists():
        return None
    if not force:
        raise InputError("--out already holds a selection (sheets may have been made from "
                         "it)", file=str(out), fix="choose another --out, or pass --force")
    labelled = labelled_from(out)
    if labelled is None:
        return None
    if not set_aside:
        raise InputError(f"--out holds the selection {labelled}, which the sheets (or the "
                         "Label Studio project) beside it were made from: replacing it "
                         "would leave their merge without its candidates", file=str(out),
                         fix="choose another --out, or add --set-aside to keep it as "
                             f"{set_aside_folder(out, labelled).name}/ for their merge")
    return labelled


def keep_aside(out: Path, selection: str) -> Path:
    """Move the selection of ``out`` to :func:`set_aside_folder` (one it replaces there is
    the same selection, by its id)."""
    target = set_aside_folder(out, selection)
    if target.exists():
        shutil.rmtree(target)
    os.replace(Path(out) / SELECTION_DIR, target)
    return target


def publish(out: Path, build: Callable[[Path], dict]) -> dict:
    """Build the selection folder of ``out`` aside (``build`` fills the folder it is
    given) and move it into place only on success (:func:`atomic_folder`): a failed run
    leaves an earlier selection as it was and no temporary folder behind."""
    with atomic_folder(out / SELECTION_DIR, public=False) as folder:
        return build(folder)
