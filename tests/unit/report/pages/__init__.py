"""Unit tests of the page modules (analysis.report.pages)."""
