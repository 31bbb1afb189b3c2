# %% [markdown]
# # Explorer: every labelled issue for the website's issue explorer
#
# Reads the processed issues table and writes it for the website's issue explorer
# (`issues.html`), its columns dictionary-encoded (`explorer.json`), with how many
# annotators chose each report's final label; and picks a few reports of the release for
# each theme, unanimous and contested, in a fixed order (`release_examples.csv`).

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)

# %%
from pathlib import Path

import pandas as pd

from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy
from analysis.explorer import compute, outputs

# %%
paths = Paths(Path(root).resolve())
result = compute.compute(pd.read_parquet(paths.clean.issues_parquet),
                         load_taxonomy(paths.taxonomy_file), Projects.load(paths.projects_file))
write_outputs(paths.explorer, outputs.build(result))

# %% [markdown]
# ## Reports per project: all, contested, unanimous

# %%
pd.DataFrame(result.explorer["summary"])

# %% [markdown]
# ## The release examples per theme

# %%
result.release_examples[["theme", "agreement", "rank", "issue_url", "agreed", "ratings"]]
