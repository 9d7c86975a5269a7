"""Events the wallet publishes: one `TransferPosted` envelope per posted transfer."""

from __future__ import annotations

import uuid

from croupier.kit.bus.envelope import make_envelope
from croupier.wallet.core.model import Transfer
from croupier.wallet.entrypoints.translate import transfer_to_proto
from croupier.wallet.v1 import wallet_pb2

__all__ = ["TRANSFERS_TOPIC", "encode_transfer_posted", "transfer_envelope_id"]

TRANSFERS_TOPIC = "croupier.wallet.transfers"
EVENT_TYPE = "wallet.transfer_posted"


def transfer_envelope_id(transfer_id: str) -> str:
    """Deterministic, so a re-encoded event deduplicates with the first one."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"croupier-wallet/transfer/{transfer_id}"))


def encode_transfer_posted(
    transfer: Transfer, sequence: int, *, topic: str = TRANSFERS_TOPIC
) -> tuple[str, str, bytes]:
    """The outbox row of a posted transfer: subject = the debit account, whose postings
    number the events (`sequence`), so one account's events stay in order."""
    envelope = make_envelope(
        type=EVENT_TYPE,
        source="wallet",
        subject=transfer.debit_account_id,
        sequence=max(sequence, 1),
        payload=wallet_pb2.TransferPosted(transfer=transfer_to_proto(transfer)),
        envelope_id=transfer_envelope_id(transfer.transfer_id),
        now=transfer.resolved_at or transfer.created_at,
    )
    return topic, envelope.subject, envelope.SerializeToString()
