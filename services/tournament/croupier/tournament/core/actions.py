"""What the director tells the core (actions) and what the core answers happened (events).

Actions mirror the conformance notation (docs/conformance.md, "Points tournament"):
`round_start`, `round_end` with the game engine's negative points, `round_cancel`,
`level`, `rebuy`. Events are past tense and carry exact integers, so a director can
publish them and a wallet or lobby can follow a tournament without re-deriving anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from croupier.game.limits import OutOfBounds, check_amount, echo
from croupier.tournament.core.errors import InvalidInput

__all__ = [
    "Action",
    "CancelRound",
    "Disqualify",
    "EndRound",
    "Event",
    "FinalTableStarted",
    "LevelRaised",
    "PlayerDisqualified",
    "PlayerEliminated",
    "RaiseLevel",
    "Rebuy",
    "RebuyAccepted",
    "RebuyCredited",
    "RoundCancelled",
    "RoundSettled",
    "RoundStarted",
    "StartRound",
    "TournamentFinished",
    "end_round",
]


# --- actions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StartRound:
    """A round starts at a table of 2..table_size players, in seat order (rules 19, 20)."""

    round_id: str
    table: tuple[str, ...]


@dataclass(frozen=True)
class EndRound:
    """A round's result: its winner and every loser's negative points, in seat order.

    Build it with `end_round`, which refuses a negative or non-integer number.
    """

    round_id: str
    winner: str
    negative_points: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class CancelRound:
    """The all-auto-player round cancelled after its 5 more minutes (rule 46, OQ 24)."""

    round_id: str


@dataclass(frozen=True)
class RaiseLevel:
    """The next level takes effect (rule 18)."""


@dataclass(frozen=True)
class Rebuy:
    """A player asks to rebuy (rules 11-17)."""

    player: str


@dataclass(frozen=True)
class Disqualify:
    """An operator disqualifies a player (rule 49), in a round of his or between them."""

    player: str


Action = StartRound | EndRound | CancelRound | RaiseLevel | Rebuy | Disqualify


def end_round(round_id: str, winner: str, negative_points: Mapping[str, object]) -> EndRound:
    """An `EndRound` whose negative points are whole numbers in 0..MAX_AMOUNT."""
    checked: list[tuple[str, int]] = []
    for player, points in negative_points.items():
        try:
            checked.append((player, check_amount(points, f"negative points of {echo(player)}")))
        except OutOfBounds as exc:
            raise InvalidInput("invalid_negative_points", exc.message) from None
    return EndRound(round_id, winner, tuple(checked))


# --- events ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundStarted:
    """Each player at `table` paid `fees[i]` into the pot (rule 20) on these terms (rule 19)."""

    round_id: str
    table: tuple[str, ...]
    fees: tuple[int, ...]
    round_fee: int
    chip_ratio: int


@dataclass(frozen=True)
class FinalTableStarted:
    """The first round whose table holds every player still in (OQ 4, OQ 5)."""

    table: tuple[str, ...]


@dataclass(frozen=True)
class RoundSettled:
    """The winner took `pot` plus each loser's `payments` (rules 21-23); `points` (rule 33)."""

    round_id: str
    winner: str
    pot: int
    payments: tuple[tuple[str, int], ...]
    points: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class RoundCancelled:
    """Each player got back what he paid into the pot (OQ 24)."""

    round_id: str
    refunds: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class LevelRaised:
    """`level` took effect; each of `bonus_to` got the level-up bonus (rule 34)."""

    level: int
    bonus_to: tuple[str, ...]


@dataclass(frozen=True)
class RebuyAccepted:
    """`credited`: the chips are his now; otherwise when his running round ends (OQ 3)."""

    player: str
    credited: bool


@dataclass(frozen=True)
class RebuyCredited:
    """A rebuy accepted during a round, credited when the round ended or was cancelled."""

    player: str
    chips: int


@dataclass(frozen=True)
class PlayerEliminated:
    """Out with 0 chips at the end of a round (rule 9); his rebuy window is open (rule 17)."""

    player: str
    at_final_table: bool


@dataclass(frozen=True)
class PlayerDisqualified:
    """Out by an operator's decision (rule 49): no rebuy, ranked last, no prize."""

    player: str


@dataclass(frozen=True)
class TournamentFinished:
    """One player is left, holding every chip (rule 2)."""

    winner: str


Event = (
    RoundStarted
    | FinalTableStarted
    | RoundSettled
    | RoundCancelled
    | LevelRaised
    | RebuyAccepted
    | RebuyCredited
    | PlayerEliminated
    | PlayerDisqualified
    | TournamentFinished
)
