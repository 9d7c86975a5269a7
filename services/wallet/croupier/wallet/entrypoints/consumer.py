"""The Kafka consumer of `croupier.wallet.requests`: settlements and refunds asked of the wallet.

Exactly-once in effect: every request maps to transfer ids derived from its idempotency
key, so a redelivered request (consumer restart, rebalance, SIGKILL) is a replay and moves
no money. Failures are sorted in two:

- a request that can never apply (malformed, unknown type, unbalanced, insufficient funds,
  id reused for other content…) is recorded, copied to `croupier.wallet.requests.dlq`
  with the reason in the `croupier-dlq-reason` header, and counted in
  `croupier_wallet_dead_lettered_total{reason}` (alert on any increase); the stream moves on;
- anything else (database down, deadlock) is raised, so the bus retries the same message
  until it applies: a settlement is never dropped because of an outage.

A settlement of a play-chip table the wallet never funded (play currency, no seat of any of
its players: the table host keeps such chips itself) is about none of the wallet's money: it
is logged and counted in `croupier_wallet_ignored_requests_total{reason}`, not dead-lettered.

Payloads: `croupier.table.v1.SettlementRequested` and `CrashRefundRequested` (what the
table host sends), and `croupier.wallet.v1.WalletRequest` (the table host's cash-outs, and
any other service).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from google.protobuf.message import DecodeError

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.delivery import (
    DLQ_GROUP_HEADER,
    DLQ_REASON_HEADER,
    DLQ_TOPIC_HEADER,
    TYPE_HEADER,
)
from croupier.kit.bus.interface import dead_letter_topic
from croupier.kit.metrics import KAFKA_DEAD_LETTERED
from croupier.table.v1 import table_pb2
from croupier.wallet.core.errors import InvalidRequest, LedgerError
from croupier.wallet.entrypoints import translate as tr
from croupier.wallet.entrypoints.requests import (
    cash_out,
    optional_currency,
    pay_prizes,
    required,
    required_currency,
    settle_game,
)
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService
from croupier.wallet.service.ports import WalletMetrics
from croupier.wallet.v1 import wallet_pb2

__all__ = ["CONSUMER_GROUP", "REQUESTS_TOPIC", "RequestLog", "WalletRequestHandler"]

_log = logging.getLogger(__name__)

REQUESTS_TOPIC = "croupier.wallet.requests"
CONSUMER_GROUP = "croupier-wallet"


class RawPublisher(Protocol):
    """What dead-lettering needs of the bus (`KafkaBus` and `InMemoryBus` have it)."""

    async def publish_raw(
        self,
        topic: str,
        *,
        key: bytes | None,
        value: bytes | None,
        headers: Sequence[tuple[str, bytes]] = (),
    ) -> None: ...


class _NotOurs(Exception):
    """A request about none of the wallet's money (see the module docstring)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class RequestLog(Protocol):
    """Where handled requests are recorded (the `handled_requests` table)."""

    async def outcome(self, envelope_id: str) -> tuple[str, str] | None:
        """(outcome, reason) of an envelope handled before, or None."""
        ...

    async def record(
        self, envelope_id: str, request_type: str, outcome: str, reason: str, now: datetime
    ) -> None: ...


