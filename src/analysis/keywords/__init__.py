"""The ``keywords`` stage: the Section III.A keyword lists, counted and audited."""
