"""The wallet: Croupier's double-entry ledger and the only writer of money
(docs/architecture.md §4).

Layers, dependencies pointing inwards:

- `core/`: pure rules (accounts, transfers, holds, commission, settlement plans); no I/O.
- `service/`: one handler per command inside a unit of work.
- `adapters/`: PostgreSQL (schema migrations, ledger repository, outbox), metrics.
- `entrypoints/`: gRPC servicer, Kafka request consumer, finance exports.
- `bootstrap.py`: wires the real adapters.
"""
