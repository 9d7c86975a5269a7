"""The gateway's I/O: gRPC clients of the services behind it."""
