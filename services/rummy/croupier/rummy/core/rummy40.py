"""Rummy 40 (Scala 40): two packs and four jokers, opening melds worth 40.

Source: pagat.com, "Scala Quaranta" (https://www.pagat.com/rummy/scala40.html), and the
Italian rules it follows, read at https://www.ilruolodelgioco.it/scala-quaranta/ (13
cards, opening of 40, the discard only if melded in the same turn, joker exchange after
opening) and https://rummyrulebook.com/pages/scala-quaranta/ (108 cards, ace high or low,
not round the corner); seed 000 rules 28–30 and OQ 11 for scoring. Choices:

- 2–6 players; two 52-card packs and 4 jokers; 13 cards each; an up-card starts the
  discard pile; the player left of the dealer plays first.
- Melds: sets of 3 or 4 of one rank in different suits; runs of 3+ of one suit, ace low
  (A-2-3) or high (Q-K-A), not round the corner. Jokers are wild; a meld keeps at least
  one natural card.
- Opening: the first melds, laid in one turn, must count at least 40 (ace 1 when played
  low in A-2-3, else 11; J Q K 10; a joker as the card it stands for).
- The top discard may be taken only by a player who uses it in a meld or lay-off in the
  same turn (and who opens in that turn if not yet opened); it is not discarded again.
- Lay-offs and joker exchanges (natural card for the joker it stands for, the joker then
  played in the same turn) only after opening.
- Going out ("closing"): the hand empties, normally by discarding the last card. A Hand
  (closing in one turn without having opened before) is scored as seed rule 29.
- A player who may lay off (has opened, earlier or in this turn) may not discard a card
  that could be laid off on a meld on the table; jokers, which fit any meld, are thus
  discarded only to close. The closing discard (the last card) is free. Source:
  https://gaetashop.it/scala-40/ ("è vietato scartare carte che leghino con combinazioni
  proprie o degli avversari che si trovano già sul tavolo": discarding cards that fit
  one's own or the opponents' melds on the table is forbidden). The auto-player's
  discard (seed 000 rule 45) is the drawn card whatever it is.
- An empty stock is replaced by the discard pile but its top card, turned over unshuffled.
- Not used: the 101-point elimination (a round is settled in chips instead).
- Penalty values (seed rule 28, OQ 11): ace 11, J Q K 10, joker 15 in every case.
"""

from __future__ import annotations

from croupier.rummy.core.melds import MeldRules
from croupier.rummy.core.variant import DiscardTake, Family, VariantRules, card_values

__all__ = ["RULES"]

RULES = VariantRules(
    name="rummy40",
    family=Family.LAYDOWN,
    melds=MeldRules(ace_high=True, jokers_wild=True, min_naturals=1),
    values=card_values(ace=11, joker=15),
    decks=2,
    jokers=4,
    min_players=2,
    max_players=6,
    hand_size=(13,),
    opening_minimum=40,
    low_ace_opening_value=1,
    discard_take=DiscardTake.ALWAYS,
    layoff_discard_banned=True,
)
