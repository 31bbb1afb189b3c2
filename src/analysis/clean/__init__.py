"""The ``clean`` stage: one tidy row per labelled issue, every anomaly accounted for."""

from analysis.clean.params import CleanParams
from analysis.core.pipeline import P, Stage, rel

# What the stage reads and writes (dvc.yaml is generated from it: analysis.tools.pipeline).
STAGE = Stage("clean", reads=(rel(P.raw), rel(P.taxonomy_file), rel(P.projects_file)),
              writes=("processed", "vars"),
              params=CleanParams)
