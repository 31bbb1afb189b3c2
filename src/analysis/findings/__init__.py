"""The ``findings`` stage: the scorecard, every claim of the paper beside its reproduced
value."""

from analysis.core.pipeline import P, Stage, rel
from analysis.findings.params import FindingsParams

# What the stage reads and writes (dvc.yaml is generated from it: analysis.tools.pipeline).
STAGE = Stage("findings", reads=(rel(P.claims_file), rel(P.examples_file),
                                  rel(P.challenges_file), rel(P.projects_file),
                                  rel(P.reproduced), rel(P.taxonomy.table("themes.csv")),
                                  rel(P.taxonomy.table("shares.csv"))),
              writes=("tables", "vars"),
              params=FindingsParams)
