"""Georgian Joker: the pure engine (deck, hands, tricks, scoring, premia/moshla, sheet).

Modules, one concern each:

- `cards`: the 36-card deck with two jokers; `options`: table options and defaults;
- `schedule`: the hands and pulkas of a standard game and of "nines";
- `tricks`: following rules, joker uses, the trick's winner;
- `hand`: one deal as a state machine (trump, bidding, play, timeouts);
- `scoring`: a hand's points and the ÷100 sheet text; `premia`: a pulka's premia/moshla;
- `sheet`: the once-only premia ledger and the score sheet; `game`: a whole game for the
  table host; `conformance`: `croupier conformance` documents; `errors`, `events`.

Pure: no I/O, no clock, no randomness (a deal comes from a seed via
`croupier.game.fairness`).
"""
