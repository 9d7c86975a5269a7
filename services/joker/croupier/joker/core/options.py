"""Table options of a Joker table, with the site's defaults.

Decisions taken where the base game varies (spec seed 003, "Base game context", and its
open questions; each is a table option unless said otherwise):

- `game_type`: `standard` (24 hands: pulkas of 1→8, 9×4, 8→1, 9×4 cards) or `nines`
  (4 pulkas of 4 nine-card hands) — BG 3, rule 2.
- `khishti`: the penalty for bidding ≥ 1 and taking nothing — BG 9, OQ 10. Default a flat
  −200; `Khishti.flat(-500)` or any other flat value; `Khishti.split(-200, -500)` for
  "−200 in hands of 1–8 cards, −500 in nine-card hands".
- `took_all`: how "bid n, took n" scores — BG 9, OQ 11. Default `hundred_per_card`
  (100 × n); `as_bid` scores it like any fulfilled bid (50 × n + 50).
- `premia`, `moshla`, `multi_premia`: rule 21 and OQ 6. Premia off means no moshla either
  (the moshla switch then has no effect); `multi_premia` decides who is charged when 2 or 3
  players qualify: `others_deducted` (default) or `others_not_deducted`.
- Not options (fixed by the site's rules): 4 players (OQ 12); a fulfilled pass counts for
  the premia (§2.1, OQ 9); the dealer may not make the bids add up to n (BG 5).
- Home variants not offered (BG 11; the site does not use them): the wiped hand taken
  from the next player only, a doubled instead of a repeated best hand, a pass that does
  not count for the premia, partnerships and 3/5/6-player tables.
- Totals and winner (BG 10): a player's game total is the sum of his pulka results; the
  highest total wins, equal totals share a place (`game.result`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["GameType", "Khishti", "MultiPremia", "Options", "TookAll"]


class GameType(StrEnum):
    STANDARD = "standard"
    NINES = "nines"


class MultiPremia(StrEnum):
    """Who is charged a moshla when two or three players take the premia (rule 11)."""

    OTHERS_DEDUCTED = "others_deducted"
    OTHERS_NOT_DEDUCTED = "others_not_deducted"


class TookAll(StrEnum):
    """Score of a hand where the bid was n (all cards) and n tricks were taken (OQ 11)."""

    HUNDRED_PER_CARD = "hundred_per_card"
    AS_BID = "as_bid"


@dataclass(frozen=True, slots=True, kw_only=True)
class Khishti:
    """The khishti penalty in points (negative), for short hands and for nine-card hands."""

    short_hands: int = -200
    nine_card_hands: int = -200

    @classmethod
    def flat(cls, points: int) -> Khishti:
        return cls(short_hands=points, nine_card_hands=points)

    @classmethod
    def split(cls, short_hands: int, nine_card_hands: int) -> Khishti:
        return cls(short_hands=short_hands, nine_card_hands=nine_card_hands)

    def penalty(self, cards_per_player: int) -> int:
        """The penalty in a hand of `cards_per_player` cards each."""
        return self.nine_card_hands if cards_per_player >= 9 else self.short_hands


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Everything a table fixes when it is created. Defaults are the site's (seed 003 §5)."""

    game_type: GameType = GameType.STANDARD
    khishti: Khishti = field(default_factory=Khishti)
    took_all: TookAll = TookAll.HUNDRED_PER_CARD
    premia: bool = True
    moshla: bool = True
    multi_premia: MultiPremia = MultiPremia.OTHERS_DEDUCTED

    def describe(self) -> str:
        """The line shown in the table description before a player sits down (rule 22)."""
        if not self.premia:
            premia = "premia off"
        elif not self.moshla:
            premia = "premia on, moshla off"
        else:
            rule = (
                "deducted from the rest"
                if self.multi_premia is MultiPremia.OTHERS_DEDUCTED
                else "not deducted from the rest"
            )
            premia = f"premia on, moshla on, several premias: {rule}"
        k = self.khishti
        if k.short_hands == k.nine_card_hands:
            khishti = f"khishti {k.short_hands}"
        else:
            khishti = f"khishti {k.short_hands} / {k.nine_card_hands} in nine-card hands"
        return f"{self.game_type.value}; {premia}; {khishti}"
