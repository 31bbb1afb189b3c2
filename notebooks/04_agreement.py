# %% [markdown]
# # Inter-annotator agreement
#
# The paper's Fleiss' kappas per issue type (Section III.B), then what it leaves out:
# Krippendorff's alpha and Gwet's AC1, analytic and bootstrap intervals, agreement per
# theme, project and year, Cohen's kappa between annotators, the most frequent confusions,
# the chance term behind each kappa, an audit of how the label columns behave, and how much
# the kappas depend on each column. Fleiss' kappa is given by two estimators: on complete
# rows and Gwet's generalised one (every issue with two or more ratings).

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)
# The stage's section of params.yaml (the one place its values are written), injected by
# `python -m analysis.tools.nbrun`; run by hand, inject them the same way.
bootstrap_resamples = None
seed = None
confidence_level = None
ac1_categories = None

# %%
from pathlib import Path

from analysis.agreement import compute as agreement
from analysis.agreement import outputs
from analysis.agreement.inputs import load_issues
from analysis.agreement.params import AgreementParams
from analysis.core.claims import load_claims
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy

# %%
params = AgreementParams.of(root, bootstrap_resamples=bootstrap_resamples, seed=seed,
                            confidence_level=confidence_level, ac1_categories=ac1_categories)
paths = Paths(Path(root).resolve())
result = agreement.compute(load_issues(paths.clean.issues_parquet),
                           load_taxonomy(paths.taxonomy_file),
                           Projects.load(paths.projects_file), load_claims(paths.claims_file),
                           params)
write_outputs(paths.agreement, outputs.build(result))

# %% [markdown]
# ## The paper's kappas and the other coefficients

# %%
result.headline.round(4)

# %% [markdown]
# ## How the grouping moves kappa: observed and chance agreement per candidate grouping

# %%
result.grouping.round(4)

# %% [markdown]
# ## Annotation audit: dissent per issue, observed vs. independent annotators

# %%
result.analysis.dissent.round(1)

# %%
result.analysis.dissent_tests.set_index("model").round(4).T

# %% [markdown]
# ## Sensitivity: Fleiss' kappa per type with each label column left out

# %%
result.analysis.leave_one_out.round(4)

# %%
result.analysis.sensitivity.round(4)
