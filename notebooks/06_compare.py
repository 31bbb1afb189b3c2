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
# The stage's section of params.yaml (the one place its values are written), injected by
# `python -m analysis.tools.nbrun`; run by hand, inject them the same way.
baseline = None
resamples = None
seed = None

# %%
from pathlib import Path

import pandas as pd

from analysis.compare import compute, outputs
from analysis.compare.params import CompareParams
from analysis.compare.snapshot import load_baseline
from analysis.core.artifacts import read_json
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs

# %%
params = CompareParams.of(root, baseline=baseline, resamples=resamples, seed=seed)
paths = Paths(Path(root).resolve())
agreement = paths.agreement.metrics
result = compute.compute(pd.read_parquet(paths.clean.issues_parquet),
                         Projects.load(paths.projects_file),
                         load_baseline(paths.baseline(params.baseline)),
                         read_json(agreement), agreement.relative_to(paths.root).as_posix(),
                         params.resamples, params.seed)
write_outputs(paths.compare, outputs.build(result))

# %% [markdown]
# ## What changed

# %%
print(outputs.website_vars(result)["summary"])
result.projects

# %%
result.years

# %% [markdown]
# ## Agreement

# %%
result.kappa
