"""The ``interviews`` stage: the interviewees' background sheet, the codebook and the
guideline, cleaned and set against the paper's Section IV."""
