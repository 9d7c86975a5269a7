"""Gin Rummy: the rules this engine plays, one standard rule set.

Source: pagat.com, "Gin Rummy" (https://www.pagat.com/rummy/ginrummy.html), the basic
game; seed 000 §10 [10.d] and OQ 13/14 for scoring. The pagat page itself could not be
fetched from this environment; the choices below are the standard rules it gives, checked
against pages that could be read: rubl.com/rules/gin_rummy_50_card.html (knock limit,
the two-card stock end), cardgames.wikia.com/wiki/Gin_Rummy (first up-card, no discarding
the card just taken), groupgames.xyz/card-games/gin-rummy (ace low, undercut on equal
deadwood, no lay-offs on gin), and OpenSpiel's gin_rummy (GRA tournament rules). Choices:

- 2 players, one 52-card pack, no jokers; 10 cards each; the next card is the up-card that
  starts the discard pile, the rest is the stock.
- Ace is low only (A-2-3, never Q-K-A); deadwood values: ace 1, 2–10 face value, J Q K 10
  (OQ 14).
- Melds: sets of 3 or 4 of a rank; runs of 3 or more of one suit.
- First turn: the non-dealer may take the up-card or pass; then the dealer may; if both
  pass the non-dealer draws from the stock and play goes on normally.
- A turn: draw the top of the stock or the top discard, then discard. A card just taken
  from the discard pile may not be discarded in the same turn (the auto-player alone may:
  seed 000 OQ 26 has it discard the card drawn this turn).
- Knock: after drawing, discard and show melds with deadwood ≤ 10 (the knock limit).
  Knocking with no deadwood is gin (also written as a `gin` action).
- After a knock (not after gin) the defender may lay off deadwood on the knocker's melds
  (`layoff`, ending with `pass`); the defender's own deadwood is then counted in its best
  arrangement. Undercut: the defender's deadwood ≤ the knocker's (OQ 13; a tie is an
  undercut, unlike OpenSpiel which scores it 0).
- If a player discards without knocking and only two cards are left in the stock, the hand
  ends with no winner (ending `draw`; the 50th-card "wall" option of tournament rules and
  OpenSpiel is not used).
- A `gin` with all 11 cards melded and no discard ("big gin") is accepted and scored
  as a gin: the seed's table has no big-gin bonus.
- Not used: Oklahoma spade doubling, box/line bonuses (a hand is one round).
- Scoring (seed 000 rules 24–26): gin: loser's deadwood + 25; knock: defender's deadwood −
  knocker's; undercut: knocker's − defender's + 10, paid by the knocker.
"""

from __future__ import annotations

from croupier.rummy.core.melds import MeldRules
from croupier.rummy.core.variant import Family, VariantRules, card_values

__all__ = ["RULES"]

RULES = VariantRules(
    name="gin",
    family=Family.KNOCK,
    melds=MeldRules(ace_high=False, jokers_wild=False),
    values=card_values(ace=1, joker=0),
    hand_size=(10,),
    knock_limit=10,
)
