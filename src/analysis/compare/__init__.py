"""The ``compare`` stage: this run against a baseline (the paper's dump)."""
