"""Backgammon: the pure engine (no I/O, no clock, no randomness; dice are inputs).

- `board`: the board as GNU Backgammon's TanBoard, Position ID encode/decode.
- `matchid`: GNU Backgammon Match ID encode/decode.
- `moves`: legal play generation (distinct resulting positions), notation, parsing.
- `game`: one game or a whole series: opening roll, cube, resignations, results.
- `commission`: seed 001 commission and settlement in integer cents.
- `conformance`: `run_scenario` for `croupier conformance`.
"""
