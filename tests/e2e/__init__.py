"""End-to-end tests: notebooks through papermill, the pipeline through DVC."""
