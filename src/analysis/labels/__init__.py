"""Labelling: blank sheets for the annotators of a selection."""
