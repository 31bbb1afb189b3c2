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
# The stage's settings, by name, each in place of its value in the stage's section of
# params.yaml (which the cell that builds them reads from `root`). nbrun injects the whole
# section, so the executed notebook shows every value; run by hand, leave it empty or give
# only what to change (docs/layout.md, "A notebook run by hand").
params = {}

# %%
from pathlib import Path

from analysis.core.paths import Paths
from analysis.core.stage import write_outputs
from analysis.keywords import compute as keywords
from analysis.keywords import outputs
from analysis.keywords.params import KeywordsParams

# %% [markdown]
# ## Load
#
# The keyword lists of the dump's keyword file, one per framework (none without the file),
# and the ordinary-words list the audit checks them against.

# %%
params = KeywordsParams.read(root, params)
paths = Paths(Path(root).resolve())
source = paths.raw / params.keywords_file
lists = keywords.read_keyword_file(source) if source.is_file() else []
ordinary = keywords.read_ordinary_words(paths.ordinary_words_file)
[kl.framework for kl in lists]

# %% [markdown]
# ## Keywords per list
#
# Raw entries, distinct exact strings (the paper's count) and distinct ignoring case:

# %%
counts = keywords.counts_table(lists)
counts

# %% [markdown]
# ## Every entry, then the audit, then the outputs

# %%
entries = keywords.keyword_table(lists)
result = keywords.Keywords(lists, counts, entries, keywords.audit(lists, ordinary))
write_outputs(paths.keywords, outputs.build(result))
entries.head()

# %% [markdown]
# ## Audit findings

# %%
findings = result.findings
findings.groupby(["list", "kind"]).size().unstack(fill_value=0) if len(findings) else findings

# %%
findings[findings["kind"].isin(["looks_merged", "merged_literals", "short_keyword",
                                "ordinary_word"])]
