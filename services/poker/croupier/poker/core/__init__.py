"""Poker's rules (seed 002): hands, powers, history, and the table around them.

Modules, one concern each:

- `cards`: card notation <-> integers (rank * 4 + suit, the phevaluator encoding);
- `rules`: table configuration (variant, limit, blinds, ante) and the hand's errors;
- `betting`: the betting-round rules (legal actions, min/max raise-to, reopening);
- `pots`: uncalled bets, contribution layers (side pots) and the odd-chip split;
- `state`: the hand state value (copy-on-apply) and `HandRanks`, the showdown's hand values;
- `deal`: starting a hand (antes, blinds, posts, the deal from a deck order or a seed);
- `hand`: the hand state machine (`apply`, `legal_actions`, `view`, `timeout_action`);
- `showdown`: the end of a hand (uncalled bets, pots with dead chips, the award);
- `naiko`: Naiko powers (Sneak Peek, Sleeve Swap, Short Anchor, Protective Seal), Destellos;
- `history`: the replayable JSON hand history and its reader;
- `table_options`: a table's options; `seating`: the table's state and who is dealt in;
- `table`: the table's rules (seats, blinds, sit-out, top-ups, settlement);
- `table_rules`: `PokerRules`, the table's rules as the host runs them (the commands to
  `table`; views, legal actions, turns, stacks, the settlement answered there).

Pure: no I/O, no clock, no randomness (a deal comes from a seed via
`croupier.game.fairness`), no C extension (hand values arrive as `state.HandRanks`).
"""
