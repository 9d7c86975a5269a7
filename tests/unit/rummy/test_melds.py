"""Sets and runs with jokers: building a meld from written cards, laying off, taking a joker
back (the rules the variant modules document)."""

from __future__ import annotations

import pytest

from croupier.rummy.core import gin, rummy51
from croupier.rummy.core.cards import card_names, parse_card
from croupier.rummy.core.melds import (
    InvalidMeld,
    MeldEntry,
    build_meld,
    classify_meld,
    lay_off,
    take_joker,
)

R51 = rummy51.RULES.melds
GIN = gin.RULES.melds


def entries(*names: str) -> list[MeldEntry]:
    out: list[MeldEntry] = []
    for name in names:
        if "=" in name:
            card, played_as = name.split("=")
            out.append((parse_card(card), parse_card(played_as)))
        else:
            out.append((parse_card(name), None))
    return out


@pytest.mark.parametrize(
    ("cards", "kind"),
    [
        (["5h", "6h", "7h"], "run"),
        (["Qh", "Kh", "Ah"], "run"),
        (["Ah", "2h", "3h"], "run"),
        (["Kh", "Ah", "2h"], None),  # never round the corner
        (["5h", "5d", "5c", "5s"], "set"),
        (["5h", "5h", "5c"], None),  # two packs: a set has different suits
        (["5h", "5d", "5c", "5s", "X1"], None),  # a set has at most 4 cards
        (["5h", "X1", "7h"], "run"),
        (["X1", "X2", "9c"], "set"),  # one natural is enough in Rummy 51
        (["X1", "X2", "X3"], None),
        (["5h", "6h"], None),
    ],
)
def test_classify_rummy51(cards: list[str], kind: str | None) -> None:
    assert classify_meld([parse_card(c) for c in cards], R51) == kind


def test_gin_has_no_high_ace_and_no_jokers() -> None:
    assert classify_meld([parse_card(c) for c in ["Qh", "Kh", "Ah"]], GIN) is None
    assert classify_meld([parse_card(c) for c in ["5h", "X1", "7h"]], GIN) is None


def test_a_joker_played_as_the_ace_above_a_king_makes_an_ace_high_run() -> None:
    # Laid off as the ace after Th-Kh, the joker is the run's top: written back with what
    # it stands for (as every view shows the meld), the meld is the same run again.
    written = entries("Th", "Jh", "X1=Qh", "Kh", "X4=Ah")
    meld = build_meld(written, R51)
    assert (meld.kind, meld.low) == ("run", 10)
    assert card_names(meld.stands_for) == ["Th", "Jh", "Qh", "Kh", "Ah"]
    low = build_meld(entries("X1=Ah", "2h", "3h"), R51)  # and the ace below a two
    assert card_names(low.stands_for) == ["Ah", "2h", "3h"]


def test_joker_positions_follow_as_or_the_written_order() -> None:
    assert card_names(build_meld(entries("5h", "X1", "7h"), R51).stands_for) == ["5h", "6h", "7h"]
    written_first = build_meld(entries("X1", "5h", "6h"), R51)
    assert card_names(written_first.stands_for) == ["4h", "5h", "6h"]
    chosen = build_meld(entries("5h", "6h", "X1=4h"), R51)
    assert card_names(chosen.stands_for) == ["4h", "5h", "6h"]
    assert chosen.cards[0] == parse_card("X1")
    top = build_meld(entries("Qh", "Kh", "X1"), R51)
    assert card_names(top.stands_for) == ["Qh", "Kh", "Ah"]
    with pytest.raises(InvalidMeld):
        build_meld(entries("5h", "6h", "X1=9h"), R51)
    with pytest.raises(InvalidMeld):
        build_meld(entries("5h", "5d", "X1=5h"), R51)  # the joker must be a missing suit


def test_lay_off_on_runs_and_sets() -> None:
    run = build_meld(entries("5h", "6h", "7h"), R51)
    assert card_names(lay_off(run, parse_card("8h"), None, R51).stands_for)[-1] == "8h"
    assert card_names(lay_off(run, parse_card("4h"), None, R51).stands_for)[0] == "4h"
    with pytest.raises(InvalidMeld):
        lay_off(run, parse_card("9h"), None, R51)
    high = build_meld(entries("Jh", "Qh", "Kh"), R51)
    assert card_names(lay_off(high, parse_card("Ah"), None, R51).stands_for)[-1] == "Ah"
    assert card_names(lay_off(high, parse_card("X2"), parse_card("Th"), R51).stands_for)[0] == "Th"
    set_ = build_meld(entries("5h", "5d", "X1"), R51)  # joker plays 5c
    grown = lay_off(set_, parse_card("5c"), None, R51)  # the joker moves to 5s
    assert sorted(card_names(grown.stands_for)) == ["5c", "5d", "5h", "5s"]
    with pytest.raises(InvalidMeld):
        lay_off(grown, parse_card("5s"), None, R51)  # complete


def test_take_joker_back() -> None:
    run = build_meld(entries("5h", "X1", "7h"), R51)
    meld, joker = take_joker(run, parse_card("6h"))
    assert joker == parse_card("X1")
    assert card_names(meld.cards) == ["5h", "6h", "7h"]
    with pytest.raises(InvalidMeld):
        take_joker(run, parse_card("8h"))
    set_ = build_meld(entries("9c", "9d", "X2"), R51)
    meld, joker = take_joker(set_, parse_card("9s"))
    assert joker == parse_card("X2")
    assert sorted(card_names(meld.cards)) == ["9c", "9d", "9s"]
