"""The e2e checks judge a table's log as a replay reads it: a command stored twice (an
append retried while the broker was away) is one seating, two seatings are two."""

from __future__ import annotations

from croupier.table.core.log_entry import LogEntry
from tests.e2e.harness.checks import crash_refunds, no_seat_twice
from tests.e2e.harness.events import RecordedEvents


def entry(index: int, command_id: str, kind: str, player: str, seat: int = 0) -> LogEntry:
    body = {"seat": seat} if kind == "seat" else {}
    return LogEntry("t1", index, command_id, kind, player, body, 0, "poker", "3")


def test_a_seating_stored_twice_by_a_retried_append_is_one_seating() -> None:
    log = [
        entry(1, "open", "open", "ann"),
        entry(2, "seat-ann", "seat", "ann", 1),
        entry(2, "seat-ann", "seat", "ann", 1),  # the retry's copy: a replay skips it
        entry(3, "seat-bob", "seat", "bob", 2),
    ]
    assert no_seat_twice(RecordedEvents(commands=log)).ok


def test_a_player_seated_again_or_a_seat_given_twice_is_found() -> None:
    again = [entry(1, "a", "seat", "ann", 1), entry(2, "b", "seat", "ann", 3)]
    taken = [entry(1, "a", "seat", "ann", 1), entry(2, "b", "seat", "bob", 1)]
    left = [
        entry(1, "a", "seat", "ann", 1),
        entry(2, "b", "unseat", "ann"),
        entry(3, "c", "seat", "ann", 1),
    ]
    assert not no_seat_twice(RecordedEvents(commands=again)).ok
    assert not no_seat_twice(RecordedEvents(commands=taken)).ok
    assert no_seat_twice(RecordedEvents(commands=left)).ok


def refund(table_id: str) -> dict[str, str]:
    return {"kind": "crash_refund", "table_id": table_id}


def test_a_voided_table_is_refunded_and_only_a_voided_one() -> None:
    stake = {"kind": "stake", "table_id": "t3"}
    assert crash_refunds([refund("t1"), stake], {"t1": 0, "t3": 40}, {"t1", "t2"}).ok
    # t2 voided but its escrow still holds money: the refund never came.
    assert not crash_refunds([refund("t1")], {"t1": 0, "t2": 500}, {"t1", "t2"}).ok
    # t1 refunded though no host voided it.
    assert not crash_refunds([refund("t1")], {"t1": 0}, set()).ok
