"""The gateway served over gRPC and over Connect / gRPC-Web (HTTP): translation only."""
