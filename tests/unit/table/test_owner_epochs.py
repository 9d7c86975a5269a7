"""Owner epochs: what a replay keeps of a partition, and when an append must look for a
newer owner (`croupier.table.adapters.owner_epochs`)."""

from __future__ import annotations

from croupier.table.adapters.owner_epochs import (
    CLAIM_HEADER,
    EPOCH_HEADER,
    OwnerEpochs,
    ReplayFence,
    newer_owner,
)

CLAIM = [(CLAIM_HEADER, b"replica")]


def stamped(epoch: int) -> list[tuple[str, bytes | None]]:
    return [(EPOCH_HEADER, str(epoch).encode())]


def test_a_replay_skips_claims_and_a_fenced_owners_records_after_a_newer_claim() -> None:
    fence = ReplayFence()
    partition_log = [
        (0, [], True),  # written before fencing existed
        (1, CLAIM, False),
        (2, stamped(1), True),
        (3, CLAIM, False),  # another replica takes over
        (4, stamped(1), False),  # the zombie's late append
        (5, stamped(3), True),
        (6, stamped(1), False),
        (7, [], False),  # an unstamped record after a claim: an old writer's
    ]
    for offset, headers, kept in partition_log:
        assert fence.admits(0, offset, headers) is kept, offset
    # Partitions are fenced apart: partition 1 has seen no claim.
    assert fence.admits(1, 8, stamped(1))


def test_a_replay_that_starts_after_a_claim_learns_the_epoch_from_the_records() -> None:
    fence = ReplayFence()
    assert fence.admits(0, 50, stamped(40))
    assert not fence.admits(0, 51, stamped(7))


def test_records_where_our_own_predict_need_no_check() -> None:
    epochs = OwnerEpochs()
    claim = epochs.next_sequence(0)
    epochs.claimed(0, 10, claim)
    assert epochs.epoch(0) == 10 and epochs.header(0) == [(EPOCH_HEADER, b"10")]
    for offset in (11, 12, 13):
        assert epochs.landed(0, epochs.next_sequence(0), offset) is None
    # Acknowledged out of order: the earlier record is not checked again.
    late, later = epochs.next_sequence(0), epochs.next_sequence(0)
    assert epochs.landed(0, later, 15) is None
    assert epochs.landed(0, late, 14) is None


def test_a_record_stored_past_the_prediction_asks_for_the_gap_to_be_read() -> None:
    epochs = OwnerEpochs()
    epochs.claimed(0, 10, epochs.next_sequence(0))
    assert epochs.landed(0, epochs.next_sequence(0), 11) is None
    assert epochs.landed(0, epochs.next_sequence(0), 14) == 12  # 12 and 13 are others'
    assert epochs.landed(0, epochs.next_sequence(0), 15) is None  # anchored again


def test_a_lost_record_of_ours_moves_the_prediction_back() -> None:
    epochs = OwnerEpochs()
    epochs.claimed(0, 10, epochs.next_sequence(0))
    epochs.next_sequence(0)  # its append failed and it was never stored
    assert epochs.landed(0, epochs.next_sequence(0), 11) is None
    assert epochs.landed(0, epochs.next_sequence(0), 12) is None


def test_a_newer_owner_is_a_later_claim_or_a_later_epoch() -> None:
    assert newer_owner(CLAIM, 12, epoch=10)
    assert not newer_owner(CLAIM, 10, epoch=10)  # our own claim
    assert newer_owner(stamped(11), 12, epoch=10)
    assert not newer_owner(stamped(10), 12, epoch=10)
    assert not newer_owner(stamped(3), 12, epoch=10)  # a zombie older than us
