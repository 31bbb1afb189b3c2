"""How many pipeline runs a test session made.

Every notebook stage that finishes appends its name and project folder to the file
``ANALYSIS_STAGE_LOG`` names (:func:`analysis.tools.nbrun.note_stage_run`); the suite sets
it once for all its workers and prints the count at the end. A whole-pipeline run is a
run of the first analysis stage (``clean``), on which every later stage depends: a run
that stopped after it counts as whole too, so the count errs high, never low.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

FIRST_ANALYSIS_STAGE = "clean"


def stage_runs(log: Path) -> list[tuple[str, str]]:
    """The (stage, project folder) pairs in the log, in order; none if there is no log."""
    try:
        text = log.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [tuple(line.split("\t", 1)) for line in text.splitlines() if "\t" in line]


def whole_runs(runs: list[tuple[str, str]]) -> int:
    """How many of the runs started the pipeline from its first analysis stage."""
    return sum(1 for stage, _ in runs if stage == FIRST_ANALYSIS_STAGE)


def summary(runs: list[tuple[str, str]]) -> str:
    """One line: whole-pipeline runs, then notebook stage runs per stage."""
    per_stage = Counter(stage for stage, _ in runs)
    stages = ", ".join(f"{s} {n}" for s, n in sorted(per_stage.items()))
    return (f"pipeline runs: {whole_runs(runs)} whole; "
            f"{len(runs)} notebook stage runs ({stages or 'none'})")
