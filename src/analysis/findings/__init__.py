"""The ``findings`` stage: the scorecard, every claim of the paper beside its reproduced
value."""
