"""Helpers of the tests: synthetic dumps and sites, a headless browser, project copies."""
