"""Tests of analysis.study: the study rebuilt from the release and the team's records."""
