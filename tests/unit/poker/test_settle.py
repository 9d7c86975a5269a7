"""`pots.settle` (the engine's one-pass settlement) gives exactly `award(layers(...))`: the
pot layers of rule 19 and the awards of rules 23-24 (odd chips clockwise, OQ 11)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.poker.core.pots import award, layers, settle


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[int], list[bool], list[int], list[int]]:
    n = draw(st.integers(2, 9))
    contrib = draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    live = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if not any(live):
        live[draw(st.integers(0, n - 1))] = True
    button = draw(st.integers(0, n - 1))
    order = [(button + 1 + k) % n for k in range(n)]
    values = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))  # many ties
    return contrib, live, order, values


@settings(max_examples=400, deadline=None)
@given(tables())
def test_rule_19_23_24_settle_equals_layers_then_award(
    table: tuple[list[int], list[bool], list[int], list[int]],
) -> None:
    contrib, live, order, values = table
    seats = [i for i in order if live[i]]
    assert settle(contrib, seats, values) == award(layers(contrib, live, order), values)


def test_rule_19_settle_without_live_seats_has_no_pots() -> None:
    assert settle([3, 5], [], [0, 0]) == []
