"""What every stage shares: paths, errors, artifact writers, figure style, quality records,
schemas, the taxonomy, projects and claims models."""
