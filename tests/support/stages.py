"""The stages' results computed in memory, by the steps their notebooks take in order.

Each stage's notebook (``notebooks/NN_<stage>.py``) runs the steps of the library one
cell at a time; these helpers run the same steps, so that unit tests read a stage's
result without running the notebook. Keep each in step with its notebook.
"""

from __future__ import annotations

import pandas as pd

from analysis.agreement.batches import batch_agreement
from analysis.agreement.compute import (
    Agreement,
    analyse,
    grouping_versus_paper,
    headline,
    make_scale,
    paper_kappas,
)
from analysis.agreement.params import AgreementParams
from analysis.compare import batches as compare_batches
from analysis.compare import compute as cmp
from analysis.compare.compute import Comparison
from analysis.core.batches import RELEASE, is_study, release_rows
from analysis.core.projects import Projects
from analysis.core.taxonomy import Taxonomy
from analysis.interviews import compute as iv
from analysis.interviews import roles
from analysis.interviews.clean import clean_interviews
from analysis.interviews.compute import Interviews
from analysis.interviews.params import InterviewsParams
from analysis.interviews.read import InterviewFiles
from analysis.keywords import compute as kw
from analysis.keywords.compute import KeywordList, Keywords
from analysis.table1 import compute as t1
from analysis.table1.compute import Table1
from analysis.taxonomy import compute as tx
from analysis.taxonomy.compute import TaxonomyResult
from analysis.taxonomy.details import DetailsResult
from analysis.taxonomy.distribution import mix_tests
from analysis.taxonomy.examples import empty_themes, match_examples


def agreement_result(issues: pd.DataFrame, taxonomy: Taxonomy, projects: Projects,
                     claims: pd.DataFrame, params: AgreementParams) -> Agreement:
    """The agreement stage's result, as ``notebooks/04_agreement.py`` computes it."""
    release = release_rows(issues)
    keys = [str(p) for p in pd.unique(release["project"])]
    analysed = analyse(release, taxonomy, projects.order(keys), params)
    return Agreement(analysis=analysed, headline=headline(analysed, claims),
                     grouping=grouping_versus_paper(analysed.grouping, claims),
                     paper_kappas=paper_kappas(claims), project_names=projects.names(keys),
                     batches=batch_agreement(issues, taxonomy, make_scale,
                                             params.confidence_level,
                                             analysed.facts["ac1_categories"]))


def table1_result(issues: pd.DataFrame, projects: Projects, types: list[str],
                  claims: pd.DataFrame, exclusions: pd.DataFrame | None = None) -> Table1:
    """The table1 stage's result, as ``notebooks/02_table1.py`` computes it (without
    ``exclusions`` every false-positive rate is the paper's)."""
    release = release_rows(issues)
    own = t1.exclusions_of(exclusions, RELEASE)
    rows = t1.project_rows(release, projects, t1.excluded_only(release, own))
    table = t1.with_totals(t1.counts_by_year(release, rows),
                           t1.counts_by_type(release, rows, types), projects)
    return Table1(table, t1.type_shares(release, types),
                  t1.false_positive_table(table, own, t1.reported_false_positives(claims)),
                  projects, t1.study_now(issues, projects, types, exclusions)
                  if is_study(issues) else None)


