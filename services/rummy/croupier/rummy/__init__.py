"""The rummy family (Gin, Oklahoma Gin, Rummy, Rummy 51, Rummy 40, Rummy 500) as pure engines.

- `cards`, `melds`, `arrangement`: the shared core (cards, sets and runs with jokers, the
  exact least-deadwood arrangement);
- `knock_game` (gin family) and `laydown_game` (rummy family, state in `laydown_state`):
  immutable state machines, `apply(state, player, action) -> (state, events)`; their
  read-only questions (deadwood, legal actions, views, the auto-player's action) are in
  `knock_queries` and `laydown_queries`;
- `gin`, `oklahoma_gin`, `rummy`, `rummy51`, `rummy40`, `rummy500`: one module per
  variant with its play rules and their sources;
- `outcome`, `settlement`: negative points and the round's chips (seed 000 §10);
- `table`: deals from a seed and one set of functions for both families; `autoplay`: the
  auto-player mode and the cancel of an all-automatic round (seed 000 rules 45–46);
  `table_engine`: the `croupier.game.GameRules` adapter the table host runs;
- `bots`: simple deterministic players (benchmarks, cross-checks);
- `conformance`: the `croupier conformance` replayer for `"game": "rummy"`.
"""
