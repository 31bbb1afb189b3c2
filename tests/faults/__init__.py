"""Fault-injection tests: each fault made to happen on purpose (tests/support/faults.py)."""
