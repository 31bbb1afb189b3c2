# %% [markdown]
# # Scorecard: every number of the paper next to ours
#
# Each stage writes the values it reproduced, keyed by claim id (`data/reproduced/`); this
# notebook compares them with `data/claims.yaml` (the only place the paper's numbers live)
# and the cited examples of `data/examples.yaml` with the labels the release gives them.
# It also counts the reports each challenge of Section V.A rests on (`data/challenges.yaml`,
# from the taxonomy stage's theme counts) and which theme dominates one.

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

from analysis.core.artifacts import read_json
from analysis.core.claims import load_claims
from analysis.core.examples import example_claims, load_examples
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.findings import compute, outputs
from analysis.findings.challenges import load_challenges
from analysis.findings.params import FindingsParams

# %%
params = FindingsParams.read(root, params)
paths = Paths(Path(root).resolve())
reproduced = [read_json(f) for f in sorted(paths.reproduced.glob("*.json"))]
claims = pd.concat([load_claims(paths.claims_file),
                    example_claims(load_examples(paths.examples_file))], ignore_index=True)
themes = pd.read_csv(paths.taxonomy.table("themes.csv"), keep_default_na=False,
                     na_values=[""])
shares = pd.read_csv(paths.taxonomy.table("shares.csv"), keep_default_na=False,
                     na_values=[""])
names = Projects.load(paths.projects_file).names(shares["column"].astype(str).unique())
result = compute.compute(claims, reproduced, themes, shares,
                           load_challenges(paths.challenges_file), names,
                           dominant_share=params.dominant_share)
write_outputs(paths.findings, outputs.build(result))

# %%
pd.Series(compute.status_counts(result.card), name="claims")

# %%
result.card[result.card["status"] != "exact"]

# %% [markdown]
# ## Reports per challenge, and the challenges one theme dominates

# %%
result.coverage

# %%
result.dominant
