"""The ``taxonomy`` stage: the Fig. 2 taxonomy rebuilt from the detail files, theme shares
and their tests.

``details`` parses the released detail files, ``compute`` counts the taxonomy they fill
(one table a level of the tree, which the notebook builds in turn), ``distribution`` tests
the type and theme mix by project and year, ``figures`` draws, and ``outputs`` says what the
stage writes."""

from analysis.core.pipeline import P, Plot, Stage, rel
from analysis.taxonomy.params import TaxonomyParams

STAGE = Stage("taxonomy", reads=(rel(P.raw), rel(P.clean.processed), rel(P.taxonomy_file),
                                  rel(P.projects_file), rel(P.examples_file)),
              writes=("processed", "tables", "figures", "vars", "reproduced"),
              plots=(Plot(rel(P.taxonomy.figure("tree").with_suffix(".png"))),
                     Plot(rel(P.taxonomy.table("themes.csv")), "Issues per theme (Fig. 2)",
                          x="issues", y="code")),
              params=TaxonomyParams)
