"""Rummy 500 (500 Rum): melds score for their owner, and the whole discard pile is open.

Source: pagat.com, "500 Rum" (https://www.pagat.com/rummy/500rum.html), with jokers as
wild cards, and the Hoyle text read at http://games-of-playing-cards.pokerwiner.com/500-rum.html
(7 cards, 13 for two players; any discard with all above it, the card taken melded at
once; melds and lay-offs score for their owner); seed 000 rules 31–32 and OQ 12 for
scoring. Choices:

- 2–4 players; one 52-card pack and 2 jokers; 13 cards each for 2 players, 7 for 3–4; an
  up-card starts the discard pile, which is kept spread so every card is visible.
- Melds: sets of 3 or 4 of a rank; runs of 3+ of one suit, ace low or high, not round
  the corner; jokers wild, a meld keeps at least one natural card.
- Draw: the top of the stock, or any card of the discard pile together with every card
  above it (`count` = cards taken from the top). The deepest card taken must be melded or
  laid off in the same turn; the others join the hand.
- No opening minimum; lay-offs on any meld on the table (they score for the player who
  lays them); joker exchanges as in the other variants.
- Going out: the hand empties, by melding everything or by discarding the last card.
- The round also ends, with no winner, when a player must draw from an empty stock.
- Values (seed rule 31): ace 15, joker 15, J Q K 10, others face value. A player's score
  is the value of the cards they put on the table − the value of the cards left in hand;
  each loser's negative points are the winner's score − the loser's score, or 0 (rule 32).
"""

from __future__ import annotations

from croupier.rummy.core.melds import MeldRules
from croupier.rummy.core.variant import DiscardTake, Family, VariantRules, card_values

__all__ = ["RULES"]

RULES = VariantRules(
    name="rummy500",
    family=Family.LAYDOWN,
    melds=MeldRules(ace_high=True, jokers_wild=True, min_naturals=1),
    values=card_values(ace=15, joker=15),
    decks=1,
    jokers=2,
    min_players=2,
    max_players=4,
    hand_size=(13, 7),
    opening_minimum=0,
    discard_take=DiscardTake.ALWAYS,
    whole_pile=True,
    reuse_discards=False,
    scores_melds=True,
)
