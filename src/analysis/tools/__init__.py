"""Command-line tools: run a notebook as a stage, validate a dump, select new issues,
benchmarks."""
