"""HTTP blueprints, one per concern."""
