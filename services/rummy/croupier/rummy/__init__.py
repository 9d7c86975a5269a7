"""The rummy family (Gin, Oklahoma Gin, Rummy, Rummy 51, Rummy 40, Rummy 500).

- `core`: every rule of the game, its table's included, pure (standard library and
  `croupier.game` only);
- `engine`: `ENGINE`, the table's rules (`core.table_rules`) bound to the codec:
  the `croupier.game.GameRules` the table host runs;
- `codec`: the only module importing protobuf (actions in, views out);
- `tools`: simple deterministic players (`tools.bots`) and the `croupier conformance`
  replayer for `"game": "rummy"` (`tools.conformance`).
"""
