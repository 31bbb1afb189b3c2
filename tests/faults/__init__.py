"""Fault-injection tests: each fault made to happen on purpose (tests/support/faults.py): hostile
inputs, killed runs, read-only folders, stale sites, spreadsheet programs, the umask, label
files too big or too broken for validate to read whole."""
