"""The end of a hand (rules 19-24): uncalled bets, pot layers with dead chips, the showdown
and the award, and the pots as a table shows them during the hand.

Hand values come from the hand's `HandRanks` (`HandSetup.ranks`): the evaluator is a C
extension, an adapter (`croupier.poker.adapters.evaluator`), so this core imports none.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from croupier.poker.core import cards as C
from croupier.poker.core.betting import ROTATIONS
from croupier.poker.core.pots import Pot, award, layers, settle, split, uncalled, unreachable
from croupier.poker.core.state import (
    COMPLETE,
    HandState,
)

Event = dict[str, Any]


def collected_pots(s: HandState) -> list[Pot]:
    """Pots as a table shows them during a hand: chips from finished betting rounds, by layer
    (the current round's bets are still in front of the players)."""
    contrib = [c - b for c, b in zip(s.contrib, s.bets, strict=True)]
    live = [not f for f in s.folded]
    order = s.clockwise_from_button(list(range(s.n)))
    dead = s.setup.dead
    if not dead:
        return layers(contrib, live, order)
    pots = layers([c - d for c, d in zip(contrib, dead, strict=True)], live, order)
    return with_dead(pots, sum(dead), tuple(i for i in order if live[i]), None)


def with_dead(
    pots: list[Pot], dead: int, seats: tuple[int, ...], values: Sequence[int] | None
) -> list[Pot]:
    """Dead chips (posts' dead parts, the big-blind ante) go to the main pot, the one every
    live player is eligible for (made first when the live chips formed none); its winners
    and shares follow (rule 24)."""
    if not dead:
        return pots
    if pots and pots[0].eligible == seats:
        main = pots[0]
        amount = main.amount + dead
        shares = split(amount, main.winners) if main.winners else ()
        return [Pot(amount, seats, main.winners, shares), *pots[1:]]
    main = Pot(dead, seats)
    if values is not None:
        main = award([main], values)[0]
    return [main, *pots]


def pots_json(t: HandState, pots: Sequence[Pot]) -> list[dict[str, Any]]:
    name = t.ids.__getitem__
    return [
        {
            "amount": amount,
            "eligible": list(map(name, eligible)),
            "winners": list(map(name, winners)),
        }
        for amount, eligible, winners, _ in pots
    ]


_NO_VALUES = (0,) * 9  # uncontested: every pot has a single eligible player


def finish(t: HandState, events: list[Event], showdown: bool) -> None:
    """Return the uncalled bet, build the pot layers and award them (rules 19-24)."""
    n = t.n
    ids = t.ids
    contrib = t.contrib
    stacks = t.stacks
    dead = t.setup.dead or None
    seat, back = uncalled(contrib if dead is None else list(map(operator.sub, contrib, dead)))
    returned: dict[str, int] = {}
    if back:  # (after a fold or a check the lists are shared with the previous state)
        t.contrib = contrib = contrib[:]
        t.stacks = stacks = stacks[:]
        contrib[seat] -= back
        stacks[seat] += back
        returned[ids[seat]] = back
    # Folded chips no live player can reach (two posters folding to a short all-in)
    # go back too.
    live_chips = contrib if dead is None else list(map(operator.sub, contrib, dead))
    for i, excess in enumerate(unreachable(live_chips, t.folded)):
        if excess:
            if not back:  # copy once, as above
                t.contrib = contrib = contrib[:]
                t.stacks = stacks = stacks[:]
                back = excess
            contrib[i] -= excess
            stacks[i] += excess
            returned[ids[i]] = returned.get(ids[i], 0) + excess
    order = ROTATIONS[n][t.setup.button]
    folded = t.folded
    seats = [i for i in order if not folded[i]]  # live, clockwise from the button's left
    shown: dict[str, list[str]] = {}
    values: Sequence[int] = _NO_VALUES
    if showdown:  # rule 22: every remaining hand is shown
        board = t.board
        hole = t.hole
        names = C.NAMES
        values = shown_values = [0] * n
        setup = t.setup
        if setup.config.omaha:
            omaha_value = setup.ranks.omaha_value
            for i in seats:
                shown_values[i] = omaha_value(hole[i], board)
                shown[ids[i]] = [names[c] for c in hole[i]]
        else:
            b1, b2, b3, b4, b5 = board
            rank7 = setup.ranks.rank7
            for i in seats:
                h1, h2 = hole[i]
                shown_values[i] = -rank7(h1, h2, b1, b2, b3, b4, b5)  # higher is stronger
                shown[ids[i]] = [names[h1], names[h2]]
    if dead is None:
        pots = settle(contrib, seats, values)
    else:  # dead chips: settle the live chips, then add the dead ones to the main pot
        pots = settle(list(map(operator.sub, contrib, dead)), seats, values)
        pots = with_dead(pots, sum(dead), tuple(seats), values)
    won = [0] * n
    name = ids.__getitem__
    pots_out: list[dict[str, Any]] = []
    pot_shares: list[list[int]] = []
    for amount, eligible, winners, shares in pots:
        if len(winners) == 1:
            won[winners[0]] += amount
        else:
            for w, share in zip(winners, shares, strict=False):
                won[w] += share
        pots_out.append(
            {
                "amount": amount,
                "eligible": list(map(name, eligible)),
                "winners": list(map(name, winners)),
            }
        )
        pot_shares.append(list(shares))  # per pot, as winners
    winnings: dict[str, int] = {}
    for i in order:
        if won[i]:
            winnings[ids[i]] = won[i]
    t.stacks = stacks = list(map(operator.add, stacks, won))
    t.status = COMPLETE
    t.to_act = -1
    t.result = {
        "pots": pots_out,
        "pot_shares": pot_shares,
        "returned": returned,
        "winnings": winnings,
        "stacks": dict(zip(ids, stacks, strict=False)),
        "deltas": dict(zip(ids, map(operator.sub, stacks, t.setup.initial), strict=False)),
        "shown": shown,
    }
    if shown:
        events.append({"type": "showdown", "hands": shown})
    events.append(
        {"type": "hand_end", "pots": pots_out, "returned": returned, "winnings": winnings}
    )
