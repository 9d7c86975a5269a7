"""What is neither rules nor the engine: `bots` (simple deterministic players for
benchmarks and cross-checks) and `conformance` (the `croupier conformance` replayer)."""
