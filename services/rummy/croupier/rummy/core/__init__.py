"""Every rule of the rummy family, pure: the standard library and `croupier.game` only.

- `cards`, `melds`, `arrangement`: the shared core (cards, sets and runs with jokers, the
  exact least-deadwood arrangement);
- `knock_game` (gin family) and `laydown_game` (rummy family, state in `laydown_state`):
  immutable state machines, `apply(state, player, action) -> (state, events)`; their
  read-only questions (deadwood, legal actions, views, the auto-player's action) are in
  `knock_queries` and `laydown_queries`; `notation` reads the actions' cards and melds;
- `variant`, `variants`, and one module per variant with its play rules and their
  sources: `gin`, `oklahoma_gin`, `rummy`, `rummy51`, `rummy40`, `rummy500`;
- `outcome`, `settlement`: negative points and the round's chips (seed 000 §10, with
  `croupier.game.points`);
- `table`: a round of either family, dealt from a seed, behind one set of functions;
- `rummy_table`: the table (seats and stacks, rounds one after another, their settlement,
  eliminations), its options in `table_options`; `autoplay`: the auto-player mode and the
  cancel of an all-automatic round (seed 000 rules 45–46); `table_rules`: `RummyRules`,
  the table's rules as the host runs them (the commands to `rummy_table`; turns, views,
  the settlement answered there);
- `errors`: `RummyError`, every refusal with its reason.
"""
