"""The tournament director's pure core: the whole seed-000 points arithmetic.

Standard library (and `croupier.kit.limits`) only: no I/O, clock or randomness, so the
director service, `croupier conformance` and the tests run the same code. Rule numbers
are those of docs/rules/rummy-tournaments.md.

- `options`: levels, rebuy policy, prizes, the winner-risk flag, with their bounds;
- `actions`: typed actions (`StartRound`, `EndRound`, `CancelRound`, `RaiseLevel`,
  `Rebuy`) and past-tense events;
- `state`: the immutable `Tournament` and its queries (`players_in`, `idle_players`,
  `can_rebuy`, `rebuy_refusal`);
- `points`: one round's fees, payments and tournament points;
- `standings`: `apply(state, action) -> (state, events)`;
- `ranking`: the live and final ranking, and the prizes with ties pooled;
- `errors`: `RuleBroken`, the one root of every refusal, with a reason code.
"""
