"""Pure poker engine: No-Limit Hold'em and Pot-Limit Omaha (seed 002), room left for Naiko powers.

Modules, one per concern:

- `cards`: card notation <-> integers (rank * 4 + suit, the phevaluator encoding).
- `evaluator`: 5/6/7-card Hold'em and Omaha hand values (C extension `phevaluator`).
- `rules`: table configuration (variant, limit, blinds, ante) and the hand's errors.
- `betting`: the betting-round rules (legal actions, min/max raise-to, reopening).
- `pots`: uncalled bets, contribution layers (side pots) and the odd-chip split.
- `engine`: the hand state machine: `start_hand`, `apply`, `legal_actions`, `view`.
- `history`: the replayable JSON hand history and its reader.
- `conformance`: `run_scenario(document)` for `croupier conformance`.
"""

from croupier.poker.engine import (
    apply,
    legal_actions,
    start_hand,
    timeout_action,
    view,
)
from croupier.poker.rules import IllegalAction, TableConfig
from croupier.poker.state import HandState

__all__ = [
    "HandState",
    "IllegalAction",
    "TableConfig",
    "apply",
    "legal_actions",
    "start_hand",
    "timeout_action",
    "view",
]
