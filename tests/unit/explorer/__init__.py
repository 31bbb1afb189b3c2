"""Unit tests of ``analysis.explorer``."""
