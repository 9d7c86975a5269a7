"""Backgammon: the pure engine (no I/O, no clock, no randomness; dice are inputs).

- `board`: the board as GNU Backgammon's TanBoard, Position ID encode/decode.
- `matchid`: GNU Backgammon Match ID encode/decode.
- `moves`: legal play generation (the distinct resulting positions, as gnubg lists them).
- `notation`: gnubg's move notation: format, parse, apply as written.
- `state`, `game`, `views`, `errors`: one game or a whole series as frozen state and
  `apply(state, player, action) -> (state, events)`: opening roll, cube and beaver,
  resignations, Crawford, automatic move, results; `game` is the API in one place.
- `commission`: seed 001 payout, commission and settlement in integer cents.
- `conformance`: `run_scenario` for `croupier conformance`.
- `table_engine`: the thin `croupier.game.GameRules` adapter (`ENGINE`).
- `sample`: random reachable positions for cross-checks and benchmarks.
"""
