# %% [markdown]
# # Clean: one tidy row per labelled issue
#
# Reads the raw dump (`data/raw/`, written by the `ingest` stage), discovers projects,
# years and annotators, applies the anomaly rules of `analysis.clean.rules.RULES`, and
# writes the processed issues table, the rows set aside, and the quality report.

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)
# The stage's settings, by name, each in place of its value in the stage's section of
# params.yaml (which the cell that builds them reads from `root`). nbrun injects the whole
# section, so the executed notebook shows every value; run by hand, leave it empty or give
# only what to change (docs/layout.md, "A notebook run by hand").
params = {}

# %%
import warnings
from pathlib import Path

import pandas as pd

from analysis.clean import compute as cleaning
from analysis.clean import outputs
from analysis.clean.params import CleanParams
from analysis.clean.scan import scan_dump
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy

# %% [markdown]
# ## Load and scan
#
# Every project's label file (one row per candidate issue report, one label column per
# annotator, the final label) and excluded-candidates file, read with every anomaly rule
# applied: a row is kept (perhaps flagged) or set aside with a reason.

# %%
params = CleanParams.read(root, params)
paths = Paths(Path(root).resolve())
taxonomy = load_taxonomy(paths.taxonomy_file)
projects = Projects.load(paths.projects_file)
anomalies = []
scan = scan_dump(paths.raw, projects, taxonomy, params.duplicates, anomalies)
scan.rows["reason"].fillna("kept").value_counts()

# %% [markdown]
# ## The processed issues table
#
# The kept rows, one per labelled issue: project, year, the issue type and theme of its
# final label, each annotator's label; checked against the table's schema.

# %%
issues = cleaning.issues_table(scan, taxonomy)
issues.groupby(["project_name", "year"]).size().unstack(fill_value=0)

# %% [markdown]
# ## The rows set aside, and the quality report

# %%
rejected = cleaning.rejected_table(scan)
quality = cleaning.quality_of(scan, anomalies, rejected, params.duplicates)
for message in cleaning.unknown_projects(quality):
    warnings.warn(message, stacklevel=1)
pd.DataFrame(quality["accounting"]).T

# %%
pd.Series(quality["anomaly_counts"], name="anomalies", dtype="int64")

# %% [markdown]
# ## The excluded candidates (Table I's false positives), then the outputs

# %%
exclusions = cleaning.exclusion_table(scan.exclusions, projects)
result = cleaning.CleanResult(issues, rejected, quality, scan.annotators,
                              cleaning.excluded_table(scan), exclusions,
                              cleaning.people_table(scan))
write_outputs(paths.clean, outputs.build(result))
exclusions
