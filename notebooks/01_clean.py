# %% [markdown]
# # Clean: one tidy row per labelled issue
#
# Reads the raw dump (`data/raw/`, written by the `ingest` stage), discovers projects,
# years and annotators, applies the anomaly rules of `analysis.clean.compute.RULES`, and writes
# the processed issues table, the rows set aside, and the quality report.

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)
# The stage's section of params.yaml (the one place its values are written), injected by
# `python -m analysis.tools.nbrun`; run by hand, inject them the same way.
duplicates = None

# %%
import warnings
from pathlib import Path

import pandas as pd

from analysis.clean import compute as cleaning
from analysis.clean import outputs
from analysis.clean.params import CleanParams
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy

# %%
params = CleanParams.of(root, duplicates=duplicates)
paths = Paths(Path(root).resolve())
result = cleaning.clean_dump(paths.raw, load_taxonomy(paths.taxonomy_file),
                             Projects.load(paths.projects_file),
                             duplicates=params.duplicates)
for message in cleaning.unknown_projects(result.quality):
    warnings.warn(message, stacklevel=1)
write_outputs(paths.clean, outputs.build(result))

# %% [markdown]
# ## Row accounting and anomalies

# %%
pd.DataFrame(result.quality["accounting"]).T

# %%
pd.Series(result.quality["anomaly_counts"], name="anomalies", dtype="int64")

# %%
result.issues.groupby(["project_name", "year"]).size().unstack(fill_value=0)
