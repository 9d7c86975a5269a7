"""The wallet's TransferPosted events: the fast encoder is the kit's envelope, byte for byte."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime, timedelta

from croupier.kit.bus.envelope import Envelope, make_envelope
from croupier.wallet.core.model import References, Transfer, TransferKind, TransferStatus
from croupier.wallet.entrypoints.events import (
    EVENT_TYPE,
    encode_transfer_posted,
    transfer_envelope_id,
    with_sequence,
)
from croupier.wallet.entrypoints.translate import transfer_to_proto
from croupier.wallet.v1 import wallet_pb2

NOW = datetime(2026, 11, 29, 12, 0, 0, 123456, tzinfo=UTC)


def kit_envelope(transfer: Transfer, sequence: int) -> Envelope:
    return make_envelope(
        type=EVENT_TYPE,
        source="wallet",
        subject=transfer.debit_account_id,
        sequence=sequence,
        payload=wallet_pb2.TransferPosted(transfer=transfer_to_proto(transfer)),
        envelope_id=str(
            uuid.uuid5(uuid.NAMESPACE_URL, f"croupier-wallet/transfer/{transfer.transfer_id}")
        ),
        now=transfer.resolved_at or transfer.created_at,
    )


def transfers() -> list[Transfer]:
    shapes = itertools.product(
        [References(), References(game="poker", table_id="t", hand_id="h", tournament_id="x")],
        [None, NOW + timedelta(seconds=3, microseconds=7)],
        [None, 5],
        ["", "orig"],
        [False, True],
    )
    return [
        Transfer(
            transfer_id=f"id-{n}",
            debit_account_id="player_cash:a:USD",
            credit_account_id="table_escrow:t:USD",
            amount=55,
            currency="USD",
            kind=TransferKind.STAKE,
            status=TransferStatus.POSTED,
            is_hold=hold,
            posted_amount=posted,
            references=refs,
            metadata={},
            reversal_of=rev,
            created_at=NOW,
            resolved_at=resolved,
        )
        for n, (refs, resolved, posted, rev, hold) in enumerate(shapes)
    ]


def test_envelope_ids_are_uuid5() -> None:
    for transfer_id in ("a", "s-1", "x" * 200, "player:é"):
        expected = uuid.uuid5(uuid.NAMESPACE_URL, f"croupier-wallet/transfer/{transfer_id}")
        assert transfer_envelope_id(transfer_id) == str(expected)


def test_fast_encoding_is_the_kit_envelope_byte_for_byte() -> None:
    for transfer in transfers():
        for sequence in (1, 127, 128, 16384, 2**40):
            topic, key, data = encode_transfer_posted(transfer, sequence, topic="t")
            assert (topic, key) == ("t", transfer.debit_account_id)
            assert data == kit_envelope(transfer, sequence).SerializeToString()


def test_an_unsequenced_envelope_completed_with_its_sequence_is_the_same_message() -> None:
    transfer = transfers()[-1]
    for sequence in (1, 127, 128, 300, 16383, 16384, 2**35 + 1):
        _, _, unsequenced = encode_transfer_posted(transfer, 0)
        completed = Envelope.FromString(with_sequence(unsequenced, sequence))
        assert completed == kit_envelope(transfer, sequence)
