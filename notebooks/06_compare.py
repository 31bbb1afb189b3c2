# %% [markdown]
# # Compare: the current run against the baseline (the paper's dump)
#
# The baseline is a committed snapshot of aggregate numbers from this pipeline's run on
# the pinned upstream commit (`python -m analysis.compare snapshot`). This notebook sets
# the current run beside it: new and removed projects and years, count changes per
# project, year and type, and the headline kappas with intervals. Kappas of the current
# run come from the agreement stage's metrics when they exist, otherwise they are
# computed here by the same method as the baseline's (see `analysis.compare`).

# %% tags=["parameters"]
issues_parquet = "data/processed/issues.parquet"
projects_file = "data/projects.yaml"
baseline = "data/baseline/upstream-2fba316.json"
agreement_metrics = "metrics/agreement.json"
bootstrap = 1000
seed = 7
tables_prefix = "report/tables/compare_"
figures_prefix = "report/figures/compare_"
vars_json = "report/vars/compare.json"
metrics_json = "metrics/compare.json"

# %%
from pathlib import Path

import pandas as pd

from analysis import artifacts, compare
from analysis.config import load_yaml
from analysis.figures import save_figure

issues = pd.read_parquet(issues_parquet)
projects_meta = (load_yaml(projects_file) or {}).get("projects", {})
base = compare.load_baseline(baseline)
cur = compare.count_summary(issues)

# %%
types = sorted(set(base["kappa"]) | set(issues["type"].unique()))
from_agreement = {}
if Path(agreement_metrics).is_file():
    from_agreement = compare.kappas_from_agreement(artifacts.read_json(agreement_metrics),
                                                   types)
if from_agreement:
    kappas, source = from_agreement, f"the agreement stage ({agreement_metrics})"
else:
    kappas = compare.headline_kappas(issues, bootstrap, seed)
    source = "the compare stage (Fleiss' kappa per type, bootstrap interval)"

# %%
projects = compare.compare_projects(base, cur, projects_meta)
years = compare.compare_years(base, cur)
type_table = compare.compare_types(base, cur)
cells = compare.compare_cells(base, cur)
kappa = compare.compare_kappas(base["kappa"], kappas, source)
metrics, variables = compare.summarise(base, cur, projects, years, type_table, kappa, source)

for name, table in [("projects", projects), ("years", years), ("types", type_table),
                    ("cells", cells), ("kappa", kappa)]:
    artifacts.write_csv(f"{tables_prefix}{name}.csv", table)
save_figure(compare.counts_figure(projects, base["label"]), f"{figures_prefix}counts")
save_figure(compare.kappa_figure(kappa, base["label"]), f"{figures_prefix}kappa")
artifacts.write_json(vars_json, variables)
artifacts.write_json(metrics_json, metrics)

# %% [markdown]
# ## What changed

# %%
print(variables["summary"])
projects

# %%
years

# %% [markdown]
# ## Agreement

# %%
kappa
