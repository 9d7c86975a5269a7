"""Pure poker engine (seed 002): No-Limit Hold'em, Pot-Limit Omaha and Naiko mode (powers).

Modules, one per concern:

- `cards`: card notation <-> integers (rank * 4 + suit, the phevaluator encoding).
- `evaluator`: 5/6/7-card Hold'em and Omaha hand values (C extension `phevaluator`).
- `rules`: table configuration (variant, limit, blinds, ante) and the hand's errors.
- `betting`: the betting-round rules (legal actions, min/max raise-to, reopening).
- `pots`: uncalled bets, contribution layers (side pots) and the odd-chip split.
- `state`: the hand state value (copy-on-apply; never changed once returned).
- `engine`: the hand state machine: `start_hand`, `apply`, `legal_actions`, `view`.
- `naiko`: Naiko powers (Sneak Peek, Sleeve Swap, Short Anchor, Protective Seal), Destellos.
- `history`: the replayable JSON hand history and its reader.
- `conformance`: `run_scenario(document)` for `croupier conformance`.
- `table_engine`: `ENGINE`, the thin `croupier.game.GameRules` adapter.
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
