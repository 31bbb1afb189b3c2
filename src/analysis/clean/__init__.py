"""The ``clean`` stage: one tidy row per labelled issue, every anomaly accounted for."""

from analysis.clean.params import CleanParams
from analysis.core.pipeline import P, Stage, rel

STAGE = Stage("clean", reads=(rel(P.raw), rel(P.taxonomy_file), rel(P.projects_file)),
              writes=("processed", "vars"),
              params=CleanParams)
