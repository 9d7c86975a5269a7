"""Prometheus metrics of the kit (the gRPC layer, the event bus, the outbox, the build), served
on /metrics by `serve_metrics`."""

from __future__ import annotations

import platform
import threading
from importlib.metadata import version as _distribution_version
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

# The gRPC server metrics under the names and labels of grpc-ecosystem's Go middleware
# (go-grpc-middleware/providers/prometheus), so that stock gRPC dashboards and alerts work.
GRPC_LABELS = ["grpc_type", "grpc_service", "grpc_method"]
GRPC_STARTED = Counter("grpc_server_started_total", "RPCs started on the server.", GRPC_LABELS)
GRPC_HANDLED = Counter(
    "grpc_server_handled_total",
    "RPCs completed on the server, whatever their status code (grpc_code).",
    [*GRPC_LABELS, "grpc_code"],
)
GRPC_HANDLING_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Time to handle an RPC until the application answered it (health checks excluded).",
    GRPC_LABELS,
    buckets=LATENCY_BUCKETS,
)
GRPC_MSG_RECEIVED = Counter(
    "grpc_server_msg_received_total", "Stream messages received on the server.", GRPC_LABELS
)
GRPC_MSG_SENT = Counter(
    "grpc_server_msg_sent_total", "Stream messages sent by the server.", GRPC_LABELS
)
GRPC_MALFORMED = Counter(
    "croupier_grpc_server_malformed_requests_total",
    "Requests whose body could not be decoded (answered INVALID_ARGUMENT), by method.",
    ["grpc_service", "grpc_method"],
)

# The event bus and the outbox (croupier.kit.bus, croupier.kit.kafka_producer, croupier.kit.outbox).
KAFKA_CONSUMER_LAG = Gauge(
    "croupier_kafka_consumer_lag",
    "Messages of a partition its consumer group has not handled yet (high watermark minus "
    "the position), as seen by the member holding the partition.",
    ["group", "topic", "partition"],
)
KAFKA_REBALANCES = Counter(
    "croupier_kafka_consumer_rebalances_total",
    "Partition assignments this process's group member received (one per rebalance).",
    ["group", "topic"],
)
KAFKA_DEAD_LETTERED = Counter(
    "croupier_kafka_dead_lettered_total",
    "Consumed messages sent to the dead-letter topic (<topic>.dlq) instead of being handled, "
    "by consumer group and source topic.",
    ["group", "topic"],
)
KAFKA_DELIVERY_FAILURES = Counter(
    "croupier_kafka_producer_delivery_failures_total",
    "Records the producer gave up on (not acknowledged within the delivery timeout); the "
    "caller saw the failure, the record may or may not be stored.",
    ["topic"],
)
OUTBOX_BACKLOG = Gauge(
    "croupier_outbox_backlog",
    "Committed outbox rows not yet published to Kafka, by service schema.",
    ["schema"],
)
OUTBOX_OLDEST_SECONDS = Gauge(
    "croupier_outbox_oldest_unpublished_seconds",
    "Age of the oldest committed outbox row not yet published (0: none waits).",
    ["schema"],
)
BUILD_INFO = Gauge(
    "croupier_build_info",
    "Always 1; its labels name the running build (join on it to see versions in a rollout).",
    ["version", "python_version"],
)
BUILD_INFO.labels(_distribution_version("croupier"), platform.python_version()).set(1)


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
