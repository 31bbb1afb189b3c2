"""Unit tests of ``analysis.agreement``."""
