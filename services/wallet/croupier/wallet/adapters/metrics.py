"""Prometheus metrics of the wallet (registered on the registry passed in, once per process)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from croupier.wallet.core.model import Transfer

__all__ = ["PrometheusWalletMetrics"]

_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class PrometheusWalletMetrics:
    """Implements `service.ports.WalletMetrics`."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.transfers = Counter(
            "croupier_wallet_transfers_total",
            "Posted transfers, by kind and currency.",
            ["kind", "currency"],
            registry=registry,
        )
        self.amount = Counter(
            "croupier_wallet_transferred_minor_total",
            "Minor units moved by posted transfers, by kind and currency.",
            ["kind", "currency"],
            registry=registry,
        )
        self.latency = Histogram(
            "croupier_wallet_operation_seconds",
            "Time to run one ledger operation (a transfer, hold, post, batch, settlement...).",
            ["operation"],
            buckets=_BUCKETS,
            registry=registry,
        )
        self.rejections = Counter(
            "croupier_wallet_rejected_total",
            "Ledger requests refused, by reason.",
            ["reason"],
            registry=registry,
        )
        self.dead_letters = Counter(
            "croupier_wallet_dead_lettered_total",
            "Kafka requests that can never apply, sent to the dead-letter topic (alert on > 0).",
            ["reason"],
            registry=registry,
        )
        self.ignored_requests = Counter(
            "croupier_wallet_ignored_requests_total",
            "Kafka requests about no money of the wallet's (a play-chip table's settlement).",
            ["reason"],
            registry=registry,
        )
        self.crash_refunds = Counter(
            "croupier_wallet_crash_refunds_total",
            "Crash refunds made (posted) for a game or tournament that crashed, by game and "
            "currency; the table host counts the ones it asked for apart.",
            ["game", "currency"],
            registry=registry,
        )
        self.kafka_connected = Gauge(
            "croupier_wallet_kafka_connected",
            "1 once the event bus is connected and the request consumer joined its group; 0 "
            "while they connect (ledger calls are served meanwhile; settlements wait).",
            registry=registry,
        )
        # Label children, looked up once (`labels()` costs microseconds on every transfer).
        self._posted: dict[tuple[str, str], tuple[Any, Any]] = {}
        self._latency: dict[str, Any] = {}
        self.crash_refunded_minor = Counter(
            "croupier_wallet_crash_refunded_minor_total",
            "Minor units refunded because a game or tournament crashed.",
            ["game", "currency"],
            registry=registry,
        )

    def transfers_posted(self, transfers: Sequence[Transfer]) -> None:
        # One counter update per (kind, currency), not per transfer: batches hold hundreds.
        totals: dict[tuple[str, str], list[int]] = {}
        for transfer in transfers:
            total = totals.get((transfer.kind.value, transfer.currency))
            if total is None:
                total = totals[transfer.kind.value, transfer.currency] = [0, 0]
            total[0] += 1
            total[1] += transfer.posted_amount or 0
        for labels, (count, amount) in totals.items():
            children = self._posted.get(labels)
            if children is None:
                children = self._posted[labels] = (
                    self.transfers.labels(*labels),
                    self.amount.labels(*labels),
                )
            children[0].inc(count)
            children[1].inc(amount)

    def operation_finished(self, operation: str, seconds: float) -> None:
        child = self._latency.get(operation)
        if child is None:
            child = self._latency[operation] = self.latency.labels(operation)
        child.observe(seconds)

    def rejected(self, reason: str) -> None:
        self.rejections.labels(reason).inc()

    def crash_refund(self, game: str, currency: str, amount: int) -> None:
        self.crash_refunds.labels(game or "unknown", currency).inc()
        self.crash_refunded_minor.labels(game or "unknown", currency).inc(amount)

    def ignored(self, reason: str) -> None:
        self.ignored_requests.labels(reason).inc()

    def dead_lettered(self, reason: str) -> None:
        self.dead_letters.labels(reason).inc()
