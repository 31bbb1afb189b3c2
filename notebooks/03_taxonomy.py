# %% [markdown]
# # Taxonomy: Fig. 2 rebuilt from the released detail files
#
# Reads the three detail files (themes -> sub-themes -> details), repairs what is not
# valid CSV and reports it, maps every theme and sub-theme spelling to the paper's codes
# (`data/taxonomy.yaml`), counts themes, sub-themes, details and issues, and tests whether
# the type and theme mix differs between projects and years.

# %% tags=["parameters"]
raw_dir = "data/raw"
issues_parquet = "data/processed/issues.parquet"
taxonomy_file = "data/taxonomy.yaml"
projects_file = "data/projects.yaml"
detail_files = {
    "Question": "Issue Report/question_intents.csv",
    "Requirement": "Issue Report/requirement_expections.csv",
    "Bug": "Issue Report/bug_symptoms.csv",
}
item_split = "comma"
tables_dir = "report/tables"
figures_dir = "report/figures"
quality_json = "data/processed/quality_taxonomy.json"
vars_json = "report/vars/taxonomy.json"
metrics_json = "metrics/taxonomy.json"
reproduced_json = "data/reproduced/taxonomy.json"

# %%
import warnings
from pathlib import Path

import pandas as pd

from analysis.core import artifacts
from analysis.core import taxonomy as tx
from analysis.core.config import load_yaml
from analysis.core.figures import save_figure
from analysis.table1.counts import project_order
from analysis.taxonomy import outputs as tr
from analysis.taxonomy.details import parse_detail_files
from analysis.taxonomy.distribution import mix_tests
from analysis.taxonomy.figures import stage_figures

taxonomy = tx.load_taxonomy(taxonomy_file)
parsed = parse_detail_files(Path(raw_dir), detail_files, taxonomy)
for anomaly in parsed.quality["anomalies"]:
    if anomaly["kind"] in ("missing_file", "unknown_theme", "unknown_subtheme"):
        warnings.warn(f"{anomaly['file']}: {anomaly['message']}", stacklevel=1)
issues = pd.read_parquet(issues_parquet)
projects_meta = (load_yaml(projects_file) or {}).get("projects", {})
subthemes = tx.subtheme_table(taxonomy, parsed.rows)
themes = tx.theme_table(taxonomy, parsed.rows, subthemes, issues)
types = tx.type_table(taxonomy, themes)
details = tx.detail_table(taxonomy, parsed.items, subthemes)

# %% Type and theme mix by project and year, with chi-square tests
projects = project_order(issues, projects_meta)
labels = {p: (projects_meta.get(p) or {}).get("name", p) for p in projects}
mix = mix_tests(issues, taxonomy.type_names, taxonomy.codes, projects)

# %% Tables, figures, vars, metrics, reproduced values
t = Path(tables_dir)
for name, frame in [("types", types), ("themes", themes), ("subthemes", subthemes),
                    ("details", details), ("tests", mix.table), ("residuals", mix.residuals),
                    ("shares", mix.shares),
                    ("spellings", tx.spelling_table(taxonomy, parsed.rows))]:
    artifacts.write_csv(t / f"taxonomy_{name}.csv", frame)
for name, frame in [("types", types), ("themes", themes)]:
    artifacts.write_text(t / f"taxonomy_{name}.md", frame.round(2).to_markdown(index=False)
                         + "\n")
artifacts.write_text(t / "taxonomy_details.html", tx.details_html(details, themes))
artifacts.write_json(quality_json, parsed.quality)
for stem, fig in stage_figures(subthemes, themes, taxonomy, mix, labels).items():
    save_figure(fig, Path(figures_dir) / stem)

report_vars = tr.stage_vars(types, themes, subthemes, parsed.rows, mix.table, item_split)
report_vars.update(tr.figure_texts(types, themes, subthemes, mix.table,
                                   mix.counts["theme_by_project"], mix.counts["theme_by_year"],
                                   mix.counts["type_by_project"], labels))
artifacts.write_json(vars_json, report_vars)
artifacts.write_json(metrics_json, tr.stage_metrics(types, themes, parsed.quality, mix.table))
artifacts.write_json(reproduced_json, tx.taxonomy_reproduced(
    types, themes, subthemes, parsed.rows, item_split,
    parsed.quality["summary"]["missing_types"]))

# %% [markdown]
# ## Themes, sub-themes and details per type (the scorecard sets them beside the paper's)

# %%
types

# %% [markdown]
# ## What was malformed or unusual in the detail files

# %%
pd.DataFrame(parsed.quality["anomalies"])[["kind", "file", "line", "message"]]

# %% [markdown]
# ## Does the type mix differ between projects and years?

# %%
mix.table.round(4)
