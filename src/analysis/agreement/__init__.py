"""The ``agreement`` stage: the paper's Fleiss' kappas and the other agreement statistics,
and an audit of the label columns."""