def taxonomy_result(parsed: DetailsResult, issues: pd.DataFrame, taxonomy: Taxonomy,
                    projects: Projects, item_split: str = "comma",
                    cited: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame] | None = None
                    ) -> TaxonomyResult:
    """The taxonomy stage's result, as ``notebooks/03_taxonomy.py`` computes it from the
    parsed detail files; ``cited`` is the paper's examples, findings and rankings
    (:mod:`analysis.core.examples`), None for none."""
    issues = release_rows(issues)
    examples, findings, rankings = cited if cited is not None else (
        pd.DataFrame(columns=["ref", "url", "subthemes", "theme", "source", "host",
                              "repository", "kind", "number"]),
        pd.DataFrame(columns=["id", "finding", "source", "themes", "text"]),
        pd.DataFrame(columns=["id", "who", "source", "of", "theme", "rank"]))
    subthemes = tx.subtheme_table(taxonomy, parsed.rows)
    themes = tx.theme_table(taxonomy, parsed.rows, subthemes, issues)
    order = projects.order(issues["project"].unique())
    return TaxonomyResult(
        taxonomy=taxonomy, parsed=parsed, subthemes=subthemes, themes=themes,
        types=tx.type_table(taxonomy, themes),
        details=tx.detail_table(taxonomy, parsed.items, subthemes),
        spellings=tx.spelling_table(taxonomy, parsed.rows),
        mix=mix_tests(issues, taxonomy.type_names, taxonomy.codes, order),
        project_names=projects.names(order), item_split=item_split,
        examples=match_examples(examples, issues, projects),
        empty_themes=empty_themes(themes, issues, examples, findings, rankings),
        years=tuple(sorted(int(y) for y in issues["year"].unique())))


def keywords_result(lists: list[KeywordList],
                    ordinary: dict[str, tuple[str, str]] | None = None) -> Keywords:
    """The keywords stage's result, as ``notebooks/07_keywords.py`` computes it from the
    parsed keyword lists (``ordinary``: the ordinary-words list, None for none)."""
    return Keywords(lists, kw.counts_table(lists), kw.keyword_table(lists),
                    kw.audit(lists, ordinary))


def interviews_result(files: InterviewFiles, taxonomy: Taxonomy, params: InterviewsParams,
                      claims: pd.DataFrame | None = None) -> Interviews:
    """The interviews stage's result, as ``notebooks/05_interviews.py`` computes it from
    the files as read (without ``claims``, no role claims)."""
    data = clean_interviews(files, taxonomy, params)
    table = roles.role_table(data.background, params.role_categories)
    mappings = roles.role_mappings(table, [c.key for c in params.role_categories])
    guideline = files.guideline.text if files.guideline else ""
    return Interviews(
        data=data, taxonomy=taxonomy,
        participants=iv.participants_table(data.background),
        groups=iv.group_summary(data.background),
        matrix=iv.node_matrix(data.codebook, data.nodes, taxonomy),
        theme_counts=iv.theme_counts(data.codebook, data.nodes, taxonomy),
        quotes=iv.quotes_by_theme(data.codebook, data.nodes, taxonomy),
        questions=iv.guideline_questions(guideline),
        roles=table, role_mappings=mappings, session=roles.session_minutes(guideline),
        role_claims=(roles.role_claims(mappings, claims) if claims is not None
                     else pd.DataFrame(columns=roles.ROLE_CLAIM_COLUMNS)))


def compare_result(issues: pd.DataFrame, projects: Projects, baseline: dict,
                   agreement_metrics: dict, agreement_file: str, resamples: int = 10_000,
                   seed: int = 0) -> Comparison:
    """The compare stage's result, as ``notebooks/06_compare.py`` computes it: this run
    (the processed issues, the agreement stage's metrics read from ``agreement_file``)
    against the ``baseline`` snapshot."""
    current = cmp.count_summary(issues)
    source = f"the agreement stage ({agreement_file})"
    kappas = cmp.kappas_from_agreement(agreement_metrics, agreement_file)
    drift = compare_batches.drift(issues, resamples, seed)
    return Comparison(
        base=baseline, current=current,
        projects=cmp.compare_projects(baseline, current, projects),
        years=cmp.compare_years(baseline, current),
        types=cmp.compare_types(baseline, current),
        cells=cmp.compare_cells(baseline, current),
        kappa=cmp.compare_kappas(baseline["kappa"], kappas, source),
        kappa_source=source, additions=compare_batches.additions(issues, projects),
        drift=None if drift is None else drift[0],
        drift_tests=None if drift is None else drift[1])
