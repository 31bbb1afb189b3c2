# %% [markdown]
# # Taxonomy: Fig. 2 rebuilt from the released detail files
#
# Reads the three detail files (themes -> sub-themes -> details), repairs what is not
# valid CSV and reports it, maps every theme and sub-theme spelling to the paper's codes
# (`data/taxonomy.yaml`), counts themes, sub-themes, details and issues, and tests whether
# the type and theme mix differs between projects and years.

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)
# The stage's section of params.yaml (the one place its values are written), injected by
# `python -m analysis.tools.nbrun`; run by hand, inject them the same way.
detail_files = None
item_split = None

# %%
import warnings
from pathlib import Path

import pandas as pd

from analysis.core.examples import load_examples, load_statements
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy
from analysis.taxonomy import compute, details, outputs
from analysis.taxonomy.params import TaxonomyParams

# %%
params = TaxonomyParams.of(root, detail_files=detail_files, item_split=item_split)
paths = Paths(Path(root).resolve())
taxonomy = load_taxonomy(paths.taxonomy_file)
parsed = details.parse_detail_files(paths.raw, params.detail_files, taxonomy)
for message in details.notable_anomalies(parsed.quality):
    warnings.warn(message, stacklevel=1)
cited = (load_examples(paths.examples_file), *load_statements(paths.examples_file))
result = compute.compute(parsed, pd.read_parquet(paths.clean.issues_parquet), taxonomy,
                      Projects.load(paths.projects_file), item_split=params.item_split,
                      cited=cited)
write_outputs(paths.taxonomy, outputs.build(result))

# %% [markdown]
# ## Themes, sub-themes and details per type (the scorecard sets them beside the paper's)

# %%
result.types

# %% [markdown]
# ## What was malformed or unusual in the detail files

# %%
pd.DataFrame(parsed.quality["anomalies"])[["kind", "file", "line", "message"]]

# %% [markdown]
# ## The paper's cited examples in the release, and the themes no report carries

# %%
result.examples[["ref", "subthemes", "status", "final_label", "theme_matches", "match_note"]]

# %%
result.empty_themes

# %% [markdown]
# ## Does the type mix differ between projects and years?

# %%
result.mix.table.round(4)
