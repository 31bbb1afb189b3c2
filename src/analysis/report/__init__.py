"""The website: the study, reproduced, readable in a browser.

``python -m analysis.report`` (the last DVC stage) builds ``report/_site/`` from the
Quarto project in ``report/`` (``_quarto.yml``, one ``.qmd`` per page) and the
pipeline's outputs (where they are: :mod:`analysis.core.paths`). Modules:

- :mod:`.variables`  ``report/_variables.yml`` (the numbers the pages print; no data text);
- :mod:`.generated`  includes (escaped HTML tables, lists, links, citation) in
                     ``report/_generated/``;
- :mod:`.pages`      the pages' includes, one module a page (found, not listed), each
                     with the artifacts it reads;
- :mod:`.navbar`     the navbar, from the pages' front matter (``navbar-entry:``);
- :mod:`.blocks`     figure blocks and data-text paragraphs;
- :mod:`.downloads`  the downloads, safe in a spreadsheet, with data dictionaries;
- :mod:`.dag`        the pipeline DAG (``dvc dag --mermaid``) as a figure;
- :mod:`.notebooks`  the executed notebooks as pages;
- :mod:`.quarto`     finding (or installing) Quarto;
- :mod:`.preview`    the pandoc renderer used when Quarto is not found;
- :mod:`.htmlsafe`   escaping of untrusted text;
- :mod:`.generation` step 1, generate: variables, includes, downloads (the stage's outs);
- :mod:`.site`       step 2, render, with Quarto or the preview (imports no pandas);
- :mod:`.sources`    what the site was rendered from (``report/_site/sources.json``), so
                     that ``render --if-needed`` notices a stale site.

How a stage gets onto the site is described in docs/adding-a-stage.md.
"""

from analysis.core.paths import PATHS, ROOT
from analysis.core.pipeline import P, Stage, rel

# What the website's stage reads and writes (dvc.yaml is generated from it:
# analysis.tools.pipeline). Step 1 generates report/_variables.yml, report/_generated/ and
# report/downloads/ (the outs) from the stages' output folders; step 2 renders a staging
# copy of report/ into report/_site/, with Quarto when it can be found, else with the pandoc
# preview. report/_site/ is not an output: which renderer a machine has never changes
# dvc.lock. Every page (report/*.qmd) is read.
STAGE = Stage(
    "report", notebook=False, cmd="python -m analysis.report",
    module="analysis.report.__main__", all_params=True,
    reads=(rel(P.quarto_yml), rel(P.assets),
           *(rel(page.relative_to(ROOT)) for page in PATHS.pages()),
           rel(P.tables), rel(P.figures), rel(P.vars_dir), rel(P.notebooks), rel(P.processed),
           rel(P.provenance), rel(P.metrics), rel(P.projects_file), rel(P.citation),
           rel(P.licence), rel(P.requirements), rel(P.requirements_no_deps)),
    outs=(rel(P.variables_yml), rel(P.generated), rel(P.downloads)))
