"""Tests of analysis.update.study: the study rebuilt from the release and the team's records."""
