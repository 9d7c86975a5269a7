"""One check decides legality: every action `legal_actions` lists is accepted, every other
one is refused with a code and the state unchanged (random games, fixed seeds)."""

from __future__ import annotations

import random

import pytest

from croupier.game.fairness import shuffled
from croupier.joker.core.cards import DECK, Suit
from croupier.joker.core.errors import IllegalAction
from croupier.joker.core.hand import (
    Bid,
    DeclareTrump,
    HandState,
    Phase,
    PlayCard,
    apply,
    deal,
    legal_actions,
)
from croupier.joker.core.tricks import JokerUse


def candidates(state: HandState, seat: int) -> list[Bid | PlayCard]:
    if state.phase is Phase.BIDDING:
        return [Bid(n) for n in range(state.cards + 2)]
    plays: list[Bid | PlayCard] = []
    for card in state.hands[seat]:
        if card.is_joker:
            use = JokerUse.UNDER if state.trick else JokerUse.TAKE
            suit = None if state.trick else DECK[0].suit
            plays.append(PlayCard(card, use, suit))
        else:
            plays.append(PlayCard(card))
    return plays


def listed(state: HandState, seat: int, command: Bid | PlayCard) -> bool:
    legal = legal_actions(state, seat)
    if isinstance(command, Bid):
        return command.tricks in legal["tricks"]
    return command.card.code in legal["cards"]


@pytest.mark.parametrize("game_no", range(6))
def test_legal_actions_and_apply_agree(game_no: int) -> None:
    rng = random.Random(game_no)
    for cards in (1, 4, 8, 9):
        seed = bytes([game_no, cards]) * 16
        state = deal(shuffled(DECK, seed), dealer=game_no % 4, cards=cards)
        dealt = sorted(c.code for h in state.hands for c in h)
        while state.turn is not None:
            seat = state.turn
            if state.phase is Phase.TRUMP:
                state, _ = apply(state, seat, DeclareTrump(rng.choice([*Suit, None])))
                continue
            accepted = []
            for command in candidates(state, seat):
                try:
                    after, _ = apply(state, seat, command)
                except IllegalAction as refused:
                    assert refused.reason and not listed(state, seat, command)
                    continue
                assert listed(state, seat, command)
                accepted.append(after)
            assert accepted
            state = rng.choice(accepted)
        assert state.phase is Phase.COMPLETE
        assert sum(state.taken) == cards
        played = sorted(p.card.code for t in state.played for p in t)
        assert played == dealt
        assert sum(b or 0 for b in state.bids) != cards  # the dealer rule (BG 5)
