"""The table host: the one TableEngine gRPC service every game runs in."""
