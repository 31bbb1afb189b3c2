"""The website: the study, reproduced, readable in a browser.

``python -m analysis.report`` (the last DVC stage) builds ``report/_site/`` from the
Quarto project in ``report/`` (``_quarto.yml``, one ``.qmd`` per page) and the
pipeline's outputs. Modules:

- :mod:`.paths`     where inputs and outputs are;
- :mod:`.variables`  ``report/_variables.yml`` (the numbers the pages print; no data text);
- :mod:`.generated`  includes (escaped HTML tables, lists, links, citation) in
                     ``report/_generated/``;
- :mod:`.pages`      the result pages' includes (Taxonomy, Agreement, Interviews,
                     Keywords, What changed, Findings), each with the artifacts it reads;
- :mod:`.blocks`     figure blocks and data-text paragraphs;
- :mod:`.downloads`  the downloads, safe in a spreadsheet, with data dictionaries;
- :mod:`.dag`        the pipeline DAG (``dvc dag --mermaid``) as a figure;
- :mod:`.notebooks`  the executed notebooks as pages;
- :mod:`.quarto`     finding (or installing) Quarto;
- :mod:`.preview`    the pandoc renderer used when Quarto is not found;
- :mod:`.htmlsafe`   escaping of untrusted text;
- :mod:`.site`       the build: generate, then render with Quarto or the preview;
- :mod:`.sources`    what the site was rendered from (``report/_site/sources.json``), so
                     that ``render --if-needed`` notices a stale site.

How a stage gets onto the site is described in README.md ("Adding a stage").
"""

from analysis.report.site import build, generate, render

__all__ = ["build", "generate", "render"]
