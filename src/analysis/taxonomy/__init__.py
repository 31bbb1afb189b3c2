"""The ``taxonomy`` stage: the Fig. 2 taxonomy rebuilt from the detail files, theme shares
and their tests."""
