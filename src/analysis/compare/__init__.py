"""The ``compare`` stage: this run against a baseline (the paper's dump)."""

from analysis.compare.params import CompareParams
from analysis.core.pipeline import P, Stage, rel

# What the stage reads and writes (dvc.yaml is generated from it: analysis.tools.pipeline).
STAGE = Stage("compare", reads=(rel(P.clean.processed), rel(P.projects_file),
                                 rel(P.baseline("${compare.baseline}")),
                                 rel(P.agreement.metrics)),
              writes=("tables", "figures", "vars"),
              params=CompareParams)
