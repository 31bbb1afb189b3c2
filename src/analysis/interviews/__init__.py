"""The ``interviews`` stage (Section IV of the paper): the interviewees' background sheet,
the codebook and the guideline of the release, cleaned, linked to the taxonomy and set
against the paper's Section IV.A.

The modules, in the order the data goes through them:

- :mod:`~analysis.interviews.read`: reads the three released files (one clear error when
  a file cannot be read);
- :mod:`~analysis.interviews.rules`: the anomaly rules (``RULES``) and vocabularies;
- :mod:`~analysis.interviews.normalise`: how one cell is normalised (whitespace, units,
  translations, pronouns);
- :mod:`~analysis.interviews.background` and :mod:`~analysis.interviews.codebook`: clean
  each file; :mod:`~analysis.interviews.clean`: both together, with the quality report;
- :mod:`~analysis.interviews.compute`: the tables the report shows, and ``compute``, the
  stage's entry point;
- :mod:`~analysis.interviews.markup`: texts for the site (Markdown, HTML), escaped;
- :mod:`~analysis.interviews.figures`: the heatmap and the theme bars;
- :mod:`~analysis.interviews.outputs`: what the stage writes (:mod:`analysis.core.stage`).

Decisions the data forces: the two files share no participant key, so they are never
joined; a node the taxonomy does not have is kept and flagged (it may be a category the
interviews added, Section IV.C); gender is normalised in the processed data but never
published, and pronouns in published responsibilities are neutralised.
"""

from analysis.core.pipeline import P, Plot, Stage, rel
from analysis.interviews.params import InterviewsParams

# What the stage reads and writes (dvc.yaml is generated from it: analysis.tools.pipeline).
STAGE = Stage("interviews", reads=(rel(P.raw), rel(P.taxonomy_file), rel(P.claims_file)),
              writes=("processed", "tables", "figures", "vars", "reproduced"),
              plots=(Plot(rel(P.interviews.figure("heatmap").with_suffix(".png"))),),
              params=InterviewsParams)
