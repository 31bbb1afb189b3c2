"""The ``taxonomy`` stage: the Fig. 2 taxonomy rebuilt from the detail files, theme shares
and their tests.

``details`` parses the released detail files, ``compute`` counts the taxonomy they fill
(:func:`analysis.taxonomy.compute.compute` is the stage's computation), ``distribution`` tests
the type and theme mix by project and year, ``figures`` draws, and ``outputs`` says what the
stage writes."""
