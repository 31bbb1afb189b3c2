# %% [markdown]
# # Taxonomy: Fig. 2 rebuilt from the released detail files
#
# Reads the three detail files (themes -> sub-themes -> details), repairs what is not
# valid CSV and reports it, maps every theme and sub-theme spelling to the paper's codes
# (`data/taxonomy.yaml`), counts themes, sub-themes, details and issues, and tests whether
# the type and theme mix differs between projects and years.

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

from analysis.core.batches import release_rows
from analysis.core.examples import load_examples, load_statements
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy
from analysis.taxonomy import compute, details, outputs
from analysis.taxonomy.distribution import mix_tests
from analysis.taxonomy.examples import empty_themes, match_examples
from analysis.taxonomy.params import TaxonomyParams

# %% [markdown]
# ## Load
#
# The curated taxonomy (`data/taxonomy.yaml`: the paper's types, themes and sub-themes
# with their codes), the three detail files parsed (one row per sub-theme line, its
# details split into items; what was malformed is kept in a quality report), the processed
# issues (the release's rows on a study: a batch never moves a taxonomy check) and the
# paper's cited examples.

# %%
params = TaxonomyParams.read(root, params)
paths = Paths(Path(root).resolve())
taxonomy = load_taxonomy(paths.taxonomy_file)
parsed = details.parse_detail_files(paths.raw, params.detail_files, taxonomy)
for message in details.notable_anomalies(parsed.quality):
    warnings.warn(message, stacklevel=1)
issues = release_rows(pd.read_parquet(paths.clean.issues_parquet))
projects = Projects.load(paths.projects_file)
examples, findings, rankings = (load_examples(paths.examples_file),
                                *load_statements(paths.examples_file))
parsed.rows[["type", "theme_code", "theme_raw", "subtheme_code", "subtheme_raw",
             "items_comma"]].head()

# %% [markdown]
# ## What was malformed or unusual in the detail files

# %%
pd.DataFrame(parsed.quality["anomalies"])[["kind", "file", "line", "message"]]

# %% [markdown]
# ## Sub-themes: the taxonomy's, with the detail-file rows that fill them
#
# One row per sub-theme of the taxonomy (and per detail-file row that maps to none), with
# the rows and details the files give it.

# %%
subthemes = compute.subtheme_table(taxonomy, parsed.rows)
subthemes[["type", "theme_code", "code", "name", "in_paper", "rows_in_file", "details"]]

# %% [markdown]
# ## Themes: their sub-themes, details and issues (the issues' final labels)

# %%
themes = compute.theme_table(taxonomy, parsed.rows, subthemes, issues)
themes[["type", "code", "name", "subthemes_paper", "subthemes_released", "details",
        "issues", "issue_share_of_type"]].round(2)

# %% [markdown]
# ## Themes, sub-themes and details per type (the scorecard sets them beside the paper's)
#
# The Total row holds the taxonomy's counts; the number of sub-themes is its
# `subthemes_released`:

# %%
types = compute.type_table(taxonomy, themes)
types

# %%
subtheme_count = compute.subtheme_count(types)
subtheme_count

# %% [markdown]
# ## The other tables and the outputs
#
# Every detail with its place in the tree, the spellings the files use, the type and theme
# mix by project and year with its tests, the paper's cited examples found in the release
# and the themes no report carries.

# %%
order = projects.order(issues["project"].unique())
result = compute.TaxonomyResult(
    taxonomy=taxonomy, parsed=parsed, subthemes=subthemes, themes=themes, types=types,
    details=compute.detail_table(taxonomy, parsed.items, subthemes),
    spellings=compute.spelling_table(taxonomy, parsed.rows),
    mix=mix_tests(issues, taxonomy.type_names, taxonomy.codes, order),
    project_names=projects.names(order), item_split=params.item_split,
    examples=match_examples(examples, issues, projects),
    empty_themes=empty_themes(themes, issues, examples, findings, rankings),
    years=tuple(sorted(int(y) for y in issues["year"].unique())))
write_outputs(paths.taxonomy, outputs.build(result))

# %% [markdown]
# ## The paper's cited examples in the release, and the themes no report carries

# %%
result.examples[["ref", "subthemes", "status", "final_label", "theme_matches", "match_note"]]

# %%
result.empty_themes

# %% [markdown]
# ## Does the type mix differ between projects and years?

# %%
result.mix.table.round(4)
