# %% [markdown]
# # Inter-annotator agreement
#
# The paper's Fleiss' kappas per issue type (Section III.B), then what it leaves out:
# Krippendorff's alpha and Gwet's AC1, analytic and bootstrap intervals, agreement per
# theme, project and year, Cohen's kappa between annotators, the most frequent confusions,
# the chance term behind each kappa, and an audit of how the label columns behave.

# %% tags=["parameters"]
issues_parquet = "data/processed/issues.parquet"
taxonomy_file = "data/taxonomy.yaml"
projects_file = "data/projects.yaml"
claims_file = "data/claims.yaml"
bootstrap_resamples = 1000
seed = 20250613
confidence_level = 0.95
tables_dir = "report/tables"
figures_dir = "report/figures"
vars_json = "report/vars/agreement.json"
reproduced_json = "data/reproduced/agreement.json"
metrics_json = "metrics/agreement.json"

# %%
from pathlib import Path

from analysis.agreement import figures as figs
from analysis.agreement import outputs as rep
from analysis.core import artifacts
from analysis.core.claims import load_claims
from analysis.core.config import load_yaml
from analysis.core.figures import save_figure
from analysis.core.taxonomy import load_taxonomy

taxonomy = load_taxonomy(taxonomy_file)
projects = (load_yaml(projects_file) or {}).get("projects", {})
order = sorted(projects, key=lambda p: projects[p].get("order", 10_000))
claims = load_claims(claims_file)
issues = rep.load_issues(issues_parquet)
a = rep.analyse(issues, taxonomy, order, bootstrap_resamples, seed, confidence_level)
head = rep.headline(a, claims)
grouping = rep.grouping_versus_paper(a.grouping, claims)

# %%
tables, figures = Path(tables_dir), Path(figures_dir)
for name, frame in {"headline": head, "statistics": a.statistics, "categories": a.categories,
                    "grouping": grouping, "pairwise": a.pairwise,
                    "annotator_final": a.versus_final, "confusions": a.confusions,
                    "audit_final_by_project": a.final_by_project,
                    "audit_dissent": a.dissent, "audit_tests": a.dissent_tests,
                    "audit_co_dissent": a.co_dissent, "audit_targets": a.targets,
                    "audit_spread": a.spread}.items():
    artifacts.write_csv(tables / f"agreement_{name}.csv", frame)
artifacts.write_text(tables / "agreement_headline.md",
                     rep.headline_markdown(head, confidence_level))
artifacts.write_text(tables / "agreement_method.md", rep.method_note(a) + "\n")
names = {p: projects.get(p, {}).get("name", p) for p in issues["project"].astype(str).unique()}
paper = {r.group.lower(): float(r.paper_kappa) for r in head.itertuples() if r.paper_kappa}
types = dict(zip(a.scale.categories, (a.scale.types[i] for i in a.scale.type_index),
                 strict=True))
save_figure(figs.kappas_figure(a.statistics, paper, confidence_level),
            figures / "agreement_kappas")
save_figure(figs.pairwise_figure(a.pairwise, a.versus_final, list(a.ratings.annotators)),
            figures / "agreement_pairwise")
save_figure(figs.categories_figure(a.categories, confidence_level),
            figures / "agreement_categories")
save_figure(figs.groups_figure(a.statistics, names), figures / "agreement_groups")
save_figure(figs.audit_final_figure(a.final_by_project, names),
            figures / "agreement_audit_final")
save_figure(figs.audit_dissent_figure(a.dissent), figures / "agreement_audit_dissent")
save_figure(figs.audit_targets_figure(a.targets, types), figures / "agreement_audit_targets")
artifacts.write_json(vars_json, rep.report_vars(a, head))
artifacts.write_json(reproduced_json, rep.reproduced(a, claims))
artifacts.write_json(metrics_json, rep.metrics(a))

# %% [markdown]
# ## The paper's kappas and the other coefficients

# %%
head.round(4)

# %% [markdown]
# ## How the grouping moves kappa: observed and chance agreement per candidate grouping

# %%
grouping.round(4)

# %% [markdown]
# ## Annotation audit: dissent per issue, observed vs. independent annotators

# %%
a.dissent.round(1)

# %%
a.dissent_tests.set_index("model").round(4).T
