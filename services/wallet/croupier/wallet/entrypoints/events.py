"""Events the wallet publishes: one `TransferPosted` envelope per posted transfer."""

from __future__ import annotations

import hashlib
import uuid

from croupier.kit.bus.envelope import Envelope
from croupier.wallet.core.model import Transfer
from croupier.wallet.entrypoints.translate import fill_transfer, seconds_nanos
from croupier.wallet.v1 import wallet_pb2

__all__ = [
    "TRANSFERS_TOPIC",
    "encode_transfer_posted",
    "transfer_envelope_id",
    "with_sequence",
]

TRANSFERS_TOPIC = "croupier.wallet.transfers"
EVENT_TYPE = "wallet.transfer_posted"
_SOURCE = "wallet"
_TYPE_URL = "type.googleapis.com/" + wallet_pb2.TransferPosted.DESCRIPTOR.full_name
#: Envelope.sequence is field 5, a varint: its tag byte is (5 << 3) | 0.
_SEQUENCE_TAG = bytes([5 << 3])


_NAMESPACE = uuid.NAMESPACE_URL.bytes


def transfer_envelope_id(transfer_id: str) -> str:
    """Deterministic, so a re-encoded event deduplicates with the first one: the UUID 5 of
    `croupier-wallet/transfer/<id>` in the URL namespace (as `uuid.uuid5`, without its
    object overhead; a test checks they agree)."""
    digest = bytearray(
        hashlib.sha1(_NAMESPACE + f"croupier-wallet/transfer/{transfer_id}".encode()).digest()[:16]
    )
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def encode_transfer_posted(
    transfer: Transfer, sequence: int, *, topic: str = TRANSFERS_TOPIC
) -> tuple[str, str, bytes]:
    """The outbox row of a posted transfer: subject = the debit account, whose postings
    number the events (`sequence`), so one account's events stay in order.

    `sequence=0` leaves the sequence out: the ledger's SQL appends it (`with_sequence`) when
    it knows the debit account's posting count. Otherwise the same bytes as the kit's
    `make_envelope(...).SerializeToString()` (tests/unit/wallet/test_wallet_events.py checks).
    """
    # Built field by field (not make_envelope + Any.Pack + FromDatetime, nor keyword
    # arguments, which upb handles at twice the cost): this runs once per posted transfer,
    # inside the wallet's hot path.
    posted = wallet_pb2.TransferPosted()
    fill_transfer(posted.transfer, transfer)
    envelope = Envelope()
    envelope.id = transfer_envelope_id(transfer.transfer_id)
    envelope.type = EVENT_TYPE
    envelope.source = _SOURCE
    envelope.subject = transfer.debit_account_id
    envelope.sequence = sequence
    when = envelope.time
    when.seconds, when.nanos = seconds_nanos(transfer.resolved_at or transfer.created_at)
    payload = envelope.payload
    payload.type_url = _TYPE_URL
    payload.value = posted.SerializeToString()
    return topic, transfer.debit_account_id, envelope.SerializeToString()


def with_sequence(unsequenced: bytes, sequence: int) -> bytes:
    """An envelope encoded with `sequence=0`, completed with its sequence number (what the
    SQL function `protobuf_varint_field(5, n)` appends in PostgreSQL)."""
    out = bytearray(_SEQUENCE_TAG)
    rest = sequence
    while rest >= 0x80:
        out.append((rest & 0x7F) | 0x80)
        rest >>= 7
    out.append(rest)
    return unsequenced + bytes(out)
