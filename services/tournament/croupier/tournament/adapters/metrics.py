"""The director's Prometheus metrics (named apart from the table host's and the wallet's:
the embedded platform serves all three from one registry)."""

from __future__ import annotations

from prometheus_client import Counter

__all__ = ["CRASH_REFUNDS", "FINISHED"]

CRASH_REFUNDS = Counter(
    "croupier_tournament_crash_refunds_total",
    "Tournaments voided with their buy-ins and rebuys refunded (rule 44, OQ 28).",
    ["game"],
)
FINISHED = Counter(
    "croupier_tournaments_finished_total",
    "Tournaments played to the end, their prizes paid (rule 47).",
    ["game"],
)