class WalletRequestHandler:
    """The bus handler for `croupier.wallet.requests` (subscribe it with `max_attempts=None`)."""

    def __init__(
        self,
        *,
        ledger: LedgerService,
        games: GameMoney,
        requests: RequestLog,
        dead_letters: RawPublisher,
        metrics: WalletMetrics,
        clock: Callable[[], datetime],
        topic: str = REQUESTS_TOPIC,
        group: str = CONSUMER_GROUP,
    ) -> None:
        self._ledger = ledger
        self._games = games
        self._requests = requests
        self._dead_letters = dead_letters
        self._metrics = metrics
        self._clock = clock
        self._topic = topic
        self._group = group

    async def __call__(self, envelope: Envelope) -> None:
        previous = await self._requests.outcome(envelope.id)
        if previous is not None and previous[0] == "dead_lettered":
            # Dead-lettered before, but the copy may not have reached the DLQ: send it again.
            await self._dead_letter(envelope, previous[1], record=False)
            return
        try:
            replayed = await self._apply(envelope)
        except _NotOurs as ignored:
            _log.info("ignoring wallet request %s (%s): %s", envelope.id, envelope.type, ignored)
            self._metrics.ignored(ignored.reason)
            return
        except LedgerError as error:
            await self._dead_letter(envelope, f"{error.reason}: {error.message}", record=True)
            return
        except (DecodeError, ValueError) as error:
            await self._dead_letter(envelope, f"malformed: {error}", record=True)
            return
        await self._requests.record(
            envelope.id, envelope.type, "replayed" if replayed else "applied", "", self._clock()
        )

    async def _apply(self, envelope: Envelope) -> bool:
        payload = envelope.payload
        if payload.Is(table_pb2.SettlementRequested.DESCRIPTOR):
            settlement = table_pb2.SettlementRequested()
            payload.Unpack(settlement)
            table_id = required(settlement.table_id, "table_id")
            currency = required_currency(settlement.currency)
            if await self._games.is_unfunded_play_table(
                table_id=table_id, currency=currency, players=settlement.deltas
            ):
                raise _NotOurs(
                    "unfunded_play_table",
                    f"{currency} table {table_id!r}: none of its players has a seat here",
                )
            result = await self._games.settle_result(
                settlement_id=required(settlement.idempotency_key, "idempotency_key"),
                game=tr.game_from_proto(settlement.game),
                table_id=table_id,
                currency=currency,
                deltas=dict(settlement.deltas),
                commission=dict(settlement.commission),
                hand_id=str(settlement.hand_number),
            )
            return result.replayed
        if payload.Is(table_pb2.CrashRefundRequested.DESCRIPTOR):
            crash = table_pb2.CrashRefundRequested()
            payload.Unpack(crash)
            refund = await self._games.crash_refund_table(
                table_id=required(crash.table_id, "table_id"),
                game=tr.game_from_proto(crash.game, required=False),
            )
            return refund.replayed
        if payload.Is(wallet_pb2.WalletRequest.DESCRIPTOR):
            request = wallet_pb2.WalletRequest()
            payload.Unpack(request)
            return await self._apply_wallet_request(request)
        raise InvalidRequest(
            f"unknown request payload {payload.type_url or '(none)'} of type {envelope.type!r}"
        )

    async def _apply_wallet_request(self, request: wallet_pb2.WalletRequest) -> bool:
        which = request.WhichOneof("request")
        if which == "settle_game":
            return (await settle_game(self._games, request.settle_game)).replayed
        if which == "pay_tournament_prizes":
            return (await pay_prizes(self._games, request.pay_tournament_prizes)).replayed
        if which == "refund_crashed_table":
            crash = request.refund_crashed_table
            return (
                await self._games.crash_refund_table(
                    table_id=required(crash.table_id, "table_id"),
                    game=tr.game_from_proto(crash.game, required=False),
                    currency=optional_currency(crash.currency),
                )
            ).replayed
        if which == "refund_crashed_tournament":
            tournament = request.refund_crashed_tournament
            return (
                await self._games.crash_refund_tournament(
                    tournament_id=required(tournament.tournament_id, "tournament_id"),
                    game=tr.game_from_proto(tournament.game, required=False),
                    currency=required_currency(tournament.currency),
                )
            ).replayed
        if which == "refund_tournament_entry":
            entry = request.refund_tournament_entry
            return (
                await self._games.unregister(
                    entry_id=required(entry.entry_id, "entry_id"),
                    refund_id=required(entry.refund_id, "refund_id"),
                )
            ).replayed
        if which == "cash_out":
            return (await cash_out(self._games, request.cash_out))[1]
        if which == "transfer_batch":
            batch = request.transfer_batch
            return (
                await self._ledger.execute(
                    tr.batch_from_proto(batch), batch_id=batch.batch_id, operation="batch"
                )
            ).replayed
        raise InvalidRequest("WalletRequest without a request")

    async def _dead_letter(self, envelope: Envelope, reason: str, *, record: bool) -> None:
        label = reason.split(":", 1)[0]
        _log.error("dead-lettering wallet request %s (%s): %s", envelope.id, envelope.type, reason)
        if record:
            await self._requests.record(
                envelope.id, envelope.type, "dead_lettered", reason, self._clock()
            )
            self._metrics.dead_lettered(label)
        await self._dead_letters.publish_raw(
            dead_letter_topic(self._topic),
            key=envelope.subject.encode(),
            value=envelope.SerializeToString(),
            headers=(
                (DLQ_REASON_HEADER, reason.encode()),
                (DLQ_TOPIC_HEADER, self._topic.encode()),
                (DLQ_GROUP_HEADER, self._group.encode()),
                (TYPE_HEADER, envelope.type.encode()),
            ),
        )
        # With every bus consumer's dead letters (the wallet's own metric has the reason).
        KAFKA_DEAD_LETTERED.labels(self._group, self._topic).inc()
