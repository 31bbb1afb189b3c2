"""The ``agreement`` stage: the paper's Fleiss' kappas and the other agreement statistics,
and an audit of the label columns.

- ``ratings``: the integer-coded ratings, the theme scale, and the label patterns every
  statistic is built from;
- ``estimators``: Fleiss' kappa (both estimators), Krippendorff's alpha and Gwet's AC1
  from pattern sums, with standard errors and intervals, and both Fleiss' kappas per
  group (what the grouping and audit tables use);
- ``bootstrap``: resampled pattern weights and percentile intervals;
- ``tables``: the statistics, per-theme and candidate-grouping tables;
- ``pairwise``: Cohen's kappa between raters, and the confusions;
- ``audit``: how the label columns behave;
- ``compute``: the stage's computation; ``inputs``, ``figures``, ``outputs`` around it.
"""

from analysis.agreement.params import AgreementParams
from analysis.core.pipeline import P, Plot, Stage, rel

# What the stage reads and writes (dvc.yaml is generated from it: analysis.tools.pipeline).
STAGE = Stage("agreement", reads=(rel(P.clean.processed), rel(P.taxonomy_file),
                                   rel(P.projects_file), rel(P.claims_file)),
              writes=("tables", "figures", "vars", "reproduced"),
              plots=(Plot(rel(P.agreement.figure("kappas").with_suffix(".png"))),
                     Plot(rel(P.agreement.table("headline.csv")),
                          "Fleiss' kappa per issue type (Section III.B)", x="kappa",
                          y="group")),
              params=AgreementParams)
