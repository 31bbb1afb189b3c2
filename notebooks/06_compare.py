# %% [markdown]
# # Compare: the current run against the baseline (the paper's dump)
#
# The baseline is a committed snapshot of aggregate numbers from this pipeline's run on
# the pinned upstream commit (`python -m analysis.compare snapshot`). This notebook sets
# the current run beside it: new and removed projects and years, count changes per
# project, year and type, and the headline kappas with intervals (both runs' kappas are
# the agreement stage's; see `analysis.compare.compute`).

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

from analysis.compare import batches, compute, outputs
from analysis.compare.params import CompareParams
from analysis.compare.snapshot import load_baseline
from analysis.core.artifacts import read_json
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs

# %% [markdown]
# ## Load
#
# The processed issues of this run, the baseline snapshot, and this run's kappas (the
# agreement stage's metrics).

# %%
params = CompareParams.read(root, params)
paths = Paths(Path(root).resolve())
issues = pd.read_parquet(paths.clean.issues_parquet)
projects = Projects.load(paths.projects_file)
base = load_baseline(paths.baseline(params.baseline))
agreement = paths.agreement.metrics
agreement_file = agreement.relative_to(paths.root).as_posix()
kappas = compute.kappas_from_agreement(read_json(agreement), agreement_file)

# %% [markdown]
# ## This run's aggregates, in the baseline's form

# %%
current = compute.count_summary(issues)
pd.Series({k: current[k] for k in ("issues", "projects", "years", "types", "annotators")})

# %% [markdown]
# ## What changed: projects, years, types and the project-by-year cells

# %%
changed_projects = compute.compare_projects(base, current, projects)
changed_projects

# %%
changed_years = compute.compare_years(base, current)
changed_years

# %%
changed_types = compute.compare_types(base, current)
changed_types

# %% [markdown]
# ## Agreement: the kappas of both runs

# %%
source = f"the agreement stage ({agreement_file})"
changed_kappas = compute.compare_kappas(base["kappa"], kappas, source)
changed_kappas

# %% [markdown]
# ## A study's batches (their issues and theme drift; none on the release), the outputs

# %%
drift = batches.drift(issues, params.resamples, params.seed)
result = compute.Comparison(
    base=base, current=current, projects=changed_projects, years=changed_years,
    types=changed_types, cells=compute.compare_cells(base, current), kappa=changed_kappas,
    kappa_source=source, additions=batches.additions(issues, projects),
    drift=None if drift is None else drift[0],
    drift_tests=None if drift is None else drift[1])
write_outputs(paths.compare, outputs.build(result))
print(outputs.website_vars(result)["summary"])
