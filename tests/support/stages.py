"""The stages' results computed in memory, by the steps their notebooks take in order.

Each stage's notebook (``notebooks/NN_<stage>.py``) runs the steps of the library one
cell at a time; these helpers run the same steps, so that unit tests read a stage's
result without running the notebook. Keep each in step with its notebook.
"""

from __future__ import annotations

import pandas as pd

from analysis.agreement.batches import batch_agreement
from analysis.agreement.compute import (
    Agreement,
    analyse,
    grouping_versus_paper,
    headline,
    make_scale,
    paper_kappas,
)
from analysis.agreement.params import AgreementParams
from analysis.core.batches import release_rows
from analysis.core.projects import Projects
from analysis.core.taxonomy import Taxonomy


def agreement_result(issues: pd.DataFrame, taxonomy: Taxonomy, projects: Projects,
                     claims: pd.DataFrame, params: AgreementParams) -> Agreement:
    """The agreement stage's result, as ``notebooks/04_agreement.py`` computes it."""
    release = release_rows(issues)
    keys = [str(p) for p in pd.unique(release["project"])]
    analysed = analyse(release, taxonomy, projects.order(keys), params)
    return Agreement(analysis=analysed, headline=headline(analysed, claims),
                     grouping=grouping_versus_paper(analysed.grouping, claims),
                     paper_kappas=paper_kappas(claims), project_names=projects.names(keys),
                     batches=batch_agreement(issues, taxonomy, make_scale,
                                             params.confidence_level,
                                             analysed.facts["ac1_categories"]))
