"""Reproduction package for Mu et al., "Designing Deep Learning Frameworks for LLMs".

All logic lives here as small functions (DataFrames in, DataFrames out); the notebooks in
``notebooks/`` call them and save artifacts; DVC wires the notebooks into a pipeline.
"""

__version__ = "0.1.0"
