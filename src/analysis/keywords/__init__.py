"""The ``keywords`` stage: the Section III.A keyword lists, counted and audited."""

from analysis.core.pipeline import P, Stage, rel
from analysis.keywords.params import KeywordsParams

STAGE = Stage("keywords", reads=(rel(P.raw), rel(P.ordinary_words_file)),
              writes=("tables", "vars", "reproduced"),
              params=KeywordsParams)
