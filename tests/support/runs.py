"""How many pipeline runs a test session made.

Every notebook stage that finishes appends its name and project folder to the file
``ANALYSIS_STAGE_LOG`` names (:func:`analysis.tools.nbrun.note_stage_run`); the suite sets
it once for all its workers and prints the count at the end.

A whole-pipeline run is a run of the first analysis stage (``clean``) in a project folder
followed, before that folder's next ``clean``, by a run of every notebook stage that reads
clean's output (dvc.yaml says which): the analysis taken from the cleaned issues to every
result. A run that stops earlier (ingest and clean only, to check the quality report; or
the stages one table needs) is a partial run, counted apart; the notebook stage runs count
everything, whole or not.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import yaml

FIRST_ANALYSIS_STAGE = "clean"
CLEAN_OUTPUT = "data/processed/clean"


def stage_runs(log: Path) -> list[tuple[str, str]]:
    """The (stage, project folder) pairs in the log, in order; none if there is no log."""
    try:
        text = log.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [tuple(line.split("\t", 1)) for line in text.splitlines() if "\t" in line]


def clean_readers(dvc_yaml: Path) -> frozenset[str]:
    """The stages of ``dvc_yaml`` that depend on the clean stage's output folder."""
    stages = yaml.safe_load(dvc_yaml.read_text(encoding="utf-8"))["stages"]
    return frozenset(name for name, stage in stages.items()
                     if CLEAN_OUTPUT in (stage.get("deps") or []))


def pipeline_runs(runs: list[tuple[str, str]], readers: frozenset[str]) -> tuple[int, int]:
    """(whole, partial): the runs of ``clean`` after which every one of ``readers`` ran in
    the same folder before its next ``clean``, and the other runs of ``clean``."""
    seen: dict[str, set[str]] = {}  # folder -> the readers run since its last clean
    whole = partial = 0
    for stage, folder in runs:
        if stage == FIRST_ANALYSIS_STAGE:
            if folder in seen:
                partial += 1  # the folder's previous clean never reached every reader
            seen[folder] = set()
        elif folder in seen:
            seen[folder].add(stage)
            if readers <= seen[folder]:
                whole += 1
                del seen[folder]
    return whole, partial + len(seen)


def summary(runs: list[tuple[str, str]], readers: frozenset[str]) -> str:
    """One line: whole and partial pipeline runs, then notebook stage runs per stage."""
    whole, partial = pipeline_runs(runs, readers)
    per_stage = Counter(stage for stage, _ in runs)
    stages = ", ".join(f"{s} {n}" for s, n in sorted(per_stage.items()))
    return (f"pipeline runs: {whole} whole, {partial} partial; "
            f"{len(runs)} notebook stage runs ({stages or 'none'})")
