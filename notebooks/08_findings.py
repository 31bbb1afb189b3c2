# %% [markdown]
# # Scorecard: every number of the paper next to ours
#
# Each stage writes the values it reproduced, keyed by claim id (`data/reproduced/`); this
# notebook compares them with `data/claims.yaml` (the only place the paper's numbers live)
# and the cited examples of `data/examples.yaml` with the labels the release gives them.

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)

# %%
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import read_json
from analysis.core.claims import load_claims
from analysis.core.examples import example_claims, load_examples
from analysis.core.paths import Paths
from analysis.core.stage import write_outputs
from analysis.findings import outputs, scorecard

# %%
paths = Paths(Path(root).resolve())
reproduced = [read_json(f) for f in sorted(paths.reproduced.glob("*.json"))]
claims = pd.concat([load_claims(paths.claims_file),
                    example_claims(load_examples(paths.examples_file))], ignore_index=True)
result = scorecard.compute(claims, reproduced)
write_outputs(paths.findings, outputs.build(result))

# %%
pd.Series(scorecard.status_counts(result.card), name="claims")

# %%
result.card[result.card["status"] != "exact"]
