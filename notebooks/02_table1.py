# %% [markdown]
# # Table I: issue reports per project, year and type
#
# Counts come from the processed issues table. The false-positive column is computed
# (excluded / candidates) for a dump that records its excluded candidates; otherwise (the
# paper's release, whose excluded reports were never published) it is the paper's own,
# marked as reported.

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)

# %%
from pathlib import Path

import pandas as pd

from analysis.core.claims import load_claims
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy
from analysis.table1 import compute, outputs

# %%
paths = Paths(Path(root).resolve())
issues = pd.read_parquet(paths.clean.issues_parquet)
result = compute.compute(issues, Projects.load(paths.projects_file),
                        load_taxonomy(paths.taxonomy_file).type_names,
                        load_claims(paths.claims_file),
                        pd.read_csv(paths.clean.exclusions_csv, dtype={"project": str}))
write_outputs(paths.table1, outputs.build(result))

# %% [markdown]
# ## Table I (reproduced)

# %%
compute.table1_display(result.table, result.false_positives)

# %% [markdown]
# ## Shares of the issue types (percent)

# %%
result.shares.round(2)
