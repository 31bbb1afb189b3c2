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
# The stage's settings, by name, each in place of its value in the stage's section of
# params.yaml (which the cell that builds them reads from `root`). nbrun injects the whole
# section, so the executed notebook shows every value; run by hand, leave it empty or give
# only what to change (docs/layout.md, "A notebook run by hand").
params = {}

# %%
from pathlib import Path

import pandas as pd

from analysis.core.claims import load_claims
from analysis.core.paths import Paths
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy
from analysis.interviews import compute, outputs, read, roles
from analysis.interviews.clean import clean_interviews
from analysis.interviews.params import InterviewsParams

# %% [markdown]
# ## Load and clean
#
# The release's background sheet, codebook and guideline, cleaned: every participant's
# role and experience, every codebook node with the participants who mention it, each
# node checked against the taxonomy.

# %%
params = InterviewsParams.read(root, params)
paths = Paths(Path(root).resolve())
files = read.read_release(paths.raw, params.sheet)
taxonomy = load_taxonomy(paths.taxonomy_file)
data = clean_interviews(files, taxonomy, params)
data.background[["sheet_row", "type", "role_title", "experience_years"]]

# %% [markdown]
# ## Roles: each participant's role in a category (Section IV.A), and every reading
#
# The paper counts participants per role category; the mappings count them under every
# reading of the roles the data allows, and the role claims say which give its counts.

# %%
role_table = roles.role_table(data.background, params.role_categories)
mappings = roles.role_mappings(role_table, [c.key for c in params.role_categories])
role_claims = roles.role_claims(mappings, load_claims(paths.claims_file))
role_claims

# %% [markdown]
# ## The tables of the codebook and the guideline, then the outputs

# %%
guideline = files.guideline.text if files.guideline else ""
result = compute.Interviews(
    data=data, taxonomy=taxonomy,
    participants=compute.participants_table(data.background),
    groups=compute.group_summary(data.background),
    matrix=compute.node_matrix(data.codebook, data.nodes, taxonomy),
    theme_counts=compute.theme_counts(data.codebook, data.nodes, taxonomy),
    quotes=compute.quotes_by_theme(data.codebook, data.nodes, taxonomy),
    questions=compute.guideline_questions(guideline),
    roles=role_table, role_mappings=mappings, session=roles.session_minutes(guideline),
    role_claims=role_claims)
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
