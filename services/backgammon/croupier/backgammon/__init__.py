"""Backgammon (seed 001).

- `core`: every rule of the game and of its table, pure (no I/O, no clock, no randomness);
- `engine`: `ENGINE`, the table's rules (`core.table_rules`) bound to the codec and the
  gnubg bridge: the `croupier.game.GameRules` the table host runs;
- `codec`: the protobuf actions and views (the game's only protobuf import);
- `adapters.gnubg_bridge`: GNU Backgammon's evaluation of an abandoned position (I/O);
- `tools`: `conformance.run_scenario` for `croupier conformance`, and `sample`, random
  reachable positions for cross-checks and benchmarks.
"""
