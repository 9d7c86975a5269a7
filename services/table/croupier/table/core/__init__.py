"""The table host's pure core: a table's state and the one step that applies a log entry,
the turn clocks, the log entry record and hand histories. Standard library and
`croupier.game` only (tests/test_core_purity.py)."""
