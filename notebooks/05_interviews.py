# %% [markdown]
# # Interviews: participants, codebook, and their links to the taxonomy
#
# Section IV of the paper reports interviews with LLM users and DL framework developers.
# This notebook reads the background sheet, the codebook and the guideline of the release
# (`analysis.interviews.read`), cleans them and checks every linked node against the
# taxonomy (`analysis.interviews.clean`), compares the paper's Section IV.A with the data,
# and writes the tables and figures of the report (`analysis.interviews.outputs`).
# Genders are normalised in the processed data but never shown: the paper publishes none.

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)
# The stage's section of params.yaml (the one place its values are written), injected by
# `python -m analysis.tools.nbrun`; run by hand, inject them the same way.
sheet = None
groups = None
translations = None
role_categories = None

# %%
from pathlib import Path

import pandas as pd

from analysis.core.claims import load_claims
from analysis.core.paths import Paths
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy
from analysis.interviews import compute, outputs, read
from analysis.interviews.params import InterviewsParams

# %%
params = InterviewsParams.of(root, sheet=sheet, groups=groups, translations=translations,
                             role_categories=role_categories)
paths = Paths(Path(root).resolve())
result = compute.compute(read.read_release(paths.raw, params.sheet),
                       load_taxonomy(paths.taxonomy_file), params,
                       load_claims(paths.claims_file))
write_outputs(paths.interviews, outputs.build(result))

# %% [markdown]
# ## Participants (background sheet; no genders) and Section IV.A against the data

# %%
result.groups

# %%
pd.DataFrame(outputs.claim_values(result)).T

# %% [markdown]
# ## Themes linked by users and developers (codebook)

# %%
result.theme_counts

# %% [markdown]
# ## Anomalies found and what was done

# %%
pd.Series(result.data.quality["anomaly_counts"], name="anomalies", dtype="int64")
