"""The ``agreement`` stage: the paper's Fleiss' kappas and the other agreement statistics,
and an audit of the label columns.

``ratings`` (coded ratings, the label patterns every statistic is built from),
``fleiss`` (the paper's kappa in the steps of Fleiss 1971, as the notebook shows them),
``estimators`` (the coefficients, their errors and intervals), ``bootstrap``, ``tables``,
``pairwise`` (Cohen's kappa, confusions), ``audit`` (how the label columns behave) and
``compute`` (the statistics and the headline table, which the notebook calls in turn),
with ``inputs``, ``figures`` and ``outputs`` around it.
"""

from analysis.agreement.params import AgreementParams
from analysis.core.pipeline import P, Plot, Stage, rel

STAGE = Stage("agreement", reads=(rel(P.clean.processed), rel(P.taxonomy_file),
                                   rel(P.projects_file), rel(P.claims_file)),
              writes=("tables", "figures", "vars", "reproduced"),
              plots=(Plot(rel(P.agreement.figure("kappas").with_suffix(".png"))),
                     Plot(rel(P.agreement.table("headline.csv")),
                          "Fleiss' kappa per issue type (Section III.B)", x="kappa",
                          y="group")),
              params=AgreementParams)
