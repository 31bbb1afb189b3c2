# %% [markdown]
# # Scorecard: every number of the paper next to ours
#
# Each stage writes the values it reproduced, keyed by claim id; this notebook compares
# them with `data/claims.yaml` (the only place the paper's numbers live).

# %% tags=["parameters"]
claims_file = "data/claims.yaml"
# every stage's reproduced values (each file is also a dependency in dvc.yaml)
reproduced_dir = "data/reproduced"
scorecard_csv = "report/scorecard.csv"
metrics_json = "metrics/scorecard.json"

# %%
from pathlib import Path

import pandas as pd

from analysis.core import artifacts
from analysis.core.claims import load_claims, merge_reproduced, scorecard, status_counts

claims = load_claims(claims_file)
reproduced_files = sorted(Path(reproduced_dir).glob("*.json"))
reproduced = merge_reproduced([artifacts.read_json(f) for f in reproduced_files])
card = scorecard(claims, reproduced)
artifacts.write_csv(scorecard_csv, card)
artifacts.write_json(metrics_json, {"claims": len(card), **status_counts(card)})

# %%
pd.Series(status_counts(card), name="claims")

# %%
card[card["status"] != "exact"]
