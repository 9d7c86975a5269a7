"""The contract between the games and the table host: both depend on it, never on each other.

- `commands`: what the host asks of a game (seat, unseat, start a hand, act);
- `events`: what a game answers (public events, a finished hand's settlement);
- `rules`: `GameRules`, the protocol a game implements (its `Turn`s, its optional
  parts), and `TableRules`, the base of a game's rules object;
- `errors`: `RuleBroken` and its kinds, each refusal with a machine-readable reason;
- `fairness`: the seeded randomness a hand derives everything random from;
- `limits`: the documented bounds of every amount, count and duration;
- `money`: the currencies and their minor units; `commission`: the house's cut, computed
  the same way by a game's settlement and by the wallet;
- `points`: a tournament round's chips and points arithmetic (rummy tables and the
  tournament director).

Standard library only, like every `core/` that imports it.
"""

from croupier.game.commands import JSON, Act, Command, SeatPlayer, StartHand, UnseatPlayer
from croupier.game.errors import Duplicate, Malformed, NotYours, RuleBroken, Unknown
from croupier.game.events import Event, HandResult
from croupier.game.rules import (
    ClockSettings,
    EvaluatesAbandonment,
    GameRules,
    HoldsStacks,
    TableRules,
    TableTraits,
    Turn,
    implements,
)

__all__ = [
    "JSON",
    "Act",
    "ClockSettings",
    "Command",
    "Duplicate",
    "EvaluatesAbandonment",
    "Event",
    "GameRules",
    "HandResult",
    "HoldsStacks",
    "Malformed",
    "NotYours",
    "RuleBroken",
    "SeatPlayer",
    "StartHand",
    "TableRules",
    "TableTraits",
    "Turn",
    "Unknown",
    "UnseatPlayer",
    "implements",
]
