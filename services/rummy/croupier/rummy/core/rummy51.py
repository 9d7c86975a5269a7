"""Rummy 51 (Remi 51): two packs with jokers, opening melds worth 51, going out or "Hand".

Source: the Remi 51 rules as published for online play (https://rummy-party.com/remi-51:
two packs with jokers, 2–4 players, going out "from the hand" or progressively, ace high
or low but not K-A-2, jokers stand for any card), the two-pack jokers-wild rules of
Kaluki (https://www.bicyclecards.com/card-games/rule/kaluki: first meld ≥ 51, the top
discard only to open with it, joker exchange), pagat.com's rummy pages for the common
rules, and seed 000 §10 [10.c]–[10.d], rules 27, 29, 30 for scoring. Choices:

- 2–4 players; two 52-card packs and 4 jokers (X1–X4); 14 cards each; the next card
  is the up-card starting the discard pile; the player left of the dealer plays first.
- Melds: sets of 3 or 4 of one rank in different suits; runs of 3+ of one suit, the ace
  low (A-2-3) or high (Q-K-A), never round the corner (K-A-2). Jokers are wild and stand
  for any missing card; a meld keeps at least one natural card.
- A turn: draw the top of the stock or the top discard; lay melds, lay off on any meld on
  the table, take back jokers; discard one card.
- Opening: a player's first melds, all laid in one turn, must count at least 51 (cards
  at their value, jokers as the card they stand for, ace 11). Lay-offs and joker exchanges
  need the player to have opened (earlier, or earlier in the same turn).
- A player who has not opened may take the top discard only to use it in the melds of
  that turn; a card taken from the pile is never discarded in the same turn.
- Taking back a joker (the usual rule): after opening, put the natural card the joker
  stands for in its place; the joker must be played again in the same turn.
- Going out: the hand empties (by melding everything, or by discarding the last card).
  A *Hand* is going out in one turn with nothing laid down before (seed 000 rule 29).
- An empty stock is replaced by the discard pile but its top card, turned over unshuffled.
- Penalty values (seed rule 27): ace 11, J Q K 10, others face value, joker 25; losers are
  charged all cards left in hand; a Hand adds 25 (rule 29), going down does not (rule 30).
"""

from __future__ import annotations

from croupier.rummy.core.melds import MeldRules
from croupier.rummy.core.variant import DiscardTake, Family, VariantRules, card_values

__all__ = ["RULES"]

RULES = VariantRules(
    name="rummy51",
    family=Family.LAYDOWN,
    melds=MeldRules(ace_high=True, jokers_wild=True, min_naturals=1),
    values=card_values(ace=11, joker=25),
    decks=2,
    jokers=4,
    min_players=2,
    max_players=4,
    hand_size=(14,),
    opening_minimum=51,
    low_ace_opening_value=11,
    discard_take=DiscardTake.UNTIL_OPENED,
)
