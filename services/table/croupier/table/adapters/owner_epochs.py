"""Fencing a zombie owner of a command-log partition with owner epochs (issue 22).

A replica whose group session expired during a stall may still append to a partition
that another replica took over and rebuilt meanwhile. Each replica that takes a
partition over first appends a **claim** record to it; the claim's offset is its **owner
epoch** for that partition, and every record it appends there carries that epoch in a
header. Two consequences:

- every replay (`ReplayFence`) skips a record stamped with an epoch older than a claim
  stored before it: a zombie's appends after a takeover never become part of any table,
  whatever it does next;
- the zombie finds out at its first append after the takeover (`OwnerEpochs.landed`): its
  record lands past the offset its own appends predict (the claim sits in between), so it
  reads that gap, finds the newer claim, refuses the command and lets the partition go.

Without a gap (the normal case) the cost is a header per record: no extra round trip,
unlike a transactional producer per partition (see docs/table-host.md for the figures).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Sequence

EPOCH_HEADER = "croupier-owner-epoch"
CLAIM_HEADER = "croupier-owner-claim"

Headers = Sequence[tuple[str, bytes | None]]


def epoch_of(headers: Headers | None) -> int:
    """The owner epoch a record was stamped with; -1 for one written before fencing."""
    for key, value in headers or ():
        if key == EPOCH_HEADER and value:
            return int(value)
    return -1


def is_claim(headers: Headers | None) -> bool:
    return any(key == CLAIM_HEADER for key, _ in headers or ())


def newer_owner(headers: Headers | None, offset: int, epoch: int) -> bool:
    """Whether the record at `offset` shows that another replica claimed the partition
    after the claim of `epoch`: a later claim, or a record stamped with a later epoch."""
    return (is_claim(headers) and offset > epoch) or epoch_of(headers) > epoch


class ReplayFence:
    """The claims a replay learns of, and which records they fence.

    A record at offset `o` stamped with epoch `e` was appended by a fenced owner when a
    claim lies between them (`e < claim < o`). The claims known are those read and every
    epoch a record carries (an epoch is a claim's offset), so a replay that starts after
    a takeover's claim still learns it from the new owner's records, also from those read
    after the zombie's: the decision waits until the whole range is read (`fenced`)."""

    def __init__(self) -> None:
        self._claims: defaultdict[int, set[int]] = defaultdict(set)
        self._sorted: dict[int, list[int]] = {}

    def note(self, partition: int, offset: int, headers: Headers | None) -> int | None:
        """Learn from a record read; its epoch, or None for a claim (no table's entry)."""
        if is_claim(headers):
            self._claims[partition].add(offset)
            return None
        epoch = epoch_of(headers)
        if epoch >= 0:
            self._claims[partition].add(epoch)
        return epoch

    def fenced(self, partition: int, offset: int, epoch: int) -> bool:
        """Whether the record (once every record of the range was noted) is a fenced
        owner's."""
        claims = self._sorted.get(partition)
        if claims is None:
            claims = self._sorted[partition] = sorted(self._claims[partition])
        before = bisect_left(claims, offset) - 1
        return before >= 0 and claims[before] > epoch


class OwnerEpochs:
    """This replica's owner epoch per partition it claimed, and where its records land.

    Each record sent to a partition gets the next sequence number; librdkafka's idempotent
    producer stores one partition's records in the order sent, so the record of sequence
    `s` lands at `anchor_offset + (s - anchor_sequence)` unless somebody else wrote in
    between (or one of ours was lost: it lands earlier, and the anchor moves)."""

    def __init__(self) -> None:
        self._epochs: dict[int, int] = {}
        self._sent: dict[int, int] = {}
        self._anchors: dict[int, tuple[int, int]] = {}  # partition -> (offset, sequence)

    def epoch(self, partition: int) -> int:
        return self._epochs.get(partition, -1)

    def header(self, partition: int) -> list[tuple[str, bytes]]:
        return [(EPOCH_HEADER, str(self.epoch(partition)).encode())]

    def next_sequence(self, partition: int) -> int:
        sequence = self._sent.get(partition, 0)
        self._sent[partition] = sequence + 1
        return sequence

    def claimed(self, partition: int, offset: int, sequence: int) -> None:
        """Our claim record landed at `offset`: it is our epoch from now on."""
        self._epochs[partition] = offset
        self._anchors[partition] = (offset, sequence)

    def forget(self, partition: int) -> None:
        self._epochs.pop(partition, None)
        self._anchors.pop(partition, None)

    def landed(self, partition: int, sequence: int, offset: int) -> int | None:
        """Our record `sequence` was stored at `offset`. Returns None when it landed where
        our own records predict, else the first offset of the gap to read for a newer
        claim (records of others were stored before it)."""
        anchor = self._anchors.get(partition)
        if anchor is None or sequence < anchor[1]:
            if anchor is None:
                self._anchors[partition] = (offset, sequence)
            return None  # nothing to predict from (before our claim, or acknowledged late)
        anchor_offset, anchor_sequence = anchor
        self._anchors[partition] = (offset, sequence)
        if offset <= anchor_offset + (sequence - anchor_sequence):
            return None  # where predicted, or earlier (a record of ours was lost)
        return anchor_offset + 1
