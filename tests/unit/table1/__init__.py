"""Unit tests of ``analysis.table1``."""
