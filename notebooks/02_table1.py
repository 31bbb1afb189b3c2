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

from analysis.core.batches import RELEASE, is_study, release_rows
from analysis.core.claims import load_claims
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy
from analysis.table1 import compute, outputs

# %% [markdown]
# ## Load
#
# The processed issues (the clean stage's table: one row per labelled issue, with its
# project, year and type), the clean stage's record of excluded candidates, the issue
# types of the taxonomy, the projects and the paper's printed values. On a study (the
# release extended with batches of new labels) Table I is the release's rows and
# exclusions.

# %%
paths = Paths(Path(root).resolve())
issues = pd.read_parquet(paths.clean.issues_parquet)
exclusions = pd.read_csv(paths.clean.exclusions_csv, dtype={"project": str})
projects = Projects.load(paths.projects_file)
types = load_taxonomy(paths.taxonomy_file).type_names
claims = load_claims(paths.claims_file)
release = release_rows(issues)
own = compute.exclusions_of(exclusions, RELEASE)
release[["project", "year", "type"]].head()

# %% [markdown]
# ## Table I's rows: the projects in the paper's order
#
# A project whose candidates were all excluded has no issue but keeps its row (it carries
# a false-positive rate).

# %%
rows = compute.project_rows(release, projects, compute.excluded_only(release, own))
rows

# %% [markdown]
# ## The two group-bys: issues per project and year, per project and type

# %%
by_year = compute.counts_by_year(release, rows)
by_year

# %%
by_type = compute.counts_by_type(release, rows, types)
by_type

# %% [markdown]
# ## Totals: each project's issues, and the Sum row
#
# The Total column adds up a project's types; the Sum row adds up every column. The
# paper's total of issue reports is the Sum row's Total:

# %%
table = compute.with_totals(by_year, by_type, projects)
total_reports = int(table.loc[compute.SUM_ROW, "Total"])
total_reports

# %% [markdown]
# ## The false-positive column, the type shares and the outputs
#
# Each project's rate from its recorded exclusions (excluded / candidates), else the
# paper's own; the Sum row averages them, as the paper does.

# %%
false_positives = compute.false_positive_table(table, own,
                                               compute.reported_false_positives(claims))
result = compute.Table1(table, compute.type_shares(release, types), false_positives,
                        projects, compute.study_now(issues, projects, types, exclusions)
                        if is_study(issues) else None)
write_outputs(paths.table1, outputs.build(result))
false_positives

# %% [markdown]
# ## Table I (reproduced)

# %%
compute.table1_display(result.table, result.false_positives)

# %% [markdown]
# ## Shares of the issue types (percent)

# %%
result.shares.round(2)
