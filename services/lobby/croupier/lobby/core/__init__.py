"""The lobby's pure rules: a table's terms read from its options, seats held and taken,
private tables, the account policy, and the matchmaker. Standard library and
`croupier.game` only (tests/test_core_purity.py); time comes in as arguments."""
