# %% [markdown]
# # Inter-annotator agreement
#
# The paper's Fleiss' kappas per issue type (Section III.B), computed here step by step,
# then what the paper leaves out: Krippendorff's alpha and Gwet's AC1, analytic and
# bootstrap intervals, agreement per theme, project and year, Cohen's kappa between
# annotators, the most frequent confusions, the chance term behind each kappa, an audit of
# how the label columns behave, and how much the kappas depend on each column. Fleiss'
# kappa is given by two estimators: on complete rows (the paper's) and Gwet's generalised
# one (every issue with two or more ratings).

# %% tags=["parameters"]
root = "."  # the project root: every path below derives from it (analysis.core.paths)
# The stage's settings, by name, each in place of its value in the stage's section of
# params.yaml (which the cell that builds them reads from `root`). nbrun injects the whole
# section, so the executed notebook shows every value; run by hand, leave it empty or give
# only what to change (docs/layout.md, "A notebook run by hand").
params = {}

# %%
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.agreement import batches, compute, fleiss, outputs, people
from analysis.agreement.inputs import load_issues, load_people
from analysis.agreement.params import AgreementParams
from analysis.agreement.ratings import encode_ratings
from analysis.core.batches import release_rows
from analysis.core.claims import load_claims
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.core.stage import write_outputs
from analysis.core.taxonomy import load_taxonomy

# %% [markdown]
# ## Load
#
# The processed issues (the clean stage's table: one row per labelled issue, one
# `annotator_<n>` column per annotator), the taxonomy (theme codes and their issue types),
# the projects and the paper's printed values. On a study (the release extended with
# batches of new labels) the paper's kappas are the release's rows and annotators.

# %%
params = AgreementParams.read(root, params)
paths = Paths(Path(root).resolve())
issues = load_issues(paths.clean.issues_parquet)
taxonomy = load_taxonomy(paths.taxonomy_file)
projects = Projects.load(paths.projects_file)
claims = load_claims(paths.claims_file)
release = release_rows(issues)
release["type"].value_counts()

# %% [markdown]
# ## The rating scale
#
# The categories an annotator chooses from are the taxonomy's theme codes (and any label
# outside the taxonomy found in the data); each belongs to one issue type.

# %%
ratings = encode_ratings(release, taxonomy.codes)
scale = compute.make_scale(ratings.categories, taxonomy)
types = [t for t in scale.types if (release["type"].astype(str) == t).any()]
pd.DataFrame({"category": scale.categories,
              "type": [scale.types[i] for i in scale.type_index]}).T

# %% [markdown]
# ## Fleiss' kappa of one issue type, step by step
#
# Section III.B reports one Fleiss' kappa per issue type. Here is the first type's; the
# next section takes every type through the same steps. The rating matrix: one row per
# issue, one column per annotator, the theme code each gave.

# %%
issue_type = types[0]
matrix = fleiss.rating_matrix(release, issue_type)
matrix.head(10)

# %% [markdown]
# Fleiss' kappa needs the same number of ratings per issue: the issues every annotator
# rated (how many of the type's issues that leaves):

# %%
complete = fleiss.complete_rows(matrix)
pd.Series({"issues": len(matrix), "rated by every annotator": len(complete)})

# %% [markdown]
# The category counts `n_ij`: how many annotators put issue `i` in category `j`.

# %%
counts = fleiss.category_counts(complete, ratings.categories)
counts.head(10)

# %% [markdown]
# `P_i`, the share of issue `i`'s annotator pairs that agree,
# `(sum_j n_ij^2 - n) / (n (n - 1))`:

# %%
agreement_per_issue = fleiss.issue_agreement(counts)
agreement_per_issue.head(10).round(4)

# %% [markdown]
# `p_j`, each category's share of all ratings, and from them the chance agreement
# `P_e = sum_j p_j^2`; the observed agreement `P_bar` is the mean of `P_i`:

# %%
shares = fleiss.category_shares(counts)
chance = fleiss.chance_agreement(shares)
shares.round(4)

# %%
pd.Series({"P_bar (observed)": agreement_per_issue.mean(), "P_e (chance)": chance}).round(4)

