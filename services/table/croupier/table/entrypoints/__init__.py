"""The table host's entrypoints: the `TableEngine` gRPC service."""
