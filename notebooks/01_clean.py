# %% [markdown]
# # Clean: one tidy row per labelled issue
#
# Reads the raw dump (`data/raw/`, written by the `ingest` stage), discovers projects,
# years and annotators, applies the anomaly rules of `analysis.clean.issues.RULES`, and writes
# the processed issues table, the rows set aside, and the quality report.

# %% tags=["parameters"]
raw_dir = "data/raw"
taxonomy_file = "data/taxonomy.yaml"
projects_file = "data/projects.yaml"
issues_parquet = "data/processed/issues.parquet"
issues_csv = "data/processed/issues.csv"
rejected_csv = "data/processed/rejected.csv"
quality_json = "data/processed/quality.json"
metrics_json = "metrics/clean.json"
duplicates = "keep"

# %%
import warnings
from pathlib import Path

import pandas as pd

from analysis.clean.issues import clean_dump
from analysis.core import artifacts
from analysis.core.config import load_yaml
from analysis.core.taxonomy import load_taxonomy

taxonomy = load_taxonomy(taxonomy_file)
projects_meta = (load_yaml(projects_file) or {}).get("projects", {})
result = clean_dump(Path(raw_dir), taxonomy, projects_meta, duplicates=duplicates)
issues, quality = result.issues, result.quality

# %%
for anomaly in quality["anomalies"]:
    if anomaly["kind"] == "unknown_project":
        warnings.warn(f"{anomaly['file']}: {anomaly['message']}", stacklevel=1)

artifacts.write_parquet(issues_parquet, issues)
artifacts.write_csv(issues_csv, issues)
artifacts.write_csv(rejected_csv, result.rejected)
artifacts.write_json(quality_json, quality)
artifacts.write_json(metrics_json, {
    **{f"rows_{k}": v for k, v in quality["accounting"]["labels"].items()},
    "annotators": len(result.annotators),
    "anomalies": sum(quality["anomaly_counts"].values()),
    "anomaly_counts": quality["anomaly_counts"],
})

# %% [markdown]
# ## Row accounting and anomalies

# %%
pd.DataFrame(quality["accounting"]).T

# %%
pd.Series(quality["anomaly_counts"], name="anomalies", dtype="int64")

# %%
issues.groupby(["project_name", "year"]).size().unstack(fill_value=0)
