"""The ``clean`` stage: one tidy row per labelled issue, every anomaly accounted for."""
