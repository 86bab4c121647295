"""Decision analysis."""
