"""Georgian Joker: its rules, the host's glue, its protobuf codec and its tools.

- `core`: every rule of the game, pure (standard library and `croupier.game` only);
- `engine`: `ENGINE`, the table's rules (`core.table_rules`) bound to the codec:
  the `croupier.game.GameRules` the table host runs;
- `codec`: the only module importing protobuf (actions in, views out, view JSON);
- `tools`: `croupier conformance` documents (`tools.conformance`).
"""
