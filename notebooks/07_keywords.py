# %% [markdown]
# # Keywords: the Section III.A lists, counted and audited
#
# Reads upstream's `filter_keywords` (Python-literal lists, parsed with `ast`, never
# executed), counts each list the way the paper does (distinct exact strings; the scorecard sets
# them beside the paper's counts) and audits the lists: duplicates, case duplicates, short
# keywords, keywords that look merged by a missing comma. A dump without the file gives
# empty tables and no reproduced counts.

# %% tags=["parameters"]
keywords_file = "data/raw/filter_keywords"
counts_csv = "report/tables/keywords_counts.csv"
lists_csv = "report/tables/keywords_lists.csv"
audit_csv = "report/tables/keywords_audit.csv"
vars_json = "report/vars/keywords.json"
reproduced_json = "data/reproduced/keywords.json"
metrics_json = "metrics/keywords.json"

# %%
from pathlib import Path

from analysis.core import artifacts
from analysis.keywords import lists as keywords

present = Path(keywords_file).is_file()
lists = keywords.read_keyword_file(keywords_file) if present else []
table = keywords.counts_table(lists)
entries = keywords.keyword_table(lists)
findings = keywords.audit(lists)
metrics, variables = keywords.summary(table, findings)

# %%
artifacts.write_csv(counts_csv, table)
artifacts.write_csv(lists_csv, entries)
artifacts.write_csv(audit_csv, findings)
artifacts.write_json(vars_json, variables)
artifacts.write_json(reproduced_json, keywords.reproduced(table))
artifacts.write_json(metrics_json, metrics)

# %% [markdown]
# ## Keywords per list

# %%
table

# %% [markdown]
# ## Audit findings

# %%
findings.groupby(["list", "kind"]).size().unstack(fill_value=0) if len(findings) else findings

# %%
findings[findings["kind"].isin(["looks_merged", "merged_literals", "short_keyword"])]
