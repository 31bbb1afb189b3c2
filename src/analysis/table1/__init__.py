"""The ``table1`` stage: issue reports per project, year and type (the paper's Table I)."""
