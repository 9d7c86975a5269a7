"""Service layer: handlers that open a unit of work, apply one domain operation and commit."""
