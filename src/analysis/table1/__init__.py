"""The ``table1`` stage: issue reports per project, year and type (the paper's Table I)."""

from analysis.core.pipeline import P, Plot, Stage, rel

# What the stage reads and writes (dvc.yaml is generated from it: analysis.tools.pipeline).
STAGE = Stage("table1", reads=(rel(P.clean.processed), rel(P.projects_file),
                                rel(P.taxonomy_file), rel(P.claims_file)),
              writes=("tables", "figures", "vars", "reproduced"),
              plots=(Plot(rel(P.table1.figure("counts").with_suffix(".png"))),
                     Plot(rel(P.table1.table("counts.csv")), "Issues per project (Table I)",
                          x="Total", y="project")))
