# %% [markdown]
# # Compare: the current run against the baseline (the paper's dump)
#
# The baseline is a committed snapshot of aggregate numbers from this pipeline's run on
# the pinned upstream commit (`python -m analysis.compare.changes snapshot`). This notebook sets
# the current run beside it: new and removed projects and years, count changes per
# project, year and type, and the headline kappas with intervals (both runs' kappas are
# the agreement stage's; see `analysis.compare.changes`).

# %% tags=["parameters"]
issues_parquet = "data/processed/issues.parquet"
projects_file = "data/projects.yaml"
baseline = "data/baseline/upstream-2fba316.json"
agreement_metrics = "metrics/agreement.json"
tables_prefix = "report/tables/compare_"
figures_prefix = "report/figures/compare_"
vars_json = "report/vars/compare.json"
metrics_json = "metrics/compare.json"

# %%
import pandas as pd

from analysis.compare import changes as compare
from analysis.core import artifacts
from analysis.core.config import load_yaml
from analysis.core.figures import save_figure

issues = pd.read_parquet(issues_parquet)
projects_meta = (load_yaml(projects_file) or {}).get("projects", {})
base = compare.load_baseline(baseline)
cur = compare.count_summary(issues)

kappas = compare.kappas_from_agreement(artifacts.read_json(agreement_metrics),
                                       agreement_metrics)
source = f"the agreement stage ({agreement_metrics})"

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
