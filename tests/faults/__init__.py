"""Fault tests: hostile inputs, spreadsheet programs, the umask."""
