# %% [markdown]
# # Interviews: participants, codebook, and their links to the taxonomy
#
# Section IV of the paper reports interviews with LLM users and DL framework developers.
# This notebook cleans the background sheet and the codebook of the release
# (`analysis.interviews.interviews`), checks every linked node against the taxonomy, compares the
# paper's Section IV.A with the data, and writes the tables and figures of the report.
# Genders are normalised in the processed data but never shown: the paper publishes none.

# %% tags=["parameters"]
codebook_csv = "data/raw/CodeBook.csv"
background_xlsx = "data/raw/Interviewee Background.xlsx"
guideline_md = "data/raw/Interview GuideLine.md"
taxonomy_file = "data/taxonomy.yaml"
processed_dir = "data/processed"
quality_json = "data/processed/quality_interviews.json"
tables_dir = "report/tables"
figures_dir = "report/figures"
vars_json = "report/vars/interviews.json"
metrics_json = "metrics/interviews.json"
reproduced_json = "data/reproduced/interviews.json"
sheet = None
groups = {"LLM User": "User", "DL framework Developer": "Developer"}
translations = {"或": "or"}
role_categories = []

# %%
from pathlib import Path

import pandas as pd

from analysis.core import artifacts
from analysis.core.figures import save_figure
from analysis.core.taxonomy import load_taxonomy
from analysis.interviews import interviews as iv

taxonomy = load_taxonomy(taxonomy_file)
params = {"sheet": sheet, "groups": groups, "translations": translations,
          "role_categories": role_categories}
data = iv.clean_interviews(codebook_csv, background_xlsx, taxonomy, params, guideline_md)
quality, questions = data.quality, data.questions

# %%
processed, tables, figures = Path(processed_dir), Path(tables_dir), Path(figures_dir)
artifacts.write_csv(processed / "interviews_background.csv", data.background)
artifacts.write_csv(processed / "interviews_codebook.csv", data.codebook)
artifacts.write_csv(processed / "interviews_nodes.csv", data.nodes)
artifacts.write_csv(processed / "interviews_rejected.csv", data.rejected)
artifacts.write_json(quality_json, quality)

participants = iv.participants_table(data.background)
groups_table = iv.group_summary(data.background)
matrix = iv.node_matrix(data.codebook, data.nodes, taxonomy)
counts = iv.theme_counts(data.codebook, data.nodes, taxonomy)
quotes = iv.quotes_by_theme(data.codebook, data.nodes, taxonomy)
artifacts.write_csv(tables / "interviews_participants.csv", participants)
artifacts.write_text(tables / "interviews_participants.md", iv.to_markdown(participants))
artifacts.write_csv(tables / "interviews_groups.csv", groups_table)
artifacts.write_csv(tables / "interviews_codebook.csv", iv.codebook_table(data.codebook))
artifacts.write_csv(tables / "interviews_matrix.csv", matrix.reset_index())
artifacts.write_csv(tables / "interviews_theme_counts.csv", counts)
artifacts.write_text(tables / "interviews_theme_counts.md", iv.to_markdown(counts))
artifacts.write_csv(tables / "interviews_quotes.csv", quotes)
artifacts.write_text(tables / "interviews_quotes.html", iv.quotes_html(quotes))
artifacts.write_csv(tables / "interviews_guideline_questions.csv", questions)
artifacts.write_text(tables / "interviews_guideline.md", data.guideline_md)
save_figure(iv.heatmap_figure(matrix, data.codebook, taxonomy), figures / "interviews_heatmap")
save_figure(iv.theme_counts_figure(counts, taxonomy), figures / "interviews_theme_counts")

reproduced = iv.interviews_reproduced(data.background, data.codebook, questions)
artifacts.write_json(reproduced_json, reproduced)
artifacts.write_json(vars_json, iv.interviews_vars(data, counts, groups_table, questions,
                                                   taxonomy))
artifacts.write_json(metrics_json, iv.interviews_metrics(data, counts))

# %% [markdown]
# ## Participants (background sheet; no genders) and Section IV.A against the data

# %%
groups_table

# %%
pd.DataFrame(reproduced).T

# %% [markdown]
# ## Themes linked by users and developers (codebook)

# %%
counts

# %% [markdown]
# ## Anomalies found and what was done

# %%
pd.Series(quality["anomaly_counts"], name="anomalies", dtype="int64")
