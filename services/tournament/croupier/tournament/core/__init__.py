"""The tournament director's pure core: the seed-000 points arithmetic, poker tournament
structures and the seating of both.

Standard library, `croupier.game.limits`, `croupier.game.fairness` (seeded expansion) and
`croupier.game.points` (one round's fees, payments and tournament points, shared with
rummy's tables) only: no I/O, clock or randomness of its own (time comes in as numbers,
randomness as seeds), so the director service, `croupier conformance` and the tests run
the same code. Rule numbers
are those of docs/rules/rummy-tournaments.md and docs/rules/poker-naiko.md.

- `options`: levels, rebuy policy, prizes, the winner-risk flag, with their bounds;
- `actions`: typed actions (`StartRound`, `EndRound`, `CancelRound`, `RaiseLevel`,
  `Rebuy`) and past-tense events;
- `state`: the immutable `Tournament` and its queries (`players_in`, `idle_players`,
  `can_rebuy`, `rebuy_refusal`);
- `standings`: `apply(state, action) -> (state, events)`;
- `ranking`: the live and final ranking, and the prizes with ties pooled;
- `payouts`: the payout table keyed by the number of entrants (shares of the pool);
- `errors`: `Refused`, the one root of every refusal, with a reason code;
- `blinds`: poker blind structures (levels, antes, breaks), presets and the generator;
- `spin`: a Spin's published multiplier table, its provably fair draw and prizes;
- `seating`: tables and seats, the recorded initial draw (rule 7), rummy balancing
  (rule 42, OQ 22), the final table;
- `balancing`: poker TDA breaking and balancing, dead button, hand-for-hand;
- `poker_config`: a poker tournament's terms (Sit & Go, Spin, scheduled);
- `poker_tournament`: a poker tournament hand by hand: `start`, `hand_finished`, `tick`
  return the new state (`poker_state`, chips in `poker_chips`) and the `poker_decisions`
  to carry out; `poker_advance` decides what follows each change;
- `poker_entries`: registration, late registration and re-entry, with their refusals.
"""
