"""Backgammon's rules (seed 001): the board, the plays, a game or series, and its table.

Modules, one concern each:

- `board`: the board as GNU Backgammon's TanBoard, Position ID encode/decode;
- `matchid`: GNU Backgammon Match ID encode/decode;
- `notation`: gnubg's move notation: format, parse, apply as written;
- `moves`: legal play generation (the distinct resulting positions, as gnubg lists them);
- `state`, `game`, `views`, `errors`: one game or a whole series as frozen state and
  `apply(state, player, action) -> (state, events)`: opening roll, cube and beaver,
  resignations, Crawford, automatic move, results; `game` is the API in one place;
- `commission`: seed 001 payout, commission and settlement in integer cents;
- `table`: the table's rules (two seats, options and currency, next game on `ready`);
- `abandonment`: a running game left by a player, settled from an evaluation;
- `table_rules`: `BackgammonRules`, the table's rules as the host runs them (the commands
  to `table`; turns, views, the settlement answered there).

Pure: no I/O, no clock, no randomness (dice come from a seed via `croupier.game.fairness`,
or are inputs).
"""