# %% [markdown]
# Kappa, `(P_bar - P_e) / (1 - P_e)`:

# %%
round(fleiss.kappa(agreement_per_issue, chance), 4)

# %% [markdown]
# ## The paper's three kappas
#
# The same steps on every issue type, beside the value the paper prints:

# %%
kappas = fleiss.kappa_table(release, types, ratings.categories)
kappas["paper_kappa"] = [compute.paper_kappas(claims).get(t.lower(), "")
                         for t in kappas["type"]]
kappas.round(4)

# %% [markdown]
# ## Every coefficient, its intervals and the audit
#
# `analyse` takes the coded ratings through every statistic of the stage (Fleiss' kappa by
# both estimators, alpha, AC1, their intervals, the groupings, pairwise kappas, the audit
# of the label columns); `headline` sets the paper's kappas beside them. The stage's
# estimator takes kappa from sums over label patterns (fast enough for the bootstrap): it
# gives the kappas above.

# %%
keys = [str(p) for p in pd.unique(release["project"])]
analysed = compute.analyse(release, taxonomy, projects.order(keys), params)
table = compute.headline(analysed, claims)
stage_kappas = table.set_index("group").loc[kappas["type"], "kappa"].to_numpy(dtype=float)
assert np.allclose(kappas["kappa"], stage_kappas, rtol=0, atol=1e-12, equal_nan=True)
table.round(4)

# %% [markdown]
# ## Each annotator, batch by batch (a study)
#
# A study (the release extended with batches of new labels) gives each person one label
# column, kept from batch to batch, and names them (the clean stage's table of its
# people). Per batch and person: Cohen's kappa against the majority of the batch's *other*
# annotators and against the final label, each with its interval and n, and Cohen's kappa
# between every two of them. A dump without batches (the release alone) has none, and
# writes none of these tables. The first person of the first new batch, step by step: the
# batch's ratings under each person's name, the majority of the others for the first person
# (the label more than half of the others who rated the issue gave; empty where they tie:
# the person's own label is not part of it, as it is of the final label), the final label:

# %%
people_of_study = load_people(paths.clean.processed_file("people.csv"))
steps = people.walkthrough(issues, people_of_study, taxonomy.codes, params.confidence_level)
steps.labels.head(10) if steps else "no batches: the release alone"

# %% [markdown]
# The first person's Cohen's kappa against the others' majority, with its interval
# (clipped to [-1, 1]) and n, the issues where the others have a majority:

# %%
pd.Series(steps.kappa, name=steps.person) if steps else "no batches"

# %% [markdown]
# The same for every person of every batch (the release's columns, which it names by
# column, first), against the others' majority and against the final label; the table of
# every two annotators of a batch is written beside it:

# %%
persons, pairs = people.annotators_by_batch(
    issues, people_of_study, taxonomy.codes, params.confidence_level) or (None, None)
persons.round(4) if persons is not None else "no batches"

# %% [markdown]
# ## Outputs
#
# The candidate groupings of the labels beside the paper's kappas, each batch's own
# agreement and each of its annotators' (a study), then the stage's tables, figures and
# values written.

# %%
result = compute.Agreement(
    analysis=analysed, headline=table,
    grouping=compute.grouping_versus_paper(analysed.grouping, claims),
    paper_kappas=compute.paper_kappas(claims), project_names=projects.names(keys),
    batches=batches.batch_agreement(issues, taxonomy, compute.make_scale,
                                    params.confidence_level, analysed.facts["ac1_categories"]),
    persons=persons, pairs=pairs)
write_outputs(paths.agreement, outputs.build(result))

# %% [markdown]
# ## How the grouping moves kappa: observed and chance agreement per candidate grouping

# %%
result.grouping.round(4)

# %% [markdown]
# ## Annotation audit: dissent per issue, observed vs. independent annotators

# %%
result.analysis.dissent.round(1)

# %%
result.analysis.dissent_tests.set_index("model").round(4).T

# %% [markdown]
# ## Sensitivity: Fleiss' kappa per type with each label column left out

# %%
result.analysis.leave_one_out.round(4)

# %%
result.analysis.sensitivity.round(4)
