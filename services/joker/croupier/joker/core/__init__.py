"""Georgian Joker's rules: deck, hands, tricks, scoring, premia/moshla, sheet, table.

Modules, one concern each:

- `cards`: the 36-card deck with two jokers; `options`: table options and defaults;
  `table_options`: reading them from JSON;
- `schedule`: the hands and pulkas of a standard game and of "nines";
- `tricks`: following rules, joker uses, the trick's winner;
- `hand`: one deal as a state machine (trump, bidding, play, timeouts);
- `scoring`: a hand's points and the ÷100 sheet text; `premia`: a pulka's premia/moshla;
- `sheet`: the once-only premia ledger and the score sheet; `game`: a whole game;
- `table`: a table's state (four seats around a game); `table_rules`: `JokerRules`, the
  table's rules as the host runs them (seats, the game's hands, turns, views, the
  settlement); `errors`: why an action is refused.

Events (`croupier.game.Event`, public facts, never a hidden card), past tense:
`player_seated`, `player_left`, `hand_started`, `trump_declared`, `bid_made`,
`card_played`, `trick_taken`, `hand_scored`, `pulka_settled`, `game_ended`.

Pure: no I/O, no clock, no randomness (a deal comes from a seed via
`croupier.game.fairness`).
"""
