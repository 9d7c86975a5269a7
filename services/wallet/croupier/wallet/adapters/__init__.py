"""Adapters: PostgreSQL ledger repository and migrations, outbox relay, metrics."""
