"""Owner epochs: what a replay keeps of a partition, and when an append must look for a
newer owner (`croupier.table.adapters.owner_epochs`)."""

from __future__ import annotations

from croupier.table.adapters.owner_epochs import (
    CLAIM_HEADER,
    EPOCH_HEADER,
    Headers,
    OwnerEpochs,
    ReplayFence,
    newer_owner,
)

CLAIM: Headers = [(CLAIM_HEADER, b"replica")]


def stamped(epoch: int) -> Headers:
    return [(EPOCH_HEADER, str(epoch).encode())]


def kept(fence: ReplayFence, partition: int, log: list[tuple[int, Headers]]) -> list[int]:
    """The offsets of the table entries a replay of `log` keeps."""
    epochs = {offset: fence.note(partition, offset, headers) for offset, headers in log}
    return [
        offset
        for offset, epoch in epochs.items()
        if epoch is not None and not fence.fenced(partition, offset, epoch)
    ]


def test_a_replay_skips_claims_and_a_fenced_owners_records_after_a_newer_claim() -> None:
    fence = ReplayFence()
    partition_log: list[tuple[int, Headers]] = [
        (0, []),  # written before fencing existed
        (1, CLAIM),
        (2, stamped(1)),
        (3, CLAIM),  # another replica takes over
        (4, stamped(1)),  # the zombie's late append
        (5, stamped(3)),
        (6, stamped(1)),
        (7, []),  # an unstamped record after a claim: an old writer's
    ]
    assert kept(fence, 0, partition_log) == [0, 2, 5]
    # Partitions are fenced apart: partition 1 has seen no claim.
    assert kept(fence, 1, [(8, stamped(1))]) == [8]


def test_a_replay_that_starts_after_the_claim_learns_it_from_the_new_owners_records() -> None:
    # The claim at 40 is not read; the zombie's record (epoch 7) comes first, the new
    # owner's (epoch 40) after it.
    assert kept(ReplayFence(), 0, [(41, stamped(7)), (42, stamped(40))]) == [42]
    # Before the claim, the former owner's records count.
    assert kept(ReplayFence(), 0, [(30, stamped(7)), (42, stamped(40))]) == [30, 42]


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
