"""Every kind of check a milestone can hold (cases, differential, properties, efficiency)."""
