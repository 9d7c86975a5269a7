"""`ChipCounts`, the poker director's chips by player: an immutable mapping in entry
order whose updates copy only the buckets they touch."""

from __future__ import annotations

from croupier.tournament.core.poker_chips import BUCKET, ChipCounts


def ranks(count: int) -> dict[str, int]:
    return {f"p{number}": number for number in range(count)}


def test_an_update_changes_a_copy_in_entry_order_and_leaves_the_original() -> None:
    order = ranks(3 * BUCKET + 5)
    start = ChipCounts.of(order, 100)
    after = start.updated({"p0": 40, f"p{2 * BUCKET}": 160})
    assert list(after) == list(order) and len(after) == len(order)
    assert after["p0"] == 40 and after[f"p{2 * BUCKET}"] == 160 and after["p1"] == 100
    assert dict(start) == dict.fromkeys(order, 100)
    assert after != start and start == dict.fromkeys(order, 100)


def test_an_entry_adds_a_player_last_or_restacks_one_already_there() -> None:
    order = ranks(BUCKET)
    chips = ChipCounts.of(order, 100).updated({"p3": 0})
    late = {**order, "late": BUCKET}
    entered = chips.entered(late, "late", 100)
    assert list(entered)[-1] == "late" and entered["late"] == 100
    again = entered.entered(late, "p3", 100)
    assert again["p3"] == 100 and entered["p3"] == 0
    assert "late" in entered and "late" not in chips and "nobody" not in entered
