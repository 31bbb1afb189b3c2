# %% [markdown]
# # Table I: issue reports per project, year and type
#
# Counts come from the processed issues table; the false-positive column is the paper's
# own (the excluded reports were never released) and is marked as reported only.

# %% tags=["parameters"]
issues_parquet = "data/processed/issues.parquet"
projects_file = "data/projects.yaml"
taxonomy_file = "data/taxonomy.yaml"
claims_file = "data/claims.yaml"
table_csv = "report/tables/table1.csv"
table_md = "report/tables/table1.md"
table_html = "report/tables/table1.html"
figure_stem = "report/figures/table1"
reproduced_json = "data/reproduced/table1.json"
vars_json = "report/vars/table1.json"
metrics_json = "metrics/table1.json"

# %%
import pandas as pd

from analysis.core import artifacts
from analysis.core.claims import load_claims
from analysis.core.config import load_yaml
from analysis.core.figures import save_figure, table1_figure
from analysis.core.taxonomy import load_taxonomy
from analysis.table1 import counts as tables

issues = pd.read_parquet(issues_parquet)
projects_meta = (load_yaml(projects_file) or {}).get("projects", {})
types = load_taxonomy(taxonomy_file).type_names
table = tables.table1(issues, projects_meta, types)
shares = tables.type_shares(issues, types)
fp = tables.reported_false_positives(load_claims(claims_file))

# %%
shown = tables.table1_display(table, fp)
artifacts.write_csv(table_csv, table.reset_index())
artifacts.write_text(table_md, shown.to_markdown(index=False, colalign=["left"] +
                                                 ["right"] * (shown.shape[1] - 1)) + "\n")
artifacts.write_text(table_html, shown.to_html(index=False, border=0, escape=True,
                                               classes="table table-sm") + "\n")
save_figure(table1_figure(table), figure_stem)
artifacts.write_json(reproduced_json, tables.table1_reproduced(table, shares, fp, projects_meta))
artifacts.write_json(metrics_json, tables.table1_metrics(table, shares))
artifacts.write_json(vars_json, tables.table1_vars(table, shares))

# %% [markdown]
# ## Table I (reproduced)

# %%
shown

# %% [markdown]
# ## Shares of the issue types (percent)

# %%
shares.round(2)
