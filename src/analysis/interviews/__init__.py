"""The ``interviews`` stage (Section IV of the paper): the interviewees' background sheet,
the codebook and the guideline of the release, cleaned, linked to the taxonomy and set
against the paper's Section IV.A.

The modules, in the order the data goes through them: ``read`` (the three files),
``rules`` (anomaly kinds, vocabularies), ``normalise`` (one cell), ``background`` and
``codebook`` (each file cleaned), ``clean`` (both, with the quality report), ``roles``
(Section IV.A's role categories), ``compute`` (the tables the notebook builds in turn),
``markup`` (escaped texts for the site), ``figures`` and ``outputs``.

Decisions the data forces: the two files share no participant key, so they are never
joined; a node the taxonomy does not have is kept and flagged (it may be a category the
interviews added, Section IV.C); gender is normalised in the processed data but never
published, and pronouns in published responsibilities are neutralised.
"""

from analysis.core.pipeline import P, Plot, Stage, rel
from analysis.interviews.params import InterviewsParams

# the three interview files of the release, not all of data/raw: a batch of issues, which
# changes the issue reports only, does not run the stage again
STAGE = Stage("interviews", reads=(*map(rel, P.raw_interview_files()), rel(P.taxonomy_file),
                                   rel(P.claims_file)),
              writes=("processed", "tables", "figures", "vars", "reproduced"),
              plots=(Plot(rel(P.interviews.figure("heatmap").with_suffix(".png"))),),
              params=InterviewsParams)
