"""Poker (seed 002): No-Limit Hold'em, Pot-Limit Omaha and Naiko mode (powers).

- `core`: every rule of the game, pure (standard library and `croupier.game` only): cards,
  betting, pots, a hand (`deal`, `hand`, `showdown`), Naiko powers, the hand history, and
  the table's rules (`table`, `seating`, `table_options`, `table_rules`);
- `adapters.evaluator`: hand values by the `phevaluator` C extension, handed to the rules
  as `RANKS` (the core imports no C extension);
- `engine`: `ENGINE`, the table's rules (`core.table_rules`) bound to the evaluator and
  the codec: the `croupier.game.GameRules` the table host runs;
- `codec`: the only module importing protobuf (actions in, views out);
- `tools`: `croupier conformance` documents (`tools.conformance`) and the bots
  (`tools.bots`).
"""
