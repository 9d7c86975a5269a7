"""Prometheus metrics of the table host."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from croupier.kit.metrics import LATENCY_BUCKETS

ACTION_LATENCY = Histogram(
    "croupier_table_action_seconds",
    "Time from accepting a command to a stage: logged (durably appended) or answered.",
    ["game", "stage"],
    buckets=LATENCY_BUCKETS,
)
TABLES_OPEN = Gauge("croupier_tables_open", "Tables open on this replica.", ["game"])
PLAYERS_SEATED = Gauge("croupier_players_seated", "Players seated on this replica.", ["game"])
TIMEOUTS_APPLIED = Counter(
    "croupier_table_timeouts_total", "Clock expiries applied as automatic actions.", ["game"]
)
REPLAYS = Counter(
    "croupier_table_replays_total", "Tables rebuilt from their command log.", ["game"]
)
REPLAY_SECONDS = Histogram(
    "croupier_table_replay_seconds",
    "Time to rebuild the tables of the partitions a replica was given (start, rebalance).",
    buckets=(0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120),
)
# "Requested": the wallet counts the refunds it made (`croupier_wallet_crash_refunds_total`).
CRASH_REFUNDS_REQUESTED = Counter(
    "croupier_table_crash_refunds_requested_total",
    "Tables voided because they could not be rebuilt; a crash refund was requested.",
    ["game"],
)
SNAPSHOTS_STORED = Counter(
    "croupier_table_snapshots_stored_total", "Table snapshots written to the store.", ["game"]
)
TABLES_RETIRED = Counter(
    "croupier_table_tables_retired_total",
    "Closed tables retired: their snapshots forgotten and no longer served.",
    ["game"],
)
SNAPSHOT_FALLBACKS = Counter(
    "croupier_table_snapshot_fallbacks_total",
    "Tables a rebuild replayed from the log's beginning: their snapshot was missing, "
    "unreadable or from another engine version.",
    ["reason"],
)
