"""Oklahoma Gin: Gin Rummy whose knock limit is set by the first up-card.

Source: pagat.com, "Gin Rummy", section "Oklahoma Gin"
(https://www.pagat.com/rummy/ginrummy.html), as also implemented by OpenSpiel's
gin_rummy `oklahoma=True` (ace up-card: knock card 0); seed 000 OQ 13/14. Every rule of
`croupier.rummy.core.gin` applies, plus:

- the value of the first up-card (ace 1, 2–10 face value, J Q K 10) is the most deadwood
  a player may knock with for the whole hand;
- an ace up-card means gin only (knock limit 0);
- no spade doubling and no other Oklahoma bonus (OQ 13: not in the source); scoring is
  that of Gin (seed 000 rules 24–26).
"""

from __future__ import annotations

from dataclasses import replace

from croupier.rummy.core.gin import RULES as GIN_RULES

__all__ = ["RULES"]

RULES = replace(GIN_RULES, name="oklahoma_gin", oklahoma=True)
