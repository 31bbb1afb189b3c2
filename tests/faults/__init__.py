"""Fault tests: hostile or broken input meets each command, with limits small enough to run fast."""
