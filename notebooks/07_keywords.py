# %% [markdown]
# # Keywords: the Section III.A lists, counted and audited
#
# Reads upstream's `filter_keywords` (Python-literal lists, parsed with `ast`, never
# executed), counts each list the way the paper does (distinct exact strings; the scorecard sets
# them beside the paper's counts) and audits the lists: duplicates, case duplicates, short
# keywords, keywords that look merged by a missing comma, keywords that are ordinary
# English or code words. A dump without the file gives
# empty tables and no reproduced counts.

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)
# The stage's section of params.yaml (the one place its values are written), injected by
# `python -m analysis.tools.nbrun`; run by hand, inject them the same way.
keywords_file = None

# %%
from pathlib import Path

from analysis.core.paths import Paths
from analysis.core.stage import write_outputs
from analysis.keywords import compute as keywords
from analysis.keywords import outputs
from analysis.keywords.params import KeywordsParams

# %%
params = KeywordsParams.of(root, keywords_file=keywords_file)
paths = Paths(Path(root).resolve())
source = paths.raw / params.keywords_file
result = keywords.compute(keywords.read_keyword_file(source) if source.is_file() else [],
                          keywords.read_ordinary_words(paths.ordinary_words_file))
write_outputs(paths.keywords, outputs.build(result))

# %% [markdown]
# ## Keywords per list

# %%
result.counts

# %% [markdown]
# ## Audit findings

# %%
findings = result.findings
findings.groupby(["list", "kind"]).size().unstack(fill_value=0) if len(findings) else findings

# %%
findings[findings["kind"].isin(["looks_merged", "merged_literals", "short_keyword",
                                "ordinary_word"])]
