"""Rules 7–15 as properties over random pulkas (hypothesis): who gets what, never twice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.joker.core.options import MultiPremia, Options
from croupier.joker.core.premia import settle_pulka
from croupier.joker.core.scoring import HandOutcome

PLAYERS = ["p0", "p1", "p2", "p3"]


@st.composite
def pulkas(draw: st.DrawFn) -> tuple[list[dict[str, HandOutcome]], Options]:
    sizes = draw(st.sampled_from([[9] * 4, list(range(1, 9)), list(range(8, 0, -1))]))
    hands = []
    for n in sizes:
        hand = {}
        for p in PLAYERS:
            bid = draw(st.integers(0, n))
            took = bid if draw(st.booleans()) else draw(st.integers(0, n))
            hand[p] = HandOutcome(bid=bid, took=took, cards=n)
        hands.append(hand)
    options = Options(
        premia=draw(st.booleans()),
        moshla=draw(st.booleans()),
        multi_premia=draw(st.sampled_from(list(MultiPremia))),
    )
    return hands, options


@settings(max_examples=300, deadline=None)
@given(pulkas())
def test_rules_7_to_15_hold_on_random_pulkas(
    case: tuple[list[dict[str, HandOutcome]], Options],
) -> None:
    hands, options = case
    settled = settle_pulka(PLAYERS, hands, options)
    k = sum(s.qualified for s in settled.players)
    for s in settled.players:
        outcomes = [h[s.player] for h in hands]
        ordinary = [sc for sc, o in zip(s.hand_scores, outcomes, strict=True) if not o.khishti]
        best = max(ordinary, default=None)
        assert s.result == sum(s.hand_scores) + s.premia + s.moshla  # rules 14-15
        assert s.qualified == all(o.fulfilled for o in outcomes)  # rules 4-6
        if options.premia and s.qualified:
            assert s.premia == best  # rule 7
        else:
            assert s.premia == 0
        assert not (s.premia and s.charged)  # rule 13
        expected_charge = (
            options.premia
            and options.moshla
            and not s.qualified
            and (k == 1 or (k in (2, 3) and options.multi_premia is MultiPremia.OTHERS_DEDUCTED))
        )
        assert s.charged == expected_charge  # rules 10-12, OQ 6
        if s.charged:
            assert s.moshla == -(best or 0)  # rules 8-9, OQ 1
            if best is not None:
                assert s.crossed_out == s.hand_scores.index(best)  # OQ 2: the earliest
                assert not outcomes[s.crossed_out].khishti
        else:
            assert s.moshla == 0 and s.crossed_out is None
