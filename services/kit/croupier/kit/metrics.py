"""Prometheus metrics of the gRPC layer, served on /metrics by `serve_metrics`."""

from __future__ import annotations

import threading
from wsgiref.simple_server import WSGIServer

from prometheus_client import Counter, Gauge, Histogram, start_http_server

# Buckets from 0.5 ms to 10 s: table actions live in the low milliseconds, exports take seconds.
LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.015,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)

GRPC_LATENCY = Histogram(
    "croupier_grpc_server_handling_seconds",
    "Time to handle a gRPC call, by method and status code.",
    ["method", "code"],
    buckets=LATENCY_BUCKETS,
)
GRPC_IN_FLIGHT = Gauge(
    "croupier_grpc_server_in_flight",
    "gRPC calls being handled now, by method.",
    ["method"],
)
GRPC_MALFORMED = Counter(
    "croupier_grpc_server_malformed_requests_total",
    "Requests whose body could not be decoded, by method.",
    ["method"],
)


class MetricsEndpoint:
    """The /metrics HTTP server (a daemon thread), stoppable."""

    def __init__(self, server: WSGIServer, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve_metrics(host: str, port: int) -> MetricsEndpoint:
    server, thread = start_http_server(port, addr=host)
    return MetricsEndpoint(server, thread)
