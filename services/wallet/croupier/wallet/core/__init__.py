"""Pure ledger rules: no I/O, no clocks, no randomness (clock readings come in as arguments)."""
